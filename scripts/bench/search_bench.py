#!/usr/bin/env python3
"""Search on a built site, bbsarchive's index beside Pagefind's.

For the same seeded queries (Chinese substrings of 1-4 characters, Latin and
digit fragments, their full-width forms, several terms and phrases, filters)
it reports per engine:

- recall and precision against a grep ground truth: every post's searchable
  text from the store (`bbsarchive-bench search-docs`), searched with Python's
  `in`. bbsarchive is judged by post (`BBSSearch.all(q)` in the page: every
  document the client matches, mapped to its floor link); Pagefind by thread
  page (its unit; a page matches when one of its posts does), with each term
  searched as an exact phrase, and no filters (the site has no Pagefind
  filter markup); it runs without its web worker (`noWorker`), so that its
  fetches show in the page's resource timing.
- what a query downloads with a cold cache (the client and index files the
  page fetched, and the entries of the results it shows: for bbsarchive the
  search/ files and search.js; for Pagefind everything under pagefind/,
  fragments of the first 20 results included), median and max;
- the time to first results after the page loads on loopback, in headless
  Chromium over `bbsarchive serve`, with where bbsarchive's goes (the
  client's performance marks: shards loaded, evaluated, shown);
- what indexing adds to a full build (the target's figure): full builds
  with the index and without it (`bbsarchive-bench build --index yes|no`,
  alternated, BENCH_RUNS of each, 2 by default), the medians' difference in
  wall time over the build without it, and the same in user+system CPU
  seconds; and, kept beside it, the index written alone
  (`bbsarchive-bench search-index`) as a share of the full build, with its
  peak RSS beside the build's;
- index size as a share of the site's HTML bytes;
- and bbsarchive's figures again (all but Pagefind's) on a copy of the store
  whose Chinese is drawn from a real vocabulary (`measure_real_vocabulary`,
  which bench.py runs after `measure`): the replica's posts use a few hundred
  characters, real ones thousands.

Pagefind (PyPI: pagefind-bin-extended, Chinese segmentation) is installed
with pip when missing. Prints JSON; `make bench` (scripts/bench/bench.py)
calls `measure` and keeps the result in benchmarks/SCALE.json.

    scripts/bench/search_bench.py --site site --store archive.sqlite --queries 40
"""
import argparse
import gzip
import importlib.util
import itertools
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
import urllib.parse
from contextlib import closing
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

spec = importlib.util.spec_from_file_location("browser_check", HERE.parent / "browser-check.py")
browser_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(browser_check)

PAGEFIND = [sys.executable, "-m", "pagefind_bin_extended"]
KINDS = ["chinese", "latin", "full-width", "multi", "filter"]


def log(message):
    print(f"search bench: {message}", file=sys.stderr, flush=True)


