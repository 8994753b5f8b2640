# gcscope build. `make` builds build/gcscope and build/libgcscope.a;
# `make test` builds everything again with ASan+UBSan and runs all tests;
# `make demo` runs the CLI on a bundled real trace; `make bench` measures.
# BUILD=dir selects the output folder (helpers building side by side).

CC      ?= cc
BUILD   ?= build
CSTD    := -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wstrict-prototypes -Wvla
INCS    := -Iinclude -Isrc
OPT     ?= -O2 -g
CFLAGS_ALL = $(CSTD) $(WARN) $(INCS) $(OPT) $(CFLAGS)
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDLIBS  := -lm

LIB_SRC  := $(shell find src -name '*.c' | LC_ALL=C sort)
CLI_SRC  := $(shell find tools/cli -name '*.c' | LC_ALL=C sort)
UNIT_SRC := $(shell find tests/unit -name 'test_*.c' | LC_ALL=C sort)
TOOL_SRC := $(shell find tests/tools -name '*.c' 2>/dev/null | LC_ALL=C sort)
HDRS     := $(shell find include src tools tests -name '*.h' | LC_ALL=C sort)

LIB_OBJ      := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ      := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/asan/obj/%.o)
SAN_CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/asan/obj/%.o)
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/asan/tests/%)
TOOL_BIN     := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/asan/tools/%)

.PHONY: all test demo bench clean
all: $(BUILD)/gcscope $(BUILD)/libgcscope.a

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libgcscope.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/gcscope: $(CLI_OBJ) $(BUILD)/libgcscope.a
	$(CC) $(CFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/libgcscope.a $(LDLIBS)

# Sanitized build for tests.
$(BUILD)/asan/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -O1 -g $(SAN) $(CFLAGS) -c $< -o $@

$(BUILD)/asan/libgcscope.a: $(SAN_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/asan/gcscope: $(SAN_CLI_OBJ) $(BUILD)/asan/libgcscope.a
	$(CC) $(SAN) -o $@ $(SAN_CLI_OBJ) $(BUILD)/asan/libgcscope.a $(LDLIBS)

$(BUILD)/asan/tests/%: tests/unit/%.c $(BUILD)/asan/libgcscope.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -Itests -O1 -g $(SAN) $(CFLAGS) -o $@ $< $(BUILD)/asan/libgcscope.a $(LDLIBS)

$(BUILD)/asan/tools/%: tests/tools/%.c $(BUILD)/asan/libgcscope.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -Itests -O1 -g $(SAN) $(CFLAGS) -o $@ $< $(BUILD)/asan/libgcscope.a $(LDLIBS)

test: all $(BUILD)/asan/gcscope $(UNIT_BIN) $(TOOL_BIN)
	@BUILD=$(BUILD) sh tests/run-tests.sh

demo: all
	@sh scripts/demo.sh $(BUILD)/gcscope

bench: all
	@sh scripts/bench.sh $(BUILD)/gcscope

clean:
	rm -rf $(BUILD)
