#!/usr/bin/env bash
# make screenshots: photograph a built site's home page, its first board and
# its longest thread at 390, 820 and 1440 pixels, light and dark.
#   scripts/screenshots.sh SITE OUT
set -euo pipefail
cd "$(dirname "$0")/.."
site=${1:-site}
out=${2:-screenshots}
[ -f "$site/index.html" ] || { echo "screenshots: no $site/index.html; run make demo first" >&2; exit 1; }
board=$(cd "$site" && ls -d board/*/ | head -n 1)
board=${board%/}
# The biggest first page of a thread is the one with the most (and longest) posts.
thread=$(cd "$site" && ls -S board/*/[0-9]*.html | grep -E '/[0-9]+\.html$' | head -n 1)
rm -rf "$out"
mkdir -p "$out"
python3 scripts/browser-check.py --site "$site" --screenshots "$out" --max-shot-height 3000 \
  --page index.html --page "$board/index.html" --page "$thread" >"$out/report.json"
python3 - "$out/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
if report.get("fatal"):
    sys.exit("screenshots: " + report["fatal"])
bad = 0
for load in report["loads"]:
    flag = "ok" if not load["problems"] and load.get("overflow", 0) <= 0 else "PROBLEM"
    bad += flag != "ok"
    print("%-8s %-40s %5s %-5s %s %s" % (flag, load["page"], load.get("width"), load.get("scheme"),
                                        load.get("screenshot", ""), "; ".join(load["problems"])))
sys.exit(1 if bad else 0)
PY
echo "screenshots: written to $out/"