def timed(args):
    """Wall seconds and peak RSS (KB) of a command, under /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time", delete=False) as t:
        time_file = t.name
    start = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-o", time_file, "-f", "%M %U %S"] + [str(a) for a in args],
                          capture_output=True, text=True)
    wall = time.monotonic() - start
    try:
        rss, user, system = Path(time_file).read_text().strip().splitlines()[-1].split()
        rss, user, system = int(rss), float(user), float(system)
    except (OSError, IndexError, ValueError):
        rss = user = system = None
    os.unlink(time_file)
    if proc.returncode != 0:
        raise RuntimeError(f"{args[0]} {args[1]} failed ({proc.returncode}): {proc.stderr.strip()[-800:]}")
    return {"wall": round(wall, 3), "maxrss_kb": rss, "user": user, "sys": system, "stdout": proc.stdout}


def index_added(store, bench, work, runs=2, discard=None):
    """What indexing adds to a full build (the target's figure): full builds
    of the store into new folders with the index and without it
    (`bbsarchive-bench build --index yes|no`, the same code as `bbsarchive
    build`), alternated, `runs` of each; the medians' difference over the
    build without it. Wall seconds, and user and system CPU seconds (steadier
    on a busy machine). `discard(folder)` puts a timed build out of the way:
    bench.py moves it aside and deletes it when the bench ends, because a
    build timed right after a big delete is slowed by ext4 (bench.py's
    rmtree); alone, the folders are deleted after the last run."""
    times = {"yes": [], "no": []}
    outs = []
    for run in range(runs):
        for index in ("no", "yes"):
            out = work / f"build-index-{index}-{run}"
            shutil.rmtree(out, ignore_errors=True)
            t = timed([bench, "build", "--store", store, "--out", out, "--templates", ROOT / "templates",
                       "--index", index])
            times[index].append(t)
            if discard:
                discard(out)
            else:
                outs.append(out)
    for out in outs:
        shutil.rmtree(out, ignore_errors=True)

    def summary(ts):
        return {"wall": round(statistics.median(t["wall"] for t in ts), 3),
                "walls": [t["wall"] for t in ts],
                "user": round(statistics.median(t["user"] or 0 for t in ts), 2),
                "sys": round(statistics.median(t["sys"] or 0 for t in ts), 2),
                "maxrss_kb": max(t["maxrss_kb"] or 0 for t in ts)}

    with_index, without = summary(times["yes"]), summary(times["no"])
    added = with_index["wall"] - without["wall"]
    cpu = lambda s: s["user"] + s["sys"]  # noqa: E731
    return {"added_seconds": round(added, 3), "added_share": round(added / without["wall"], 4),
            "added_cpu_seconds": round(cpu(with_index) - cpu(without), 2),
            "added_cpu_share": round((cpu(with_index) - cpu(without)) / cpu(without), 4) if cpu(without) else None,
            "with_index": with_index, "without_index": without, "runs": runs}


def pip_install(package):
    """Installs a PyPI package for this Python (where the system's pip asks
    for it, past its externally-managed marker); RuntimeError when it cannot."""
    for extra in ([], ["--break-system-packages"]):
        if subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package] + extra,
                          capture_output=True).returncode == 0:
            importlib.invalidate_caches()
            return
    raise RuntimeError(f"cannot install {package} with pip")


def ensure_pagefind():
    if subprocess.run(PAGEFIND + ["--version"], capture_output=True).returncode == 0:
        return
    log("installing Pagefind (pip: pagefind-bin-extended)")
    pip_install("pagefind-bin-extended")


# MARK: - A real vocabulary

# The replica's generator draws its Chinese from a few hundred characters: the
# 100k tier's post bodies use 234 of them and 406 pairs of adjacent ones, where
# Chinese text uses thousands and hundreds of thousands (the copy below: 8,413
# and 806,554). An index's size, its number of files and its cost follow the
# number of distinct terms, so the same
# measures are taken again on a copy of the store whose Chinese is drawn from
# a real word-frequency list: jieba's dictionary (PyPI `jieba`, installed
# with pip when missing, like Pagefind; nothing of it is kept in the project).


def ensure_jieba_words():
    """The path of jieba's dict.txt (word, frequency, part of speech a line)."""
    def path():
        spec = importlib.util.find_spec("jieba")
        return Path(spec.origin).parent / "dict.txt" if spec and spec.origin else None
    found = path()
    if not (found and found.exists()):
        log("installing jieba (pip), for its word frequencies")
        pip_install("jieba")
        found = path()
    if not (found and found.exists()):
        raise RuntimeError("jieba is installed but its dict.txt is not beside it")
    return found


CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


def vocabulary(texts):
    """Distinct CJK characters and distinct pairs of adjacent CJK characters."""
    chars, pairs = set(), set()
    for text in texts:
        for run in CJK_RUN.findall(text):
            chars.update(run)
            pairs.update(run[k:k + 2] for k in range(len(run) - 1))
    return len(chars), len(pairs)


def real_vocabulary_store(store, work, seed=1):
    """A copy of `store` whose posts' runs of Chinese characters are drawn
    again, word after word, from jieba's words by their frequencies (each
    run keeps its length). Quote lines (【 …, : …), origin lines (※ …) and
    signatures (after --) are left as they are, so that the searchable text
    keeps its shape. The copy's triggers go first: nothing here reads the
    store's change log. Returns the copy and the vocabulary before and after."""
    words, weights = [], []
    for line in ensure_jieba_words().read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2 and CJK_RUN.fullmatch(parts[0]) and parts[1].isdigit():
            words.append(parts[0])
            weights.append(int(parts[1]))
    rng = random.Random(seed)
    cumulative = list(itertools.accumulate(weights))
    # Drawn a batch at a time, never reused: the 100k tier's posts take
    # about 1.7 million words.
    pool, at = [], 0

    def draw(length):
        nonlocal pool, at
        out, size = [], 0
        while size < length:
            if at == len(pool):
                pool, at = rng.choices(words, cum_weights=cumulative, k=1 << 16), 0
            out.append(pool[at])
            size += len(pool[at])
            at += 1
        return "".join(out)[:length]

    def redraw(body):
        lines, signature = [], False
        for line in body.split("\n"):
            if line.strip() == "--":
                signature = True
            if signature or line.startswith(("【", ":", "：", "※")):
                lines.append(line)
            else:
                lines.append(CJK_RUN.sub(lambda m: draw(len(m.group(0))), line))
        return "\n".join(lines)

    copy = Path(work) / "real-vocabulary.sqlite"
    remove_store(copy)
    try:
        with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as source, \
                closing(sqlite3.connect(copy)) as target:
            source.backup(target)
            for (name,) in target.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
                target.execute(f'DROP TRIGGER "{name}"')
            rows = target.execute("SELECT rowid, body FROM post").fetchall()
            before = vocabulary(body or "" for _, body in rows)
            redrawn = [(redraw(body or ""), rowid) for rowid, body in rows]
            after = vocabulary(body for body, _ in redrawn)
            target.executemany("UPDATE post SET body = ? WHERE rowid = ?", redrawn)
            target.commit()
    except sqlite3.Error as e:
        remove_store(copy)
        raise RuntimeError(f"cannot make the real-vocabulary copy of {store} at {copy}: {e}")
    return copy, {"replica": {"characters": before[0], "pairs": before[1]},
                  "real": {"characters": after[0], "pairs": after[1]}, "words": len(words), "seed": seed}


def measure_real_vocabulary(store, bbsarchive, bench, work, per_kind=40, seed=9, chromium="chromium",
                            discard=None):
    """bbsarchive's search measures (`ours_only`) and what indexing adds to a
    full build (`index_added`), on the real-vocabulary copy of `store`."""
    work = Path(work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    copy, words = real_vocabulary_store(store, work)
    log(f"real vocabulary: {words['real']['characters']} characters and {words['real']['pairs']} pairs in the "
        f"posts (the replica's: {words['replica']['characters']} and {words['replica']['pairs']})")
    site = work / "real-vocabulary-site"
    shutil.rmtree(site, ignore_errors=True)
    timed([bbsarchive, "build", "--store", copy, "--out", site, "--templates", ROOT / "templates", "--quiet"])
    result = ours_only({"site": str(site)}, site, copy, bbsarchive, bench, per_kind, seed, chromium)
    index = result["engines"]["bbsarchive"]["index"]
    index["share_of_html"] = round(index["bytes"] / result["html_bytes"], 4)
    index.update(index_added(copy, bench, work, runs=int(os.environ.get("BENCH_RUNS") or 2), discard=discard))
    log(f"real vocabulary: indexing adds {index['added_seconds']:.2f} s to a {index['without_index']['wall']:.2f} s "
        f"build ({index['added_share'] * 100:.1f} %); index {index['share_of_html'] * 100:.1f} % of the HTML")
    result["vocabulary"] = words
    if discard:
        discard(site)
    else:
        shutil.rmtree(site, ignore_errors=True)
    remove_store(copy)
    return result


def remove_store(path):
    """Deletes an SQLite store and its WAL and shared-memory files."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


# MARK: - Ground truth


def normalize(text):
    # The final sigma folded, as SearchText.normalize and search.js do.
    return unicodedata.normalize("NFKC", text).lower().replace("\u03c2", "\u03c3")


FILTERS = ("board", "author", "after", "before")

# JavaScript's \s, where the client splits a query (SearchText.isQuerySpace):
# not Python's isspace (U+FEFF is a space here; U+0085 and U+001C-U+001F are not).
JS_SPACE = re.compile(r"[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def is_query_space(ch):
    return JS_SPACE.fullmatch(ch) is not None


def filter_key(text):
    """The filter a token names (after NFKC and case folding), or None."""
    folded = normalize(text)
    key, colon, _ = folded.partition(":")
    return key if colon and key in FILTERS else None


def day(text):
    """YYYY-M-D of a day that exists, as the number YYYYMMDD; None otherwise."""
    m = re.fullmatch(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})", text)
    if not m:
        return None
    year, month, date = (int(g) for g in m.groups())
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= month <= 12 or not 1 <= date <= [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]:
        return None
    return year * 10000 + month * 100 + date


def parse(query):
    """Terms (normalized), their raw spelling, and filters, as assets/search.js reads a query."""
    tokens, current, quoted, value_quoted = [], "", False, False
    for ch in query:
        if ch == '"':
            if quoted:
                tokens.append((current, not value_quoted))
                current, value_quoted = "", False
            elif current and filter_key(current) and normalize(current).endswith(":"):
                value_quoted = True
            elif current:
                tokens.append((current, False))
                current = ""
            quoted = not quoted
        elif not quoted and is_query_space(ch):
            if current:
                tokens.append((current, False))
            current = ""
        else:
            current += ch
    if current:
        tokens.append((current, quoted and not value_quoted))
    out = {"terms": [], "raw": [], "problems": [], "contradictory": False}
    for text, was_quoted in tokens:
        key = None if was_quoted else filter_key(text)
        if key:
            value = normalize(text).split(":", 1)[1]
            if not value:
                continue
            if key in ("board", "author"):
                if key in out and out[key] != value:
                    out["contradictory"] = True
                out[key] = value
                continue
            number = day(value)
            if number is None:
                out["problems"].append(text)
            elif key == "after":
                out[key] = max(out.get(key, number), number)
            else:
                out[key] = min(out.get(key, number), number)
            continue
        term = normalize(text)
        if term and not all(is_query_space(ch) for ch in term):
            out["terms"].append(term)
            out["raw"].append(text)
    return out


def truth(query, docs):
    q = parse(query)
    hits = set()
    if q["problems"] or q["contradictory"]:
        return hits
    for d in docs:
        if "board" in q and d["board"] != q["board"]:
            continue
        if "author" in q and d["author"] != q["author"]:
            continue
        if "after" in q and d["day"] < q["after"]:
            continue
        if "before" in q and d["day"] > q["before"]:
            continue
        if all(t in d["text"] for t in q["terms"]):
            hits.add(d["href"])
    return hits


def queries(docs, per_kind, seed):
    """per_kind seeded queries of each kind, drawn from the posts' own text."""
    rng = random.Random(seed)
    days = sorted(d["day"] for d in docs)

    def fragment(length, pattern):
        for _ in range(2000):
            d = rng.choice(docs)
            text = d["text"]
            if len(text) < length:
                continue
            start = rng.randrange(len(text) - length + 1)
            piece = text[start:start + length]
            if re.fullmatch(pattern, piece):
                return piece, d
        return None, None

    def day_text(day):
        return f"{day // 10000:04d}-{day // 100 % 100:02d}-{day % 100:02d}"

    han = r"[\u4e00-\u9fff]+"
    out = []
    for i in range(per_kind):
        q, _ = fragment(i % 4 + 1, han)
        if q:
            out.append(("chinese", q))
        q, _ = fragment(2 + rng.randrange(5), r"[a-z0-9]+")
        if q:
            out.append(("latin", q))
            out.append(("full-width", "".join(chr(ord(c.upper() if rng.randrange(2) else c) + 0xFEE0) for c in q)))
        first, d = fragment(2 + rng.randrange(2), han)
        if first:
            second = ""
            for _ in range(50):
                length = 3 + rng.randrange(4)
                if len(d["text"]) <= length:
                    break
                start = rng.randrange(len(d["text"]) - length)
                piece = d["text"][start:start + length]
                if "\n" in piece or '"' in piece or piece != piece.strip():
                    continue
                second = f'"{piece}"' if " " in piece else piece
                break
            extra = " " + (fragment(1, han)[0] or "") if i % 3 == 0 else ""
            out.append(("multi", f"{first} {second}{extra}".strip()))
        term, d = fragment(1 + rng.randrange(2), han)
        if term:
            day = day_text(rng.choice(days))
            flt = [f"board:{d['board']}", f"author:{d['author']}", f"after:{day}", f"before:{day}",
                   f"board:{rng.choice(docs)['board']} after:{day}"][i % 5]
            out.append(("filter", f"{term} {flt}" if i % 2 == 0 else f"{flt} {term}"))
    return out


# MARK: - The two engines in Chromium


OURS = """new Promise(resolve => {
  const tick = () => {
    const results = document.getElementById('results');
    if (results && results.getAttribute('aria-busy') === 'false' && results.dataset.query) {
      const entries = performance.getEntriesByType('resource');
      const index = entries.filter(e => /\\/search\\/|search\\.js/.test(e.name));
      const marks = {};
      performance.getEntriesByType('mark').forEach(m => { marks[m.name] = m.startTime; });
      const nav = performance.getEntriesByType('navigation')[0] || {};
      const at = n => Math.max(0, ...entries.filter(e => n.test(e.name)).map(e => e.responseEnd));
      BBSSearch.all(results.dataset.query).then(all => resolve(JSON.stringify({
        ms: marks['search-shown'] || performance.now(), total: Number(results.dataset.total), all: all,
        bytes: index.reduce((s, e) => s + (e.encodedBodySize || 0), 0), files: index.length,
        kinds: index.reduce((o, e) => {
          const m = /\/search\/([sptd])\//.exec(e.name);
          const k = m ? m[1] : /\/search\/index\.js/.test(e.name) ? 'manifest' : /search\.js/.test(e.name) ? 'client' : 'other';
          o[k] = (o[k] || 0) + (e.encodedBodySize || 0);
          return o;
        }, {}),
        stages: {html: nav.responseEnd, domContentLoaded: nav.domContentLoadedEventEnd,
                 clientLoaded: at(/search\\.js|search\\/index\\.js/), start: marks['search-start'],
                 shards: marks['search-shards'], evaluated: marks['search-evaluated'],
                 shown: marks['search-shown']}})));
    } else setTimeout(tick, 2);
  };
  tick();
})"""

PAGEFIND_PAGE = """<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>pagefind bench</title></head><body>
<script type="module">
const q = new URLSearchParams(location.search).get('q') || '';
const pagefind = await import('./pagefind/pagefind.js');
// In the page's own thread, so that what it fetches shows in its resource timing.
await pagefind.options({noWorker: true});
const search = await pagefind.search(q);
const first = await Promise.all(search.results.slice(0, 20).map(r => r.data()));
window.benchDone = {ms: performance.now(), ids: search.results.map(r => r.id), shown: first.length};
</script></body></html>
"""

PAGEFIND_WAIT = """new Promise(resolve => {
  const tick = () => {
    if (window.benchDone) {
      const index = performance.getEntriesByType('resource').filter(e => /\\/pagefind\\//.test(e.name));
      resolve(JSON.stringify(Object.assign({}, window.benchDone, {
        bytes: index.reduce((s, e) => s + (e.encodedBodySize || 0), 0), files: index.length})));
    } else setTimeout(tick, 2);
  };
  tick();
})"""


def browse(browser, session, url, expression):
    browser.events = []
    browser.send("Page.navigate", {"url": url}, session)
    browser.wait_for("Page.loadEventFired", session)
    value = browser_check.evaluate(browser, session, expression)
    if "error" in value:
        raise RuntimeError(f"{url}: {value['error']}")
    return json.loads(value["value"])


def doc_links(site):
    """Document number → floor link, from the index's own search/d/ chunks."""
    manifest = (site / "search" / "index.js").read_text(encoding="utf-8")
    chunk = int(re.search(r'"chunk"\s*:\s*(\d+)', manifest).group(1))
    links = {}
    for path in (site / "search" / "d").glob("*.js"):
        body = path.read_text(encoding="utf-8")
        # BBSSearch.docs("HEADER",K,[rows]); (index format 8; before it, BBSSearch.docs(K,[rows]);)
        rows = json.loads(body[body.index(",[") + 1: body.rindex(");")])
        for i, row in enumerate(rows):
            # The link, or (index format 6) the page's number when it is board/B/GID(-P).html#aF.
            link = row[3]
            if isinstance(link, int):
                link = f"board/{row[0]}/{row[1]}{'-%d' % link if link > 1 else ''}.html#a{row[2]}"
            links[int(path.stem) * chunk + i] = link
    return links


def pagefind_links(folder):
    """Pagefind result id → page, from its fragment files."""
    links = {}
    for path in (folder / "fragment").glob("*.pf_fragment"):
        raw = gzip.decompress(path.read_bytes())
        raw = raw[raw.index(b"{"):]
        links[path.stem] = page_of(json.loads(raw)["url"])
    return links


def page_of(href):
    return href.split("#")[0].lstrip("/")


def score(found, expected):
    hit = len(found & expected)
    return {"recall": hit / len(expected) if expected else 1.0, "precision": hit / len(found) if found else 1.0}


def summarize(rows):
    def agg(rows):
        if not rows:
            return None
        kb = [r["bytes"] / 1024 for r in rows]
        ms = [r["ms"] for r in rows]
        return {"queries": len(rows),
                "recall": round(statistics.mean(r["recall"] for r in rows), 4),
                "precision": round(statistics.mean(r["precision"] for r in rows), 4),
                "perfect": sum(1 for r in rows if r["recall"] == 1 and r["precision"] == 1),
                "download_kb": {"median": round(statistics.median(kb), 1), "max": round(max(kb), 1)},
                "first_results_ms": {"median": round(statistics.median(ms), 1), "max": round(max(ms), 1)}}

    out = agg(rows) or {}
    # What a query downloads by file kind (s shards, t tails, p positions, d
    # result entries, manifest, client, other: days.js, late.js).
    kinds = sorted({k for r in rows for k in r.get("kinds", {})})
    if kinds:
        out["download_kb_by_file"] = {
            k: {"median": round(statistics.median(r.get("kinds", {}).get(k, 0) / 1024 for r in rows), 1),
                "mean": round(statistics.mean(r.get("kinds", {}).get(k, 0) / 1024 for r in rows), 1),
                "max": round(max(r.get("kinds", {}).get(k, 0) / 1024 for r in rows), 1)} for k in kinds}
    out["by_kind"] = {k: agg([r for r in rows if r["kind"] == k]) for k in KINDS if any(r["kind"] == k for r in rows)}
    return out


def measure(site, store, bbsarchive, bench, work, per_kind=40, seed=9, chromium="chromium", build=None,
            pagefind=True, discard=None):
    """Both engines on one built site. `build`: the wall seconds and peak RSS
    (KB) of a full build of it, when the caller timed one; else one is timed.
    `pagefind=False`: bbsarchive alone, on the site as it is (its index may
    have been appended to), without timing a build or writing an index."""
    site, store, work = Path(site).resolve(), Path(store).resolve(), Path(work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    if pagefind:
        ensure_pagefind()
    result = {"site": str(site)}
    if not pagefind:
        return ours_only(result, site, store, bbsarchive, bench, per_kind, seed, chromium)
    if build is None:
        out = work / "build-site"
        shutil.rmtree(out, ignore_errors=True)
        b = timed([bbsarchive, "build", "--store", store, "--out", out, "--templates", ROOT / "templates",
                   "--quiet"])
        build = {"wall": b["wall"], "maxrss_kb": b["maxrss_kb"]}
        shutil.rmtree(out, ignore_errors=True)
    result["build"] = build

    # What indexing adds to a full build (the target), then the index alone.
    added = index_added(store, bench, work, runs=int(os.environ.get("BENCH_RUNS") or 2), discard=discard)
    log(f"indexing adds {added['added_seconds']:.2f} s to a {added['without_index']['wall']:.2f} s build "
        f"({added['added_share'] * 100:.1f} %; CPU +{added['added_cpu_seconds']:.2f} s)")
    # Indexing alone, the same work `build` does for search.
    index_out = work / "index-only"
    shutil.rmtree(index_out, ignore_errors=True)
    ours_index = timed([bench, "search-index", "--store", store, "--out", index_out])
    shutil.rmtree(index_out, ignore_errors=True)
    html = sum(p.stat().st_size for p in site.rglob("*.html") if "pagefind" not in p.parts)
    ours_bytes = sum(p.stat().st_size for p in (site / "search").rglob("*") if p.is_file())
    ours_files = sum(1 for p in (site / "search").rglob("*") if p.is_file())

    pagefind_dir = site / "pagefind"
    shutil.rmtree(pagefind_dir, ignore_errors=True)
    # Thread pages only (GID.html, GID-N.html; not board lists, user pages or 只看此ID copies),
    # linked into a folder of their own, at the same paths.
    source = work / "pagefind-source"
    shutil.rmtree(source, ignore_errors=True)
    for page in (site / "board").glob("*/*.html"):
        if re.fullmatch(r"\d+(-\d+)?\.html", page.name):
            (source / "board" / page.parent.name).mkdir(parents=True, exist_ok=True)
            try:
                os.link(page, source / "board" / page.parent.name / page.name)
            except OSError:
                shutil.copyfile(page, source / "board" / page.parent.name / page.name)
    pf = timed(PAGEFIND + ["--site", source, "--output-path", pagefind_dir])
    shutil.rmtree(source, ignore_errors=True)
    pf_bytes = sum(p.stat().st_size for p in pagefind_dir.rglob("*") if p.is_file())
    pf_files = sum(1 for p in pagefind_dir.rglob("*") if p.is_file())
    pf_pages = int(m.group(1)) if (m := re.search(r"Indexed (\d+) pages?", pf["stdout"])) else None
    result["html_bytes"] = html
    result["engines"] = {
        "bbsarchive": {"index": {"seconds": ours_index["wall"], "maxrss_kb": ours_index["maxrss_kb"],
                                 "user": ours_index["user"], "sys": ours_index["sys"],
                                 "share_of_build": round(ours_index["wall"] / build["wall"], 4),
                                 **added,
                                 "bytes": ours_bytes, "files": ours_files,
                                 "share_of_html": round(ours_bytes / html, 4)}},
        "pagefind": {"index": {"seconds": pf["wall"], "maxrss_kb": pf["maxrss_kb"],
                               "share_of_build": round(pf["wall"] / build["wall"], 4),
                               "bytes": pf_bytes, "files": pf_files, "pages": pf_pages,
                               "share_of_html": round(pf_bytes / html, 4)},
                     "version": subprocess.run(PAGEFIND + ["--version"], capture_output=True,
                                               text=True).stdout.strip()},
    }
    log(f"indexing: bbsarchive {ours_index['wall']:.1f} s, Pagefind {pf['wall']:.1f} s; build {build['wall']:.1f} s")

    docs = [json.loads(line) for line in subprocess.run(
        [bench, "search-docs", "--store", store], capture_output=True, text=True, check=True).stdout.splitlines()]
    chosen = queries(docs, per_kind, seed)
    result["posts"] = len(docs)
    log(f"{len(docs)} posts, {len(chosen)} queries")
    links = doc_links(site)
    pf_links = pagefind_links(pagefind_dir)
    (site / "pagefind-bench.html").write_text(PAGEFIND_PAGE, encoding="utf-8")

    server = subprocess.Popen([bbsarchive, "serve", "--out", site, "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    ours_rows, pf_rows = [], []
    try:
        base = server.stdout.readline().strip()
        browser, session = open_session(chromium)
        for kind, q in chosen:
            expected = truth(q, docs)
            ours_rows.append(ours_query(browser, session, base, kind, q, expected, links))
            if kind == "filter":
                continue
            terms = parse(q)["raw"]
            pq = " ".join(f'"{t}"' for t in terms)
            p = browse(browser, session, base + "pagefind-bench.html?q=" + urllib.parse.quote(pq), PAGEFIND_WAIT)
            pages = {pf_links.get(i, f"?{i}") for i in p.pop("ids")}
            expected_pages = {page_of(h) for h in expected}
            pf_rows.append({"kind": kind, "q": pq, "expected": len(expected_pages), "found": len(pages),
                            **score(pages, expected_pages), **p})
        browser.close()
    finally:
        server.terminate()
        server.wait()
        (site / "pagefind-bench.html").unlink(missing_ok=True)
        shutil.rmtree(pagefind_dir, ignore_errors=True)

    result["engines"]["bbsarchive"].update(summarize(ours_rows))
    stages = {}
    for name in ("html", "domContentLoaded", "clientLoaded", "start", "shards", "evaluated", "shown"):
        values = [r["stages"][name] for r in ours_rows if r["stages"].get(name) is not None]
        if values:
            stages[name] = round(statistics.median(values), 1)
    result["engines"]["bbsarchive"]["stages_ms"] = stages
    result["engines"]["pagefind"].update(summarize(pf_rows))
    result["engines"]["pagefind"]["note"] = ("judged by thread page; each term quoted as a phrase; "
                                             "no filters (no Pagefind filter markup)")
    result["queries"] = {"per_kind": per_kind, "seed": seed, "total": len(chosen)}
    result["misses"] = {
        "bbsarchive": [{k: r[k] for k in ("kind", "q", "expected", "found", "recall", "precision")}
                       for r in ours_rows if r["recall"] < 1 or r["precision"] < 1][:10],
        "pagefind": [{k: r[k] for k in ("kind", "q", "expected", "found", "recall", "precision")}
                     for r in pf_rows if r["recall"] < 1][:10],
    }
    return result


def open_session(chromium):
    """Headless Chromium with one page whose cache is off: (browser, session)."""
    browser = browser_check.Chromium(chromium, 120)
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Network"):
        browser.send(domain + ".enable", {}, session)
    browser.send("Network.setCacheDisabled", {"cacheDisabled": True}, session)
    return browser, session


def ours_query(browser, session, base, kind, q, expected, links):
    """One query on bbsarchive's search page, scored against the posts expected."""
    r = browse(browser, session, base + "search.html?q=" + urllib.parse.quote(q), OURS)
    found = {links.get(d, f"?{d}") for d in r.pop("all")}
    return {"kind": kind, "q": q, "expected": len(expected), "found": len(found), **score(found, expected), **r}


def ours_only(result, site, store, bbsarchive, bench, per_kind, seed, chromium):
    """bbsarchive's queries alone: recall, precision, download, time."""
    result["html_bytes"] = sum(p.stat().st_size for p in site.rglob("*.html"))
    files = [p for p in (site / "search").rglob("*") if p.is_file()]
    result["engines"] = {"bbsarchive": {"index": {"bytes": sum(p.stat().st_size for p in files),
                                                  "files": len(files)}}}
    docs = [json.loads(line) for line in subprocess.run(
        [bench, "search-docs", "--store", store], capture_output=True, text=True, check=True).stdout.splitlines()]
    chosen = queries(docs, per_kind, seed)
    result["posts"] = len(docs)
    links = doc_links(site)
    server = subprocess.Popen([bbsarchive, "serve", "--out", site, "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    rows = []
    try:
        base = server.stdout.readline().strip()
        browser, session = open_session(chromium)
        for kind, q in chosen:
            rows.append(ours_query(browser, session, base, kind, q, truth(q, docs), links))
        browser.close()
    finally:
        server.terminate()
        server.wait()
    result["engines"]["bbsarchive"].update(summarize(rows))
    result["queries"] = {"per_kind": per_kind, "seed": seed, "total": len(chosen)}
    result["misses"] = {"bbsarchive": [{k: r[k] for k in ("kind", "q", "expected", "found", "recall", "precision")}
                                       for r in rows if r["recall"] < 1 or r["precision"] < 1][:10]}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", required=True, help="a site `bbsarchive build` wrote")
    parser.add_argument("--store", required=True, help="the store it was built from")
    parser.add_argument("--bin", default=None, help="folder of bbsarchive and bbsarchive-bench "
                                                    "(default: swift build -c release --show-bin-path)")
    parser.add_argument("--work", default=str(ROOT / ".bench" / "search"))
    parser.add_argument("--queries", type=int, default=40, help="queries of each kind")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--ours-only", action="store_true",
                        help="bbsarchive's queries alone, on the site as it is (no Pagefind, no build timed)")
    args = parser.parse_args()
    bins = Path(args.bin or subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT,
                                           capture_output=True, text=True, check=True).stdout.strip())
    report = measure(args.site, args.store, bins / "bbsarchive", bins / "bbsarchive-bench", args.work,
                     args.queries, args.seed, args.chromium, pagefind=not args.ours_only)
    print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
