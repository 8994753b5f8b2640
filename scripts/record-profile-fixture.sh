#!/bin/sh
# Records tests/data/profile-exact.gcprof: the in-process profiler's stream
# (docs/format-profile.md) of tests/workloads/profile in mode exact, every
# type, workstation non-concurrent GC; the workload's account of that run
# beside it as profile-exact.workload.txt (tests/cli/profile_fixture.sh
# checks one against the other without dotnet). The fuzzers' seed corpus cuts it
# (tests/fuzz/make-corpus.sh). Needs dotnet and a built gcscope with its
# profiler (make). Addresses and times differ from run to run.
#
#   sh scripts/record-profile-fixture.sh [build/gcscope]
set -eu
GCSCOPE=${1:-build/gcscope}
BUILD=$(dirname "$GCSCOPE")
. tests/cli/profile_lib.inc
need_dotnet record-profile-fixture
build_profile_workload
need_profiler
out=$(mktemp)
trap 'rm -f "$out"' EXIT
DOTNET_gcServer=0 DOTNET_gcConcurrent=0 "$GCSCOPE" profile -o tests/data/profile-exact.gcprof \
    --format csv -- dotnet "$WORKLOAD_DLL" exact >"$out" || { cat "$out"; exit 1; }
grep '^expect ' "$out" >tests/data/profile-exact.workload.txt
size=$(wc -c <tests/data/profile-exact.gcprof)
[ "$size" -lt 2097152 ] || { echo "profile-exact.gcprof: $size bytes, over 2 MB"; exit 1; }
echo "tests/data/profile-exact.gcprof: $size bytes"
