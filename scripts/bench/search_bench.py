#!/usr/bin/env python3
"""Search on a built site: what a query downloads and how soon it shows results.

Serves the site with `bbsarchive serve`, then loads search.html?q=Q in
headless Chromium with the cache off, once per query, and reads from the
page's resource timing what it fetched (the client and the index files; not
the result pages) and when #results turned aria-busy="false". Queries are
random fragments of the indexed posts (1-4 Chinese characters, Latin/digit
fragments, their full-width forms, two terms), drawn from search/d/*.js.
Also reports the index's size beside the site's HTML. Prints JSON.

    scripts/bench/search_bench.py --site site --bin .build/release/bbsarchive --queries 40
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import importlib.util

spec = importlib.util.spec_from_file_location(
    "browser_check", Path(__file__).resolve().parent.parent / "browser-check.py")
browser_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(browser_check)


def texts(site):
    out = []
    for path in (site / "search" / "d").glob("*.js"):
        body = path.read_text(encoding="utf-8")
        payload = body[body.index(",") + 1: body.rindex(");")]
        out += [row[7] for row in json.loads(payload)]
    return out


def fragment(rng, corpus, length, pattern):
    for _ in range(2000):
        text = rng.choice(corpus).lower()
        if len(text) < length:
            continue
        start = rng.randrange(len(text) - length + 1)
        piece = text[start:start + length]
        if re.fullmatch(pattern, piece):
            return piece
    return None


def queries(corpus, count, seed):
    rng = random.Random(seed)
    out = []
    for i in range(count):
        for kind, q in (
            ("chinese", fragment(rng, corpus, i % 4 + 1, r"[\u4e00-\u9fff]+")),
            ("latin", fragment(rng, corpus, 2 + rng.randrange(5), r"[a-z0-9]+")),
            ("two terms", " ".join(filter(None, [fragment(rng, corpus, 2, r"[\u4e00-\u9fff]+"),
                                                 fragment(rng, corpus, 3, r"[\u4e00-\u9fff]+")]))),
        ):
            if q:
                out.append((kind, q))
                if kind == "latin":
                    out.append(("full-width", "".join(chr(ord(c) + 0xFEE0) for c in q.upper())))
    return out


MEASURE = """new Promise(resolve => {
  const tick = () => {
    const results = document.getElementById('results');
    if (results && results.getAttribute('aria-busy') === 'false' && results.dataset.query) {
      const entries = performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'));
      const index = entries.filter(e => /\\/search\\/|search\\.js/.test(e.name));
      resolve(JSON.stringify({ms: performance.now(), total: Number(results.dataset.total),
        bytes: index.reduce((s, e) => s + (e.encodedBodySize || 0), 0), files: index.length}));
    } else setTimeout(tick, 2);
  };
  tick();
})"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", required=True)
    parser.add_argument("--bin", default=".build/release/bbsarchive")
    parser.add_argument("--queries", type=int, default=40, help="queries of each kind")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    args = parser.parse_args()
    site = Path(args.site).resolve()

    html = sum(p.stat().st_size for p in site.rglob("*.html"))
    index = sum(p.stat().st_size for p in (site / "search").rglob("*") if p.is_file())
    corpus = texts(site)
    chosen = queries(corpus, args.queries, args.seed)

    server = subprocess.Popen([args.bin, "serve", "--out", str(site), "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        base = server.stdout.readline().strip()
        browser = browser_check.Chromium(args.chromium, 60)
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            browser.send(domain + ".enable", {}, session)
        browser.send("Network.setCacheDisabled", {"cacheDisabled": True}, session)
        rows = []
        for kind, q in chosen:
            url = base + "search.html?q=" + urllib.parse.quote(q)
            browser.events = []
            browser.send("Page.navigate", {"url": url}, session)
            browser.wait_for("Page.loadEventFired", session)
            value = browser_check.evaluate(browser, session, MEASURE).get("value")
            result = json.loads(value)
            result.update({"kind": kind, "q": q})
            rows.append(result)
        browser.close()
    finally:
        server.terminate()
        server.wait()

    kb = [r["bytes"] / 1024 for r in rows]
    ms = [r["ms"] for r in rows]
    report = {
        "posts": len(corpus), "queries": len(rows), "html_bytes": html, "index_bytes": index,
        "index_share_of_html": round(index / html, 3) if html else None,
        "download_kb": {"median": round(statistics.median(kb), 1), "max": round(max(kb), 1)},
        "first_results_ms": {"median": round(statistics.median(ms), 1), "max": round(max(ms), 1)},
        "by_kind": {k: {"median_kb": round(statistics.median([r["bytes"] / 1024 for r in rows if r["kind"] == k]), 1),
                        "median_ms": round(statistics.median([r["ms"] for r in rows if r["kind"] == k]), 1)}
                    for k in sorted({r["kind"] for r in rows})},
    }
    print(json.dumps(report, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
