# gcscope build. `make` builds build/gcscope and build/libgcscope.a;
# `make test` builds everything again with ASan+UBSan and runs all tests;
# `make demo` runs the CLI on a bundled real trace; `make bench` measures;
# `make fuzz` fuzzes every harness of tests/fuzz (clang, docs/fuzzing.md);
# `make install PREFIX=...` / `make uninstall` (docs/install.md).
# BUILD=dir selects the output folder (helpers building side by side).

CC      ?= cc
BUILD   ?= build
CSTD    := -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wstrict-prototypes -Wvla
INCS    := -Iinclude -Isrc
OPT     ?= -O2 -g
CFLAGS_ALL = $(CSTD) $(WARN) $(INCS) $(OPT) $(CFLAGS)
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# libarchive and libbabeltrace2: scripts/deps.sh installs them where absent
# (their headers). Neither is linked: the library opens each the first time
# a trace needs it (src/base/lazy_lib.h), hence -ldl.
LDLIBS  := -lm -ldl -pthread

LIB_SRC  := $(shell find src -name '*.c' | LC_ALL=C sort)
CLI_SRC  := $(shell find tools/cli -name '*.c' | LC_ALL=C sort)
UNIT_SRC := $(shell find tests/unit -name 'test_*.c' | LC_ALL=C sort)
TOOL_SRC := $(shell find tests/tools -name '*.c' 2>/dev/null | LC_ALL=C sort)
FUZZ_SRC := $(shell find tests/fuzz -name 'fuzz_*.c' 2>/dev/null | LC_ALL=C sort)
HDRS     := $(shell find include src tools tests -name '*.h' | LC_ALL=C sort)

LIB_OBJ      := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ      := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/asan/obj/%.o)
SAN_CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/asan/obj/%.o)
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/asan/tests/%)
TOOL_BIN     := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/asan/tools/%)
# Fuzz harnesses: replayed by `make test` (gcc, ASan+UBSan), fuzzed by
# `make fuzz` (clang, libFuzzer). docs/fuzzing.md.
FUZZ_NAMES   := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
REPLAY_BIN   := $(FUZZ_NAMES:%=$(BUILD)/asan/fuzz/replay_%)
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_BIN     := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_SECONDS ?= 30

.PHONY: all test demo bench clean fuzz fuzz-build fuzz-toolchain
all: $(BUILD)/gcscope $(BUILD)/libgcscope.a $(BUILD)/libgcscope_profiler.so

# The libraries' headers and -dev packages (scripts/deps.sh), once per
# build folder: every object waits for it (order-only).
$(BUILD)/deps.ok: scripts/deps.sh
	@mkdir -p $(dir $@)
	@sh scripts/deps.sh "$(CC)" && touch $@

