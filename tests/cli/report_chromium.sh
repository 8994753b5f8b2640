#!/bin/sh
# The HTML report in a real browser (headless Chromium): it renders, the
# script runs (the per-GC table is drawn), every chart has a non-zero size
# and the screenshot is not blank. Chromium is Debian's `chromium`,
# installed here with apt-get where absent; without it (no root, no
# network) the test says "skipped: why".
#   SCREENSHOTS=DIR keeps the screenshots (docs/img/ is made that way:
#   SCREENSHOTS=docs/img sh tests/cli/report_chromium.sh).
set -u
G=${GCSCOPE:-build/asan/gcscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "report_chromium: files in $tmp"
bad=0
fail() { echo "report_chromium: $*"; bad=1; }

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ] && [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium > "$tmp/apt.log" 2>&1 ||
        { apt-get update > /dev/null 2>&1 &&
          DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium > "$tmp/apt.log" 2>&1; }
    CHROME=$(command -v chromium || true)
fi
if [ -z "$CHROME" ]; then
    echo "skipped: report_chromium: no chromium and it could not be installed (apt-get as root)"
    exit 0
fi
if ! command -v python3 > /dev/null 2>&1; then
    echo "skipped: report_chromium: no python3 to read the results"
    exit 0
fi
chrome() { timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
               --user-data-dir="$tmp/profile" --virtual-time-budget=3000 "$@" 2> /dev/null; }

for t in wks-concurrent server; do
    "$G" report "tests/data/$t.nettrace" -o "$tmp/$t.html" || { fail "report $t: exit $?"; continue; }
    # The same page plus a probe that writes each chart's size and the
    # per-GC table's row count into the DOM, read back with --dump-dom.
    { cat "$tmp/$t.html"; printf '%s\n' '<script>window.addEventListener("load",function(){var o=[];' \
        'document.querySelectorAll("svg.plot").forEach(function(s){var r=s.getBoundingClientRect();o.push(s.id+" "+Math.round(r.width)+" "+Math.round(r.height))});' \
        'document.querySelectorAll(".gctable").forEach(function(d){o.push(d.id+" rows "+d.querySelectorAll("tr").length)});' \
        'var box=document.querySelector(".gctable"),th=function(){return box.querySelector("th[data-k=\"4\"]")};th().click();th().click();' \
        'o.push("top pause "+box.querySelectorAll("tr")[1].children[4].textContent);' \
        'var m=document.querySelector("svg rect[data-i]");m.dispatchEvent(new MouseEvent("mousemove",{bubbles:true,clientX:10,clientY:10}));' \
        'o.push("tip "+document.getElementById("tip").style.display+" "+document.getElementById("tip").textContent.slice(0,12));' \
        'var p=document.createElement("pre");p.id="probe";p.textContent=o.join("\n");document.body.appendChild(p)});</script>'; } > "$tmp/$t.probe.html"
    chrome --dump-dom "file://$tmp/$t.probe.html" > "$tmp/$t.dom"
    sed -n '/<pre id="probe">/,/<\/pre>/p' "$tmp/$t.dom" | sed 's/<[^>]*>//g' > "$tmp/$t.sizes"
    [ "$(grep -c ' [1-9][0-9]* [1-9][0-9]*$' "$tmp/$t.sizes")" -ge 5 ] ||
        fail "$t: charts without a size: $(cat "$tmp/$t.sizes")"
    grep -Eq ' 0 |  *0$' "$tmp/$t.sizes" && grep -v rows "$tmp/$t.sizes" | grep -Eq ' 0( |$)' && fail "$t: a chart of size 0: $(cat "$tmp/$t.sizes")"
    grep -Eq 'gcs rows (10[01]|[2-9][0-9])$' "$tmp/$t.sizes" || fail "$t: the per-GC table was not drawn: $(grep rows "$tmp/$t.sizes")"
    # Sorted by pause, longest first (two clicks), the first row is the max pause of stats.
    max=$("$G" stats --format json "tests/data/$t.nettrace" | python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["processes"][0]["summary"]["max_pause_ms"])')
    grep -qx "top pause $max" "$tmp/$t.sizes" || fail "$t: sorting by pause: $(grep 'top pause' "$tmp/$t.sizes"), want $max"
    grep -q '^tip block GC#:' "$tmp/$t.sizes" || fail "$t: hovering a timeline mark shows no row: $(grep '^tip' "$tmp/$t.sizes")"
    chrome --window-size=1000,2200 --screenshot="$tmp/$t.png" "file://$tmp/$t.html" > /dev/null
    python3 - "$tmp/$t.png" << 'PY' || fail "$t: blank screenshot"
import sys, zlib, struct
b = open(sys.argv[1], 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n'
i, idat = 8, b''
while i < len(b):
    n, kind = struct.unpack('>I4s', b[i:i + 8]); i += 8
    if kind == b'IDAT': idat += b[i:i + n]
    i += n + 4
raw = zlib.decompress(idat)
# A blank page filters to a handful of byte values; a report with text and charts to hundreds.
sys.exit(0 if len(set(raw)) > 64 else 1)
PY
    [ -n "${SCREENSHOTS:-}" ] && cp "$tmp/$t.png" "$SCREENSHOTS/report-$t.png"
done
# The per-GC table as drawn: each GC's heap count (net9-server-datas: DATAS
# changes it) and compaction, as `stats --format csv` gives them.
for t in net9-server-datas net8-server; do
    "$G" report "tests/data/$t.nettrace" -o "$tmp/$t.html" || { fail "report $t: exit $?"; continue; }
    { cat "$tmp/$t.html"; printf '%s\n' '<script>window.addEventListener("load",function(){var o=[];' \
        'document.querySelectorAll(".gctable tr").forEach(function(r){var c=r.children;' \
        'if(c[0].tagName=="TD")o.push(c[0].textContent+" "+c[c.length-2].textContent+" "+c[c.length-1].textContent)});' \
        'var p=document.createElement("pre");p.id="probe";p.textContent=o.join("\n");document.body.appendChild(p)});</script>'; } > "$tmp/$t.probe.html"
    chrome --dump-dom "file://$tmp/$t.probe.html" > "$tmp/$t.dom"
    sed -n '/<pre id="probe">/,/<\/pre>/p' "$tmp/$t.dom" | sed 's/<[^>]*>//g' | grep . > "$tmp/$t.rows"
    "$G" stats --format csv "tests/data/$t.nettrace" | awk -F, -v constant="$([ $t = net8-server ] && echo 2)" '
        NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        { c = $h["compacting"]; k = c == "" ? "-" : c == "false" ? "swept" : $h["compact_reason"]
          hp = constant != "" ? constant : $h["heaps"] == "" ? "-" : $h["heaps"]
          print $h["number"] " " hp " " k }' > "$tmp/$t.want"
    cmp -s "$tmp/$t.rows" "$tmp/$t.want" ||
        fail "$t: the drawn table's heaps/compaction differ from stats: $(diff "$tmp/$t.want" "$tmp/$t.rows" | head -4 | tr '\n' ' ')"
done
[ $bad = 0 ] && echo "report_chromium: ok"
exit $bad
