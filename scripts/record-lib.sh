# record-lib.sh - sourced by scripts/record-fixtures.sh and
# scripts/check-runtimes.sh (bash): building the workloads and running them
# under the runtime's own EventPipe file output. The caller sets ROOT (the
# repository) and BUILD (where workloads are built).

RT=Microsoft-Windows-DotNETRuntime
PRIV=Microsoft-Windows-DotNETRuntimePrivate
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

# The GC settings a recording names itself: none inherited from the caller
# (.NET Core 3.1 reads the COMPlus_ spelling only).
GC_SETTINGS_UNSET="-u DOTNET_gcServer -u DOTNET_gcConcurrent -u DOTNET_GCHeapCount -u DOTNET_GCgen0size -u DOTNET_GCName"
GC_SETTINGS_UNSET_COMPLUS="-u COMPlus_gcServer -u COMPlus_gcConcurrent -u COMPlus_GCHeapCount -u COMPlus_GCgen0size"

# gcload on the SDK's runtime: sets GCLOAD (its .dll).
build_gcload() {
    dotnet build "$ROOT/tests/workloads/gcload/gcload.csproj" -c Release \
        --artifacts-path "$BUILD" -nologo -v q >/dev/null
    GCLOAD="$BUILD/bin/gcload/release/gcload.dll"
    test -f "$GCLOAD"
}

# gcload_on TFM: gcload built for an older runtime (net8.0, net9.0),
# self-contained from the runtime pack NuGet serves (the SDK runs .NET 10
# only); prints the path of its executable.
gcload_on() {
    local out="$BUILD/$1"
    dotnet build "$ROOT/tests/workloads/gcload/gcload.csproj" -c Release -p:GcloadTfm="$1" \
        --artifacts-path "$out" -nologo -v q >/dev/null
    echo "$out/bin/gcload/release_linux-x64/gcload"
}

# gcload_aot FLAVOUR [TFM]: gcload published as a NativeAOT executable
# (ILCompiler from NuGet, linked with the machine's clang) of the SDK's
# .NET, or of TFM (net8.0, net9.0), EventSource support on so that it has
# EventPipe. NativeAOT links one GC flavour at publish (DOTNET_gcServer
# does nothing to it): FLAVOUR wks or server. Prints the path of the
# executable; its symbols are beside it (gcload.dbg).
gcload_aot() {
    local tfm=${2:-} out="$BUILD/aot-$1${2:+-$2}" server=false
    [ "$1" = server ] && server=true
    dotnet publish "$ROOT/tests/workloads/gcload/gcload.csproj" -c Release -r linux-x64 \
        ${tfm:+-p:GcloadTfm=$tfm} \
        -p:PublishAot=true -p:EventSourceSupport=true -p:ServerGarbageCollection=$server \
        --artifacts-path "$out" -o "$out/exe" -nologo -v q >/dev/null
    echo "$out/exe/gcload"
}

# The legacy workload (gcload's scenarios for .NET Core 3.1) on the 3.1.3
# runtime pack: prints the path of its executable.
legacy_exe() {
    dotnet build "$ROOT/tests/workloads/legacy/legacy.csproj" -c Release \
        --artifacts-path "$BUILD/legacy" -nologo -v q >/dev/null
    echo "$BUILD/legacy/bin/legacy/release_linux-x64/legacy"
}

# run_gcload TRACE OUT CONFIG "ENV=VAL ..." GCLOAD-ARGS...: gcload traced
# into TRACE, its stdout into OUT. On the SDK's runtime, or GCLOAD_EXE when
# set (gcload_on).
GCLOAD_EXE=
run_gcload() {
    local trace=$1 out=$2 config=$3 envs=$4
    shift 4
    local -a run=(dotnet "$GCLOAD")
    [ -n "$GCLOAD_EXE" ] && run=("$GCLOAD_EXE")
    rm -f "$trace"
    echo "recording $(basename "$trace"): ${run[*]} $* [$envs] config=$config" >&2
    # shellcheck disable=SC2086
    env $GC_SETTINGS_UNSET DOTNET_EnableEventPipe=1 \
        DOTNET_EventPipeOutputStreaming=1 \
        DOTNET_EventPipeCircularMB=256 \
        DOTNET_EventPipeOutputPath="$trace" \
        DOTNET_EventPipeConfig="$config" \
        $envs \
        "${run[@]}" "$@" > "$out"
}

# run_legacy TRACE OUT CONFIG "ENV=VAL ..." LEGACY-ARGS...: the legacy
# workload traced into TRACE. 3.1 reads COMPlus_ settings only, and
# crashes when COMPlus_EventPipeOutputPath is set
# (FastSerializer::WriteBuffer): it writes legacy.PID.nettrace into its
# working directory, a folder of its own here.
run_legacy() {
    local trace=$1 out=$2 config=$3 envs=$4 exe dir
    shift 4
    exe=$(legacy_exe)
    dir="$trace.run"
    rm -rf "$dir" "$trace" && mkdir -p "$dir"
    echo "recording $(basename "$trace"): legacy $* [$envs] config=$config" >&2
    # shellcheck disable=SC2086
    (cd "$dir" && env $GC_SETTINGS_UNSET $GC_SETTINGS_UNSET_COMPLUS COMPlus_EnableEventPipe=1 \
        COMPlus_EventPipeOutputStreaming=1 \
        COMPlus_EventPipeCircularMB=256 \
        COMPlus_EventPipeConfig="$config" \
        $envs \
        "$exe" "$@") > "$out"
    mv "$dir"/legacy.*.nettrace "$trace"
    rm -rf "$dir"
}

# run_attached TRACE OUT SECONDS "ENV=VAL ..." COMMAND...: starts COMMAND
# without EventPipe, attaches after 2 s through the diagnostic port
# (`gcscope record PID --rundown`) for SECONDS, as a user tracing a running
# service would.
run_attached() {
    local trace=$1 out=$2 seconds=$3 envs=$4 pid
    shift 4
    rm -f "$trace"
    make -C "$ROOT" -s build/gcscope
    echo "recording $(basename "$trace") by attaching: $* [$envs] for $seconds s" >&2
    # shellcheck disable=SC2086
    env -u DOTNET_EnableEventPipe -u COMPlus_EnableEventPipe $GC_SETTINGS_UNSET \
        $GC_SETTINGS_UNSET_COMPLUS $envs "$@" > "$out" &
    pid=$!
    sleep 2
    "$ROOT/build/gcscope" record "$pid" -o "$trace" --duration "$seconds" --rundown >&2
    wait "$pid"
}
