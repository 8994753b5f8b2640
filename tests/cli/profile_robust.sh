#!/bin/sh
# The profiler never takes the program down: with buffers too small to
# keep up (records dropped, counted, reported), with the reading side of
# its output gone (a fifo whose reader exits), under server GC (still
# exact), under concurrent GC with four allocating threads, and in a
# program that runs out of memory (OutOfMemoryException caught).
set -u
GCSCOPE=${GCSCOPE:-build/asan/gcscope}
. tests/cli/profile_lib.inc
need_dotnet profile_robust
build_profile_workload
need_profiler
tmp=${TMPDIR:-/tmp}/gcscope-profile-robust.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "profile_robust: $*"; exit 1; }

# 1. Tiny buffers (4 x 4 KiB) and a reader that waits 4 s before it reads:
# the pipe fills, every buffer fills, the profiler drops records instead of
# blocking the program; the program finishes and the report says how many
# were dropped. (Writing to a file, drops depend on how fast the writer
# thread runs on the machine of the day; the waiting reader makes them
# certain.)
mkfifo "$tmp/slow"
(sleep 4; cat > "$tmp/slow.gcprof") < "$tmp/slow" &
GCSCOPE_PROFILE_BUFFER=4096 CORECLR_ENABLE_PROFILING=1 \
    CORECLR_PROFILER='{8C2E5F0A-3B7D-4E61-9A24-6D1F0C5B9E73}' \
    CORECLR_PROFILER_PATH="$GCSCOPE_PROFILER" GCSCOPE_PROFILE_OUT="$tmp/slow" \
    GCSCOPE_PROFILE_TYPES=Churn dotnet "$WORKLOAD_DLL" churn 2000000 >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "tiny buffers: the program failed"; }
grep -q '^churn objects=2000000 ' "$tmp/out" || fail "tiny buffers: the program did not finish"
wait
"$GCSCOPE" objects "$tmp/slow.gcprof" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "tiny buffers: gcscope objects on the profile failed"; }
grep -q 'problem(s) in the input, the first: profile: the profiler dropped [0-9]* records' "$tmp/err" ||
    { cat "$tmp/err"; fail "tiny buffers: no dropped records reported"; }

# 2. The output is a fifo whose reader leaves after 100 kB: the writer gets
# EPIPE (no SIGPIPE), the program goes on.
mkfifo "$tmp/fifo"
head -c 100000 "$tmp/fifo" >/dev/null &
CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER='{8C2E5F0A-3B7D-4E61-9A24-6D1F0C5B9E73}' \
    CORECLR_PROFILER_PATH="$GCSCOPE_PROFILER" GCSCOPE_PROFILE_OUT="$tmp/fifo" \
    dotnet "$WORKLOAD_DLL" churn 1000000 >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "reader gone: the program failed"; }
grep -q '^churn objects=1000000 ' "$tmp/out" || fail "reader gone: the program did not finish"
wait

# 3. Server GC: still exact.
DOTNET_gcServer=1 DOTNET_gcConcurrent=0 "$GCSCOPE" profile --format csv \
    -- dotnet "$WORKLOAD_DLL" exact >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "server GC: gcscope profile failed"; }
grep '^expect ' "$tmp/out" >"$tmp/account"
grep -v '^expect ' "$tmp/out" >"$tmp/csv"
check_expect "$tmp/account" "$tmp/csv" || fail "server GC: counts differ from the account"

# 4. Concurrent GC, four threads allocating at once: every allocation is
# there, none died unseen.
DOTNET_gcServer=0 DOTNET_gcConcurrent=1 "$GCSCOPE" profile --types Churn --format csv \
    -- dotnet "$WORKLOAD_DLL" threads 4 500000 >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "concurrent GC: gcscope profile failed"; }
grep -q '^threads allocated=2000000$' "$tmp/out" || fail "concurrent GC: the program did not finish"
grep -q '^"[^"]*","ProfileLoad.ChurnItem",[0-9]*,2000000,48000000,[0-9]*,[0-9]*,[0-9]*,0,' "$tmp/out" ||
    { grep ChurnItem "$tmp/out"; fail "concurrent GC: not 2 000 000 ChurnItems of 24 bytes, or unseen deaths"; }

# 5. Out of memory (256 MiB heap limit): caught by the program, which exits 0.
DOTNET_GCHeapHardLimit=0x10000000 "$GCSCOPE" profile --types 'Int64' \
    -- dotnet "$WORKLOAD_DLL" oom >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "out of memory: gcscope profile failed"; }
grep -q '^oom caught after [1-9][0-9]* arrays$' "$tmp/out" || { cat "$tmp/out"; fail "out of memory: not caught"; }
grep -q '^System.Int64\[\] ' "$tmp/out" || fail "out of memory: no Int64[] row"
echo "profile_robust: ok"
