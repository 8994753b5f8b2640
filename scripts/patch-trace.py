#!/usr/bin/env python3
"""Writes a copy of a nettrace with chosen GC payload fields overwritten, to
make fixtures of what runtimes we cannot run here write (docs/fixtures.md).

  scripts/patch-trace.py [--gcscope BIN] [--startup-flags-none]
                         [--garbage-finalization N] IN OUT

--startup-flags-none      StartupFlags = 0 (None) in every Runtime/Start
                          (RuntimeInformation, runtime or rundown provider),
                          as older runtimes write it in the rundown of a
                          trace attached after startup.
--garbage-finalization N  FinalizationPromotedSize = 0xbaadbaadbaadbaad in the
                          N-th GC/HeapStats (1-based), the garbage a runtime
                          once wrote there.

Events are found through `gcscope events --format json` (their decoded
fields give the payload's leading bytes), then located in the file by
those bytes, which must occur exactly once per event: EventPipe payloads
are stored uncompressed and unchecksummed, so an overwrite in place keeps
the file valid. The script fails rather than patch an ambiguous place.
"""
import argparse
import json
import struct
import subprocess
import sys

# RuntimeInformation: ClrInstanceID, Sku, BclMajor..Qfe, VMMajor..Qfe (u16
# each), then StartupFlags (u32). Names gcscope prints for Sku and flags.
SKU = {"None": 0, "DesktopClr": 1, "CoreClr": 2, "Mono": 4}
STARTUP_FLAG_BITS = {"CONCURRENT_GC": 0x1, "SERVER_GC": 0x1000, "None": 0}
GARBAGE = 0xBAADBAADBAADBAAD


def events(gcscope, path):
    out = subprocess.run([gcscope, "events", path, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        line = line.strip().rstrip(",")
        if line.startswith("{\"msec\""):
            yield json.loads(line)


def num(v):
    return int(v, 0) if isinstance(v, str) else int(v)


def flags_value(text):
    value = 0
    for name in text.split(","):
        name = name.strip()
        if name not in STARTUP_FLAG_BITS:
            sys.exit(f"patch-trace: StartupFlags {text!r}: {name} not known to this script")
        value |= STARTUP_FLAG_BITS[name]
    return value


def find_once(data, pattern, what):
    at = data.find(pattern)
    if at < 0 or data.find(pattern, at + 1) >= 0:
        sys.exit(f"patch-trace: {what}: its payload bytes occur {'0' if at < 0 else 'several'} times")
    return at


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gcscope", default="build/gcscope")
    ap.add_argument("--startup-flags-none", action="store_true")
    ap.add_argument("--garbage-finalization", type=int, metavar="N")
    ap.add_argument("input")
    ap.add_argument("output")
    a = ap.parse_args()
    data = bytearray(open(a.input, "rb").read())
    heap_stats_seen = 0
    patched = 0
    for ev in events(a.gcscope, a.input):
        f = ev.get("fields", {})
        if a.startup_flags_none and ev["event"] == "Runtime/Start":
            head = struct.pack("<10H", num(f["ClrInstanceID"]), SKU[f["Sku"]],
                               num(f["BclMajorVersion"]), num(f["BclMinorVersion"]),
                               num(f["BclBuildNumber"]), num(f["BclQfeNumber"]),
                               num(f["VMMajorVersion"]), num(f["VMMinorVersion"]),
                               num(f["VMBuildNumber"]), num(f["VMQfeNumber"]))
            flags = struct.pack("<I", flags_value(f["StartupFlags"]))
            at = find_once(data, head + flags, f"{ev['provider']}/Runtime/Start")
            data[at + len(head):at + len(head) + 4] = struct.pack("<I", 0)
            patched += 1
            print(f"patch-trace: {ev['provider']}/Runtime/Start at {ev['msec']} ms: "
                  f"StartupFlags {f['StartupFlags']} -> None", file=sys.stderr)
        if ev["event"] == "GC/HeapStats":
            heap_stats_seen += 1
            if heap_stats_seen != a.garbage_finalization:
                continue
            keys = ["GenerationSize0", "TotalPromotedSize0", "GenerationSize1", "TotalPromotedSize1",
                    "GenerationSize2", "TotalPromotedSize2", "GenerationSize3", "TotalPromotedSize3",
                    "FinalizationPromotedSize"]
            head = struct.pack("<9Q", *(num(f[k]) for k in keys))
            at = find_once(data, head, f"GC/HeapStats #{heap_stats_seen}")
            data[at + 64:at + 72] = struct.pack("<Q", GARBAGE)
            patched += 1
            print(f"patch-trace: GC/HeapStats #{heap_stats_seen} at {ev['msec']} ms: "
                  f"FinalizationPromotedSize {f['FinalizationPromotedSize']} -> {GARBAGE:#x}",
                  file=sys.stderr)
    wanted = int(a.startup_flags_none) + int(a.garbage_finalization is not None)
    if patched < wanted:
        sys.exit("patch-trace: an event to patch was not found")
    open(a.output, "wb").write(data)


if __name__ == "__main__":
    main()
