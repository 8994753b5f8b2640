#!/usr/bin/env python3
"""Checks a `gcscope report` HTML file against `gcscope stats --format json`
of the same trace (tests/cli/report_cli.sh):

  check_report_html.py REPORT.html STATS.json

The HTML must parse (python's html.parser) with every non-void element
closed in order, hold one data block and five charts (<svg> with marks)
per runtime, no external URL, and the data blocks' numbers must equal the
JSON's: GC count, max/p50/p99 pause, histogram, and every GC's number and
pause (3 decimals). A server GC's per-heap chart draws, per heap (the
first 16), its sizes before each GC (dashed, class hb) and after it (solid,
class ha). Prints one line per problem; exit 1 on any."""
import json
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "input", "img", "link", "hr", "line", "rect", "circle", "polyline", "path"}


class Parser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.data, self.svgs = [], [], [], {}
        self.lines = {}  # svg id -> [(class, number of points)]
        self.in_data = None
        self.current_svg = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k, v in attrs:
            if v and ("http://" in v or "https://" in v):
                self.errors.append(f"external reference {k}={v}")
        if tag == "script" and a.get("type") == "application/json":
            self.in_data = []
        if tag == "svg":
            self.current_svg = a.get("id")
            self.svgs[self.current_svg] = 0
            self.lines[self.current_svg] = []
        elif self.current_svg and tag in ("rect", "polyline", "circle"):
            self.svgs[self.current_svg] += 1
            if tag == "polyline":
                self.lines[self.current_svg].append((a.get("class"), len((a.get("points") or "").split())))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()
        if tag == "script" and self.in_data is not None:
            self.data.append(json.loads("".join(self.in_data)))
            self.in_data = None
        if tag == "svg":
            self.current_svg = None

    def handle_data(self, d):
        if self.in_data is not None:
            self.in_data.append(d)


def fmt3(v):
    return None if v is None else round(v, 3)


def main():
    html, stats = open(sys.argv[1], encoding="utf-8").read(), json.load(open(sys.argv[2]))
    p = Parser()
    p.feed(html)
    p.close()
    bad = list(p.errors)
    if p.stack:
        bad.append(f"unclosed: {p.stack}")
    procs = stats["processes"]
    if len(p.data) != len(procs):
        bad.append(f"{len(p.data)} data blocks, {len(procs)} processes in the JSON")
    for d, s in zip(p.data, procs):
        k, summ, pct = d["kpi"], s["summary"], s["percentiles"]
        pid = s["pid"]
        checks = [("gc_count", k["gc_count"], summ["gc_count"]),
                  ("max_pause_ms", k["max_pause_ms"], summ["max_pause_ms"]),
                  ("p50_pause_ms", k["p50_pause_ms"], pct["all"]["p50"]),
                  ("p99_pause_ms", k["p99_pause_ms"], pct["all"]["p99"]),
                  ("histogram", d["histogram"], [b["count"] for b in pct["histogram"]])]
        close = [("total_pause_ms", k["total_pause_ms"], summ["total_pause_ms"]),
                 ("gc_pct", k["gc_pct"], summ["pause_time_pct_of_trace"])]
        for name, got, want in close:
            if (got is None) != (want is None) or (got is not None and abs(got - want) > 1e-5):
                bad.append(f"pid {pid}: {name}: report {got}, stats {want}")
        for name, got, want in checks:
            if got != want:
                bad.append(f"pid {pid}: {name}: report {got}, stats {want}")
        g = d["gcs"]
        numbers, n = [], 0
        for delta in g["n"]:
            n += delta
            numbers.append(n)
        want_numbers = [x["number"] for x in s["gcs"]]
        if numbers != want_numbers:
            bad.append(f"pid {pid}: GC numbers differ")
        want_p = [fmt3(x["pause_ms"]) if x["is_complete"] else None for x in s["gcs"]]
        if [fmt3(x) for x in g["p"]] != want_p:
            diff = next(i for i, (a, b) in enumerate(zip(g["p"], want_p)) if fmt3(a) != b)
            bad.append(f"pid {pid}: pause of GC #{numbers[diff]}: report {g['p'][diff]}, stats {want_p[diff]}")
        charts = [sid for sid in p.svgs if sid.startswith(f"p")]
        kinds = ["timeline", "heap", "alloc", "hist", "mmu"] + (["heaps"] if d["heaps"] > 1 else [])
        if d["heaps"] != max(s["heap_count"], 1) and d["heaps"] < s["heap_count"]:
            bad.append(f"pid {pid}: heaps {d['heaps']}, stats heap_count {s['heap_count']}")
        for kind in kinds:
            ids = [c for c in charts if c.endswith("-" + kind)]
            if not ids:
                bad.append(f"pid {pid}: no {kind} chart")
            if kind == "heaps" and ids:
                lines = p.lines[ids[0]]
                want = min(d["heaps"], 16)
                for cls in ("hb", "ha"):
                    got = [n for c, n in lines if c == cls]
                    if len(got) != want or not all(got):
                        bad.append(f"pid {pid}: heaps chart: {len(got)} {cls} lines ({got}), want {want} drawn")
    for sid, marks in p.svgs.items():
        if marks == 0 and not sid.endswith("-alloc"):
            bad.append(f"chart {sid} draws nothing")
    for b in bad:
        print(f"{sys.argv[1]}: {b}")
    return 1 if bad else 0


sys.exit(main())
