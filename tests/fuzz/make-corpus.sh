#!/bin/sh
# Cuts the fuzzers' seed corpus from the fixtures into
# $BUILD/fuzz/corpus/<harness>/ (nothing of it is committed):
#   - prefixes (4, 16, 64 KiB) of every trace in tests/data (nettrace V5,
#     V6; the profiler's profile-exact.gcprof whole too) and, when
#     present, ../shared's PerfView traces (netperf, nettrace, etl: whole
#     buffers, compressed ones included);
#   - ETL files of our writer (tests/tools/etl_write, built here against
#     $BUILD/libgcscope.a): 64- and 32-bit logs of small buffers from many
#     processors, lost counters, records cut at a buffer end, a fixture
#     converted;
#   - cut_seed's GC-only and objects-only V6 rewrites of each fixture, whole
#     when small, else prefixes: whole GCs within a few KiB;
#   - for `again`, the same behind 9 schedule bytes (fuzz_again.c);
#   - for `profile`, the records of tests/data/*.gcprof without their
#     header, whole and cut, and each file whole;
#   - for `objtrack`, op streams (any bytes are ops; slices of fixtures and
#     a few hand-made ones); for `diag`, diagnostic-server replies;
#   - for `archive`, 4 and 16 KiB prefixes of a few traces as gzip, xz,
#     zstd, bzip2, tar.gz and zip (python3's zipfile, or zip) members named
#     t.nettrace, a zip with a log file first, and the PerfView .etl.zip
#     when present;
#   - for `ctfread`, the CTF traces' TSDL texts (../shared's and the
#     synthetic tests/data/ctf) each followed by a 0 byte and a stream file
#     (64 KiB of each, a first small whole packet) and four hand-made traces (tests/fuzz/ctf_seeds.py; needs
#     python3, else skipped).
#   - for `tap`, the same traces as for reader and scan;
#   - for `symbols`, the NativeAOT fixture's symbols (tests/data/*.dbg) cut
#     by objcopy to a few type symbols, and their first 64 KiB;
# Usage: BUILD=build sh tests/fuzz/make-corpus.sh   (after make fuzz-build)
set -e
BUILD=${BUILD:-build}
OUT="$BUILD/fuzz/corpus"
CUT="$BUILD/fuzz/cut_seed"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT/reader" "$OUT/scan" "$OUT/again" "$OUT/objtrack" "$OUT/diag" "$OUT/archive" \
    "$OUT/profile" "$OUT/tap"

n=0
seed() { # seed FILE NAME: into reader, scan and again (the latter behind a schedule)
    cp "$1" "$OUT/reader/$2"
    cp "$1" "$OUT/scan/$2"
    cp "$1" "$OUT/tap/$2"
    # schedule: AGAIN on every other read, chunks of 1 + 0x1b*37 = 1000 bytes
    { printf '\125\125\125\125\125\125\125\125\033'; cat "$1"; } >"$OUT/again/$2"
}
prefixes() { # prefixes FILE NAME SIZES...
    f=$1; name=$2; shift 2
    size=$(wc -c <"$f")
    for k in "$@"; do
        if [ "$size" -le $((k * 1024)) ]; then
            seed "$f" "$name-whole"
            return
        fi
        head -c $((k * 1024)) "$f" >"$TMP/p"
        seed "$TMP/p" "$name-$k"k
    done
}

