#!/bin/sh
# libarchive and libbabeltrace2 are opened only when a trace needs them
# (src/base/lazy_lib.h): gcscope links neither; a plain trace loads
# neither; a .gz loads libarchive; a zipped CTF trace read by our own CTF
# reader loads libarchive but not babeltrace2, GCSCOPE_CTF_READER=babeltrace
# loads it. When one cannot be opened (GCSCOPE_LIBARCHIVE or
# GCSCOPE_LIBBABELTRACE2 names a missing file) the trace that needs it
# fails with one line that says what is missing (exit 2) and plain traces
# still read.
set -u
G=${GCSCOPE:-build/asan/gcscope}
T=tests/data/server.nettrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "lazy_libs: $*"; exit 1; }

# loads CMD...: the shared objects the run loaded, one per line.
loads() { LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u; }

if command -v ldd > /dev/null 2>&1; then
    ldd build/gcscope | grep -q libarchive && fail "build/gcscope links libarchive"
    ldd build/gcscope | grep -q libbabeltrace2 && fail "build/gcscope links libbabeltrace2"
fi
loads "$G" info "$T" > "$tmp/plain"
[ -s "$tmp/plain" ] || fail "LD_DEBUG=files printed no loads (cannot check)"
grep -q -E 'libarchive|libbabeltrace2' "$tmp/plain" && fail "info on a plain trace loaded $(cat "$tmp/plain")"
loads "$G" stats "$T" | grep -q -E 'libarchive|libbabeltrace2' && fail "stats on a plain trace loaded one"

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
# CTF: the native reader needs libarchive for the zip only.
CTF=../shared/traces/ctf/clr-only.trace.zip
if [ -f "$CTF" ]; then
    loads "$G" info "$CTF" > "$tmp/ctf"
    grep -q '^libarchive' "$tmp/ctf" || fail "a zipped CTF trace did not load libarchive"
    grep -q libbabeltrace2 "$tmp/ctf" && fail "the native CTF reader loaded libbabeltrace2"
    GCSCOPE_CTF_READER=babeltrace loads "$G" info "$CTF" | grep -q '^libbabeltrace2' \
        || fail "GCSCOPE_CTF_READER=babeltrace did not load libbabeltrace2"
    GCSCOPE_CTF_READER=babeltrace GCSCOPE_LIBBABELTRACE2="$tmp/no-such-bt.so" \
        "$G" info "$CTF" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "missing libbabeltrace2: exit $rc, want 2"
    grep -q 'needs libbabeltrace2 .*no-such-bt.so' "$tmp/err" \
        || fail "missing libbabeltrace2: the line must say so: $(cat "$tmp/err")"
    GCSCOPE_LIBBABELTRACE2="$tmp/no-such-bt.so" "$G" info "$CTF" > /dev/null \
        || fail "missing libbabeltrace2: the native CTF reader must still read"
else
    echo "skipped: the CTF cases (no $CTF)"
fi
echo "lazy_libs: ok"
