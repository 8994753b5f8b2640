#!/bin/sh
# libarchive is opened only when a zipped or compressed trace is read
# (src/io/archive_lib.h): gcscope does not link it, a plain trace never
# loads it, a .gz and a .zip do; when it cannot be opened
# (GCSCOPE_LIBARCHIVE names a missing file) a compressed trace fails with
# one line that says what is missing (exit 2) and plain traces still read.
set -u
G=${GCSCOPE:-build/asan/gcscope}
T=tests/data/server.nettrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "archive_lazy: $*"; exit 1; }

# loads CMD...: the shared objects the run loaded, one per line.
loads() { LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u; }

if command -v ldd > /dev/null 2>&1; then
    ldd build/gcscope | grep -q libarchive && fail "build/gcscope links libarchive"
fi
loads "$G" info "$T" > "$tmp/plain"
[ -s "$tmp/plain" ] || fail "LD_DEBUG=files printed no loads (cannot check)"
grep -q libarchive "$tmp/plain" && fail "info on a plain trace loaded libarchive"
loads "$G" stats "$T" | grep -q libarchive && fail "stats on a plain trace loaded libarchive"

gzip -c "$T" > "$tmp/t.nettrace.gz"
loads "$G" info "$tmp/t.nettrace.gz" | grep -q '^libarchive' || fail "a .gz did not load libarchive"
"$G" info "$T" | sed 1d > "$tmp/want"
"$G" info "$tmp/t.nettrace.gz" | sed 1d > "$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || fail "info on the .gz differs from the plain trace"

# libarchive missing: one line naming it, exit 2; plain traces unaffected.
GCSCOPE_LIBARCHIVE="$tmp/no-such-libarchive.so" "$G" info "$tmp/t.nettrace.gz" \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "missing libarchive: exit $rc, want 2"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "missing libarchive: want one line, got: $(cat "$tmp/err")"
grep -q 'need libarchive .*no-such-libarchive.so' "$tmp/err" \
    || fail "missing libarchive: the line must say so: $(cat "$tmp/err")"
GCSCOPE_LIBARCHIVE="$tmp/no-such-libarchive.so" "$G" info "$T" > /dev/null \
    || fail "missing libarchive: a plain trace must still read"
echo "archive_lazy: ok"