traces=$(ls tests/data/*.nettrace tests/data/v6/*.nettrace tests/data/*.gcprof 2>/dev/null)
for p in ../shared/traces/perfview/*.netperf ../shared/traces/perfview/*.nettrace \
         ../shared/traces/perfview/*.etl; do
    [ -f "$p" ] && traces="$traces $p"
done
# ETL of our own writer: what the real files lack (small buffers so that a
# 64 KiB input holds many processors' buffers).
if [ -f "$BUILD/libgcscope.a" ] &&
   ${CC:-cc} -std=c11 -D_DEFAULT_SOURCE -O1 -Iinclude -Isrc -Itests -o "$TMP/etl_write" \
       tests/tools/etl_write.c "$BUILD/libgcscope.a" -lm -ldl -pthread 2>/dev/null; then
    W="$TMP/etl_write"
    $W --synthetic --cpus 8 --buffer-size 1024 --gcs 6 --handles 30 "$TMP/w1.etl" 2>/dev/null &&
        seed "$TMP/w1.etl" etlw-8cpu
    $W --synthetic --cpus 3 --buffer-size 2048 --pointer-size 4 --gcs 5 --handles 20 \
        --events-lost 7 --buffers-lost 2 "$TMP/w2.etl" 2>/dev/null && seed "$TMP/w2.etl" etlw-32bit-lost
    $W --synthetic --cpus 4 --buffer-size 1024 --gcs 4 --handles 40 --cut-every 5 \
        "$TMP/w3.etl" 2>/dev/null && seed "$TMP/w3.etl" etlw-cut
    $W --cpus 4 --buffer-size 4096 --max-mb 1 tests/data/probe-net10.nettrace "$TMP/w4.etl" \
        2>/dev/null && prefixes "$TMP/w4.etl" etlw-probe 16 64
fi

for f in $traces; do
    name=$(basename "$f" | sed 's/[^A-Za-z0-9.-]/_/g')
    prefixes "$f" "$name" 4 16 64
    case $f in *.gcprof) seed "$f" "$name-whole" ;; esac # a profile's end is its EXIT record
    case $f in *.etl|*.gcprof) continue ;; esac # cut_seed rewrites EventPipe traces only
    for mode in gc objects; do
        if "$CUT" "$mode" "$f" "$TMP/cut" 2>/dev/null; then
            prefixes "$TMP/cut" "$name-$mode" 8 32 64
        fi
    done
    # objtrack: bytes of the trace are ops too
    head -c 2048 "$f" | tail -c 1024 >"$OUT/objtrack/$name-ops"
done

# profile: the records of each profile fixture without its 48-byte header
# (fuzz_profile.c puts a valid one in front), whole and 2/8/32 KiB of
# them; the whole file too (read as it is: the header is fuzzed).
for f in tests/data/*.gcprof; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .gcprof)
    cp "$f" "$OUT/profile/$name-file"
    tail -c +49 "$f" >"$OUT/profile/$name-records"
    for k in 2 8 32; do
        head -c $((k * 1024)) "$OUT/profile/$name-records" >"$OUT/profile/$name-records-${k}k"
    done
done

# objtrack, by hand: adds, a gen0 GC with a moved and a surviving range,
# end; then a layout and a gen2 GC with overlapping ranges in reverse order.
printf '\000\000\010\000\000\000\020\000\000\020\000\000\003\004\000\010\000\030\010\005\000\020\010\006' \
    >"$OUT/objtrack/gc0"
printf '\040\000\001\000\000\000\002\000\000\000\003\000\000\010\000\000\000\004\000\000\010\043\044\000\004\000\010\020\104\000\002\000\003\010\000\001\010\006\010\000\000\001\100\007' \
    >"$OUT/objtrack/gc2"

# diag: OK reply with a session id then stream bytes; error reply; a reply
# longer than what is kept; an unexpected command; a bare header.
magic='DOTNET_IPC_V1\000'
printf "${magic}\034\000\377\000\000\000\001\002\003\004\005\006\007\010Nettrace" >"$OUT/diag/ok"
printf "${magic}\030\000\377\377\000\000\205\023\023\200" >"$OUT/diag/error"
{ printf "${magic}\124\000\377\000\000\000"; head -c 64 /dev/zero; } >"$OUT/diag/long"
printf "${magic}\034\000\002\002\000\000\001\002\003\004\005\006\007\010" >"$OUT/diag/other"
printf "${magic}\024\000\377\000\000\000${magic}\030\000\377\377\000\000\001\000\000\200" >"$OUT/diag/two"

# archive: small traces packed every way the reader opens.
A=$(cd "$OUT/archive" && pwd)
for f in tests/data/probe-net10.nettrace tests/data/v6/synthetic.nettrace \
         ../shared/traces/perfview/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf \
         ../shared/traces/perfview/primitive-types.etl; do
    [ -f "$f" ] || continue
    name=$(basename "$f" | sed 's/[^A-Za-z0-9.-]/_/g')
    for k in 4 16; do
        mkdir -p "$TMP/z"
        head -c $((k * 1024)) "$f" >"$TMP/z/t.nettrace"
        printf 'collection log\n' >"$TMP/z/LogFile.txt"
        gzip -c "$TMP/z/t.nettrace" >"$A/$name-$k.gz"
        command -v xz >/dev/null 2>&1 && xz -c "$TMP/z/t.nettrace" >"$A/$name-$k.xz"
        command -v zstd >/dev/null 2>&1 && zstd -q -c "$TMP/z/t.nettrace" >"$A/$name-$k.zst"
        command -v bzip2 >/dev/null 2>&1 && bzip2 -c "$TMP/z/t.nettrace" >"$A/$name-$k.bz2"
        tar -C "$TMP/z" -czf "$A/$name-$k.tar.gz" LogFile.txt t.nettrace
        if command -v python3 >/dev/null 2>&1; then
            python3 -c 'import sys, zipfile
for out, store, names in ((sys.argv[1], False, ["t.nettrace"]), (sys.argv[2], True, ["LogFile.txt", "t.nettrace"])):
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED if store else zipfile.ZIP_DEFLATED) as z:
        for n in names:
            z.write(sys.argv[3] + "/" + n, n)' "$A/$name-$k.zip" "$A/$name-$k-log-stored.zip" "$TMP/z"
        elif command -v zip >/dev/null 2>&1; then
            (cd "$TMP/z" && zip -q "$A/$name-$k.zip" t.nettrace && zip -q -0 "$A/$name-$k-log-stored.zip" LogFile.txt t.nettrace)
        fi
        rm -rf "$TMP/z"
    done
done
Z=../shared/traces/perfview/net.4.5.2.x86.etl.zip
[ -f "$Z" ] && head -c 65536 "$Z" >"$A/net.4.5.2.x86.etl.zip-64k"

# ctf: the CTF fixtures' metadata files (packetized, both kernel and
# user-space), whole and cut; fuzz_ctf.c checks them as metadata.
mkdir -p "$OUT/ctf"
for z in ../shared/traces/ctf/*.trace.zip; do
    [ -f "$z" ] || continue
    b=$(basename "$z" .trace.zip)
    mkdir -p "$TMP/ctf-$b"
    (cd "$TMP/ctf-$b" && unzip -q "$OLDPWD/$z") || continue
    i=0
    for m in $(find "$TMP/ctf-$b" -name metadata | LC_ALL=C sort); do
        i=$((i + 1))
        cp "$m" "$OUT/ctf/$b-metadata$i"
        head -c 6000 "$m" >"$OUT/ctf/$b-metadata$i-cut"
    done
done

# ctfread: metadata text, a 0 byte, a stream file (fuzz_ctfread.c): from
# the traces extracted above, and the hand-made ones of ctf_seeds.py.
mkdir -p "$OUT/ctfread"
if command -v python3 >/dev/null 2>&1; then
    python3 tests/fuzz/ctf_seeds.py "$OUT/ctfread" \
        $(find "$TMP" -path "$TMP/ctf-*" -name metadata 2>/dev/null | LC_ALL=C sort) \
        $(find tests/data/ctf -name metadata 2>/dev/null | LC_ALL=C sort)
fi

# symbols: the NativeAOT fixture's symbols cut to a few type symbols by
# objcopy (a real linker's layout, 4 KiB; skipped without objcopy), its
# first 64 KiB, and the hand-made files of tests/fuzz/regressions/symbols
# (the fuzzer reads those too).
mkdir -p "$OUT/symbols"
for d in tests/data/*.dbg; do
    [ -f "$d" ] || continue
    b=$(basename "$d" .dbg)
    head -c 65536 "$d" >"$OUT/symbols/$b-64k"
    if command -v objcopy >/dev/null 2>&1; then
        objcopy --strip-all -K _ZTV6String -K '_ZTV14__Array<UInt8>' \
            -K '__GCStaticEEType_*' "$d" "$OUT/symbols/$b-few" 2>/dev/null || true
    fi
done

for h in reader scan again objtrack diag archive profile ctf ctfread symbols; do
    echo "corpus $h: $(ls "$OUT/$h" | wc -l) files, $(du -sk "$OUT/$h" | cut -f1) KiB"
done
