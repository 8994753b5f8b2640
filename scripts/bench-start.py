#!/usr/bin/env python3
"""Start-up cost: best of N runs of each command, in milliseconds.

    python3 scripts/bench-start.py [--runs N] [--against OLD_GCSCOPE] [GCSCOPE] [TRACE...]

For `/bin/true`, `gcscope --version`, and for each trace `cat`,
`gcscope info` and `gcscope stats` (and the same with OLD_GCSCOPE when
given, run in turn with the new one so that both see the same machine).
Defaults: build/gcscope, 200 runs, the shared 10 MB netperf trace and
tests/data/server.nettrace. docs/performance.md, "a start that loads
nothing it does not need", has its figures.
"""
import argparse
import os
import subprocess
import time

SHARED = "../shared/traces/perfview/eventpipe-dotnetcore2.1-linux-x64-objver3.netperf"


def best_ms(cmd, runs):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        best = min(best, time.perf_counter() - start)
    return best * 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--against", help="another gcscope binary to compare with")
    ap.add_argument("gcscope", nargs="?", default="build/gcscope")
    ap.add_argument("traces", nargs="*")
    a = ap.parse_args()
    traces = a.traces or [t for t in (SHARED, "tests/data/server.nettrace") if os.path.exists(t)]
    binaries = [a.gcscope] + ([a.against] if a.against else [])
    rows = [("/bin/true", ["/bin/true"])]
    for b in binaries:
        rows.append((f"{b} --version", [b, "--version"]))
    for t in traces:
        rows.append((f"cat {os.path.basename(t)}", ["cat", t]))
        for b in binaries:
            for c in ("info", "stats"):
                rows.append((f"{b} {c} {os.path.basename(t)}", [b, c, t]))
    for name, cmd in rows:
        print(f"{best_ms(cmd, a.runs):8.2f} ms  {name}")


if __name__ == "__main__":
    main()
