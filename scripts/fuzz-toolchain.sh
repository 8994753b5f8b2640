#!/bin/sh
# Makes sure the fuzzing compiler (clang with its libFuzzer runtime) is
# there; installs clang and libclang-rt-14-dev with apt-get when it is not
# (`make fuzz` calls this first). Usage: fuzz-toolchain.sh [CLANG]
CLANG=${1:-clang}
have_fuzzer() {
    command -v "$CLANG" >/dev/null 2>&1 || return 1
    tmp=$(mktemp -d) || return 1
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' >"$tmp/t.c"
    "$CLANG" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1
    rc=$?
    rm -rf "$tmp"
    return $rc
}
have_fuzzer && exit 0
echo "fuzz-toolchain: $CLANG with a libFuzzer runtime not found; installing clang" >&2
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq && $SUDO apt-get install -y -qq clang libclang-rt-14-dev >&2 || {
    echo "fuzz-toolchain: cannot install clang (apt-get failed); install clang and its" \
         "libFuzzer runtime, or set FUZZ_CC" >&2
    exit 1
}
[ "$CLANG" = clang ] || CLANG=clang
have_fuzzer || { echo "fuzz-toolchain: $CLANG still cannot link -fsanitize=fuzzer" >&2; exit 1; }