$(BUILD)/obj/%.o: %.c $(HDRS) | $(BUILD)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libgcscope.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/gcscope: $(CLI_OBJ) $(BUILD)/libgcscope.a
	$(CC) $(CFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/libgcscope.a $(LDLIBS)

# The in-process CoreCLR profiler (tools/profiler, docs/format-profile.md):
# a shared library the runtime loads; plain C, no sanitizer (it runs inside
# dotnet), only DllGetClassObject/DllCanUnloadNow exported.
PROF_SRC := $(shell find tools/profiler -name '*.c' | LC_ALL=C sort)
$(BUILD)/libgcscope_profiler.so: $(PROF_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -O2 -g -fPIC -shared -fvisibility=hidden -pthread $(CFLAGS) -o $@ $(PROF_SRC)

# Sanitized build for tests.
$(BUILD)/asan/obj/%.o: %.c $(HDRS) | $(BUILD)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -O1 -g $(SAN) $(CFLAGS) -c $< -o $@

$(BUILD)/asan/libgcscope.a: $(SAN_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/asan/gcscope: $(SAN_CLI_OBJ) $(BUILD)/asan/libgcscope.a
	$(CC) $(SAN) -o $@ $(SAN_CLI_OBJ) $(BUILD)/asan/libgcscope.a $(LDLIBS)

$(BUILD)/asan/tests/%: tests/unit/%.c $(BUILD)/asan/libgcscope.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -Itests -O1 -g $(SAN) $(CFLAGS) -o $@ $< $(BUILD)/asan/libgcscope.a $(LDLIBS) $(TEST_LDLIBS)

# test_archive writes archives with libarchive itself.
$(BUILD)/asan/tests/test_archive: TEST_LDLIBS := -larchive

$(BUILD)/asan/tools/%: tests/tools/%.c $(BUILD)/asan/libgcscope.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -Itests -O1 -g $(SAN) $(CFLAGS) -o $@ $< $(BUILD)/asan/libgcscope.a $(LDLIBS)

$(BUILD)/asan/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(BUILD)/asan/libgcscope.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(INCS) -Itests -O1 -g $(SAN) $(CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(BUILD)/asan/libgcscope.a $(LDLIBS)

# libFuzzer builds (clang). The library is compiled with the fuzzer's
# coverage instrumentation too, so the fuzzers see inside it.
fuzz-toolchain:
	@sh scripts/fuzz-toolchain.sh "$(FUZZ_CC)"

$(BUILD)/fuzz/obj/%.o: %.c $(HDRS) | fuzz-toolchain $(BUILD)/deps.ok
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CSTD) $(INCS) -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer $(CFLAGS) -c $< -o $@

$(BUILD)/fuzz/libgcscope.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/fuzz/libgcscope.a $(HDRS)
	$(FUZZ_CC) $(CSTD) $(INCS) -Itests -O1 -g $(FUZZ_SAN) $(CFLAGS) -o $@ $< $(BUILD)/fuzz/libgcscope.a $(LDLIBS)

$(BUILD)/fuzz/cut_seed: tests/fuzz/cut_seed.c $(BUILD)/libgcscope.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests -o $@ $< $(BUILD)/libgcscope.a $(LDLIBS)

fuzz-build: $(FUZZ_BIN) $(BUILD)/fuzz/cut_seed

# Runs every harness FUZZ_SECONDS (wall) on a seed corpus cut from the
# fixtures; new corpus entries stay in $(BUILD)/fuzz/corpus/<harness>.
fuzz: fuzz-build
	@BUILD=$(BUILD) sh tests/fuzz/make-corpus.sh
	@for h in $(FUZZ_NAMES); do \
	    echo "== fuzz_$$h ($(FUZZ_SECONDS) s)"; \
	    mkdir -p $(BUILD)/fuzz/artifacts/$$h; \
	    max_len=65536; [ $$h = ctfread ] && max_len=262144; \
	    dict=; [ -f tests/fuzz/$$h.dict ] && dict=-dict=tests/fuzz/$$h.dict; \
	    $(BUILD)/fuzz/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -max_len=$$max_len $$dict -timeout=20 -rss_limit_mb=3072 \
	        -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/artifacts/$$h/ \
	        $(BUILD)/fuzz/corpus/$$h tests/fuzz/regressions/$$h 2>&1 | grep -E '^(#|==|INFO: seed|stat::|SUMMARY|.*invariant failed|.*runtime error)' | tail -12 || exit 1; \
	    [ -z "$$(ls -A $(BUILD)/fuzz/artifacts/$$h)" ] || { echo "fuzz_$$h: findings in $(BUILD)/fuzz/artifacts/$$h"; exit 1; }; \
	done

test: all $(BUILD)/asan/gcscope $(UNIT_BIN) $(TOOL_BIN) $(REPLAY_BIN)
	@BUILD=$(BUILD) sh tests/run-tests.sh

demo: all
	@sh scripts/demo.sh $(BUILD)/gcscope

bench: all
	@sh scripts/bench.sh $(BUILD)/gcscope

clean:
	rm -rf $(BUILD)

# Installation (docs/install.md): `make install PREFIX=/usr/local` (DESTDIR
# stages the tree for a package), `make uninstall` with the same variables.
# Installs the CLI, libgcscope.a, libgcscope.so (soname libgcscope.so.MAJOR),
# the public headers, gcscope.pc, the man page and the bash completion.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL     ?= install

VERSION  := $(shell sed -n 's/^\#define GCS_VERSION_STRING "\(.*\)"/\1/p' include/gcscope/core.h)
SOMAJOR  := $(firstword $(subst ., ,$(VERSION)))
SONAME   := libgcscope.so.$(SOMAJOR)
SHLIB    := libgcscope.so.$(VERSION)
PUB_HDRS := $(shell find include/gcscope -name '*.h' | LC_ALL=C sort)
# The shared library's objects: position-independent, in their own folder.
PIC_LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/pic/obj/%.o)

.PHONY: shared install uninstall
shared: $(BUILD)/$(SHLIB)

$(BUILD)/pic/obj/%.o: %.c $(HDRS) | $(BUILD)/deps.ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fPIC -c $< -o $@

# The shared library exports exactly what include/ declares: the functions
# and extern variables of the preprocessed public headers (comments gone).
# Internal functions share the gcs_ prefix, so `gcs_*` would export them too.
$(BUILD)/libgcscope.map: include/gcscope.h $(PUB_HDRS)
	@mkdir -p $(dir $@)
	@{ echo '{ global:'; \
	   $(CC) -E -P -Iinclude include/gcscope.h | \
	     sed -n -e 's/^extern .*\b\(gcs_[a-z0-9_]*\) *[[;].*/\1/p' \
	            -e 's/\b\(gcs_[a-z0-9_]*\)(/\n\1(\n/gp' | \
	     grep -E '^gcs_[a-z0-9_]+\(?$$' | tr -d '(' | LC_ALL=C sort -u | sed 's/.*/    &;/'; \
	   echo '  local: *; };'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/$(SHLIB): $(PIC_LIB_OBJ) $(BUILD)/libgcscope.map
	$(CC) $(CFLAGS_ALL) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/libgcscope.map \
	    -Wl,--no-undefined $(LDFLAGS) -o $@ $(PIC_LIB_OBJ) $(LDLIBS)

# gcscope.pc names the installed paths (not DESTDIR's staging ones).
$(BUILD)/gcscope.pc: gcscope.pc.in include/gcscope/core.h FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@prefix@|$(PREFIX)|' \
	     -e 's|@libdir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	     -e 's|@includedir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	     -e 's|@version@|$(VERSION)|' gcscope.pc.in > $@

FORCE:

install: all $(BUILD)/$(SHLIB) $(BUILD)/gcscope.pc
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(INCLUDEDIR)/gcscope $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BUILD)/gcscope $(DESTDIR)$(BINDIR)/gcscope
	$(INSTALL) -m 644 $(BUILD)/libgcscope.a $(DESTDIR)$(LIBDIR)/libgcscope.a
	$(INSTALL) -m 755 $(BUILD)/$(SHLIB) $(DESTDIR)$(LIBDIR)/$(SHLIB)
	$(INSTALL) -m 755 $(BUILD)/libgcscope_profiler.so $(DESTDIR)$(LIBDIR)/libgcscope_profiler.so
	ln -sf $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libgcscope.so
	$(INSTALL) -m 644 $(BUILD)/gcscope.pc $(DESTDIR)$(PKGCONFIGDIR)/gcscope.pc
	$(INSTALL) -m 644 include/gcscope.h $(DESTDIR)$(INCLUDEDIR)/gcscope.h
	$(INSTALL) -m 644 $(PUB_HDRS) $(DESTDIR)$(INCLUDEDIR)/gcscope/
	$(INSTALL) -m 644 man/gcscope.1 $(DESTDIR)$(MANDIR)/man1/gcscope.1
	$(INSTALL) -m 644 completions/gcscope.bash $(DESTDIR)$(BASHCOMPDIR)/gcscope

# Removes what install put there, and the headers' own folder; the shared
# folders (bin, lib, share/man/man1, ...) stay.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/gcscope \
	    $(DESTDIR)$(LIBDIR)/libgcscope.a $(DESTDIR)$(LIBDIR)/$(SHLIB) \
	    $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libgcscope.so \
	    $(DESTDIR)$(LIBDIR)/libgcscope_profiler.so \
	    $(DESTDIR)$(PKGCONFIGDIR)/gcscope.pc $(DESTDIR)$(INCLUDEDIR)/gcscope.h \
	    $(PUB_HDRS:include/%=$(DESTDIR)$(INCLUDEDIR)/%) \
	    $(DESTDIR)$(MANDIR)/man1/gcscope.1 $(DESTDIR)$(BASHCOMPDIR)/gcscope
	rmdir $(DESTDIR)$(INCLUDEDIR)/gcscope 2>/dev/null || true
