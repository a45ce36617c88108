#!/usr/bin/env python3
"""make bench: bbsarchive's benchmarks, on the SMTH replica, next to the tools
people use instead.

    python3 scripts/bench/bench.py --scale tiny|default|large [--only parse,fetch,...]

Writes the raw figures to benchmarks/<scale>.json and regenerates
BENCHMARKS.md from every benchmarks/*.json present. Work files go under
.bench/ (never committed). Exits non-zero only when bbsarchive itself (or the
replica) fails; slow figures and missed targets never fail it.

BENCH_STATIC=1 (set by `make bench` above the tiny scale, after building it)
runs the one-reply update from .build/static/release/bbsarchive, the binary
`make install` installs; otherwise from the release build.

Everything talks to 127.0.0.1 only. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import http.client
import http.server
import json
import os
import platform
import queue
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / ".bench"
TRASH = WORK / ".trash"  # folders the bench is done with (see rmtree)
TRASH_EMPTIED = WORK / ".trash-emptied"  # when the last bench deleted them
RESULTS = ROOT / "benchmarks"
REPORT = ROOT / "BENCHMARKS.md"

# The replica is pinned to one moment, so every run serves the same bytes and
# a restarted replica serves the same forum (needed by the incremental bench).
SEED = 1
NOW = "2025-06-01T12:00:00+08:00"
BEIJING = dt.timezone(dt.timedelta(hours=8))


def forum(sections, boards, threads, posts=25):
    return {"sections": sections, "boards": boards, "threads": threads, "posts": posts}


# Replica shapes: about 7.25 posts a thread with --posts 25.
SCALES = {
    "tiny": {
        "runs": 2,
        "fetch_forum": forum(1, 2, 60),  # ~900 posts; also the only build tier
        "tiers": [],
        "incremental_tier": "fetch",
        "search_tier": "fetch",
        "hugo_tiers": ["fetch"],
        "httrack_cap": 10,
        "connections": [1, 4, 16],
    },
    "default": {
        "runs": 3,
        "fetch_forum": forum(2, 2, 350),  # ~10k posts: the 10k build tier
        "tiers": [("100k", forum(4, 5, 716))],  # ~100k posts
        "incremental_tier": "100k",
        "search_tier": "100k",
        "hugo_tiers": ["fetch", "100k"],
        "httrack_cap": 30,
        "connections": [1, 4, 16],
    },
    "large": {
        "runs": 3,
        "fetch_forum": forum(2, 2, 350),
        "tiers": [("100k", forum(4, 5, 716)), ("1M", forum(10, 10, 1432))],  # ~100k, ~1M posts
        # Issue 10: the whole run at 1M posts: replica, fetch at --rate 0, full
        # build, then the incremental update after one reply, all at 1M.
        "incremental_tier": "1M",
        # Pagefind beside it at 100k, as the targets are set (Pagefind
        # needed 2.3 GB at 100k posts).
        "search_tier": "100k",
        # Hugo at 1M too: it needed 12.8 GB here, which fits in 24 GB. Run
        # it on a machine with nothing else to do.
        "hugo_tiers": ["fetch", "100k", "1M"],
        "httrack_cap": 30,
        "connections": [1, 4, 16],
        # The 1M tier builds this many times (each takes minutes).
        "runs_1M": 2,
        # Its sites are about 9.4 GB each and Hugo's about 5 GB: the smaller
        # tiers' folders are deleted before it starts (after_last_delete then
        # waits out ext4's slow window) so that the run fits on the disk.
        "empty_trash_before": ["1M"],
    },
}

BENCHES = ["parse", "fetch", "build", "hugo", "incremental", "size", "search"]
# The benchmarks that need a built site.
NEEDS_SITE = ("build", "hugo", "incremental", "size", "search")


# MARK: - Small helpers


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def loadavg():
    """Load average (1, 5, 15 min) and, where the kernel has them, the share of
    the last 60 s in which some task waited for CPU or for I/O (PSI)."""
    try:
        state = {"load": [round(x, 2) for x in os.getloadavg()]}
    except OSError:
        return None
    for kind in ("cpu", "io"):
        try:
            text = Path(f"/proc/pressure/{kind}").read_text()
            state[f"{kind}Pressure60"] = float(re.search(r"^some .*avg60=([0-9.]+)", text, re.M).group(1))
        except (OSError, AttributeError, ValueError):
            pass
    return state


def rel(path):
    path = Path(path)
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def shell_join(args):
    """A command line to paste into bash; arguments naming $URL or $PROXY keep them expandable."""
    out = []
    for a in args:
        a = str(a)
        if re.fullmatch(r"[A-Za-z0-9_./:=,+%@-]+", a):
            out.append(a)
        elif "$URL" in a or "$PROXY" in a:
            out.append('"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"')
        else:
            out.append("'" + a.replace("'", "'\\''") + "'")
    return " ".join(out)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_is_free(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def rmtree(path):
    """Moves a folder aside into TRASH, which is emptied when the bench ends.
    On ext4 without a journal (this machine), creating a file steps one by
    one over every inode deleted in the last minute, or the last six once
    the inode table is being written again, as a build's new files make it:
    40,000 creates took 1.3 s on a quiet file system and 19 s right after
    40,000 files were deleted. A build timed after a big delete measures
    that scan, not the build, so nothing big is deleted before the end."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return
    if path.is_dir() and not path.is_symlink():
        TRASH.mkdir(parents=True, exist_ok=True)
        try:
            os.rename(path, TRASH / f"{time.time_ns()}-{path.name}")
            return
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)


def empty_trash():
    if TRASH.exists():
        shutil.rmtree(TRASH, ignore_errors=True)
        TRASH_EMPTIED.write_text(f"{time.time()}\n")


def after_last_delete():
    """Waits until the last bench's deletes are out of ext4's six-minute
    window (see rmtree), so a bench run right after another is timed on the
    same footing as the first."""
    try:
        emptied = float(TRASH_EMPTIED.read_text())
    except (OSError, ValueError):
        return
    wait = emptied + RECENTLY_DELETED_SECONDS - time.time()
    if wait > 0:
        log(f"waiting {wait:.0f} s for the last bench's deletes to age (see rmtree)")
        os.sync()
        time.sleep(wait)


RECENTLY_DELETED_SECONDS = 370


def run_timed(args, cwd=None, check=True, timeout=None, label=None):
    """Runs a command under /usr/bin/time: wall (monotonic), user, sys, peak RSS."""
    with tempfile.NamedTemporaryFile("r", suffix=".time", delete=False) as t:
        time_file = t.name
    full = ["/usr/bin/time", "-o", time_file, "-f", "%U %S %M"] + [str(a) for a in args]
    start = time.monotonic()
    # A session of its own, so a timeout stops the command and not only /usr/bin/time.
    proc = subprocess.Popen(full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        timed_out = True
    wall = time.monotonic() - start
    user = system = rss = None
    try:
        fields = Path(time_file).read_text().strip().splitlines()[-1].split()
        user, system, rss = float(fields[0]), float(fields[1]), int(fields[2])
    except (OSError, IndexError, ValueError):
        pass
    finally:
        os.unlink(time_file)
    result = {
        "wall": wall, "user": user, "sys": system, "cpu": (user or 0) + (system or 0) if user is not None else None,
        "maxrss_kb": rss, "status": proc.returncode, "timed_out": timed_out,
        "stdout": stdout, "stderr": stderr,
    }
    if check and proc.returncode != 0:
        tail = "\n".join((stderr or "").strip().splitlines()[-15:])
        raise BenchFailure(f"{label or args[0]} failed with status {proc.returncode}:\n{tail}")
    return result


class BenchFailure(Exception):
    pass


# MARK: - Binaries and the replica


class Binaries:
    def __init__(self):
        out = subprocess.run(
            ["swift", "build", "-c", os.environ.get("BENCH_CONFIG", "release"), "--show-bin-path"],
            cwd=ROOT, capture_output=True, text=True, check=True)
        self.dir = Path(out.stdout.strip())
        self.bbsarchive = self.dir / "bbsarchive"
        self.replica = self.dir / "smth-replica"
        self.bench = self.dir / "bbsarchive-bench"
        for b in (self.bbsarchive, self.replica, self.bench):
            if not b.exists():
                raise BenchFailure(f"{b} is missing: run `swift build -c release` first (make bench does)")
        self.templates = ROOT / "templates"
        # What `make install` and `make dist` install: the release build with
        # the Swift runtime linked in (Makefile's STATIC_BUILD, a scratch path
        # of its own). The one-reply update times it when `make bench` built
        # it just now (BENCH_STATIC=1; an older one may be stale): a process
        # that does little spends a tenth of its CPU in the dynamic linker
        # otherwise, which users of the installed binary never pay.
        static = ROOT / ".build" / "static" / "release" / "bbsarchive"
        self.static = None
        if os.environ.get("BENCH_STATIC") == "1":
            if not static.exists():
                raise BenchFailure(f"{static} is missing: BENCH_STATIC=1 needs `make bench`'s static build")
            self.static = static

    def fingerprint(self):
        h = hashlib.sha256()
        for b in (self.bbsarchive, self.replica):
            h.update(b.read_bytes())
        return h.hexdigest()[:16]


def replica_args(shape):
    return ["--seed", SEED, "--sections", shape["sections"], "--boards", shape["boards"],
            "--threads", shape["threads"], "--posts", shape["posts"], "--now", NOW]


class Replica:
    """smth-replica on loopback; stopped (SIGTERM, then SIGKILL) on exit."""

    def __init__(self, bins, shape, port=0, extra=()):
        self.bins, self.shape, self.port, self.extra = bins, shape, port, list(extra)
        self.proc = None
        self.url = None

    def command(self, port="0"):
        return [self.bins.replica, "--port", port] + replica_args(self.shape) + self.extra

    def __enter__(self):
        self.proc = subprocess.Popen([str(a) for a in self.command(self.port)], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://"):
            err = self.proc.stderr.read() if self.proc.poll() is not None else ""
            self.stop()
            raise BenchFailure(f"the replica did not start: {line} {err}")
        self.url = line
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __exit__(self, *exc):
        self.stop()

    def boards(self):
        out = subprocess.run([str(a) for a in [self.bins.replica] + replica_args(self.shape) + ["--list-boards"]],
                             capture_output=True, text=True, check=True)
        return out.stdout.split()

    def truth(self):
        with urllib.request.urlopen(self.url + "/_replica/truth.json", timeout=120) as r:
            data = json.load(r)
        boards = data["boards"]
        return {k: sum(b[k] for b in boards) for k in ("threads", "posts", "images", "files")} | {
            "boards": len(boards)}


def replica_command_text(shape):
    return shell_join([".build/release/smth-replica", "--port", "0"] + replica_args(shape))


# MARK: - Output parsing

BUILT = re.compile(r"built (\d+) page\(s\), (\d+) Markdown file\(s\), (\d+) new media file\(s\); "
                   r"(\d+) written, (\d+) unchanged")
FETCHED = re.compile(r"fetched (\d+) list page\(s\) and (\d+) thread\(s\) \(\d+ page\(s\), (\d+) post\(s\)\), "
                     r"(\d+) attachment\(s\); (\d+) thread\(s\) unchanged")


def built_report(stderr):
    m = BUILT.search(stderr or "")
    if not m:
        return None
    keys = ["pages", "markdown", "media", "written", "unchanged"]
    return dict(zip(keys, map(int, m.groups())))


def fetched_report(stderr):
    m = FETCHED.search(stderr or "")
    if not m:
        return None
    keys = ["boardPages", "threads", "posts", "attachments", "unchanged"]
    return dict(zip(keys, map(int, m.groups())))


def capture_count(store):
    try:
        con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        try:
            return con.execute("SELECT count(*) FROM capture").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return None


def snapshot(folder):
    state = {}
    for dirpath, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            state[os.path.relpath(path, folder)] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return state


def changed_files(before, after):
    return sorted(p for p, s in after.items() if before.get(p) != s) + sorted(
        "(removed) " + p for p in before if p not in after)


def tree_size(folder):
    """Apparent bytes and bytes on disk (allocated blocks), by kind of file."""
    kinds = {}
    for dirpath, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            relpath = os.path.relpath(path, folder)
            if relpath.startswith("media/"):
                kind = "media"
            elif name.endswith(".html"):
                kind = "html"
            elif name.endswith(".md"):
                kind = "markdown"
            else:
                kind = "other"
            k = kinds.setdefault(kind, {"files": 0, "bytes": 0, "disk": 0})
            k["files"] += 1
            k["bytes"] += st.st_size
            k["disk"] += st.st_blocks * 512
    return kinds


def store_size(store):
    size = {"files": 0, "bytes": 0, "disk": 0}
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(store) + suffix)
        if p.exists():
            st = p.stat()
            size["files"] += 1
            size["bytes"] += st.st_size
            size["disk"] += st.st_blocks * 512
    return size


def memory_pageout():
    """Where the kernel pages out memory left unused (DAMON's `pageout` on
    physical memory, as on the VMs here): after how many seconds unused, and
    at most how many MiB a second; None where it does not. A file read that
    long before may then come from the disk again, and identical runs here
    differed several times over (20,000 files of 12 kB created on ext4, one
    after the other: 0.8 to 10.7 s of system time)."""
    found = None
    try:
        for kdamond in Path("/sys/kernel/mm/damon/admin/kdamonds").iterdir():
            if not kdamond.name.isdigit() or (kdamond / "state").read_text().strip() != "on":
                continue
            for context in (kdamond / "contexts").iterdir():
                if not context.name.isdigit() or (context / "operations").read_text().strip() != "paddr":
                    continue
                aggregation = int((context / "monitoring_attrs/intervals/aggr_us").read_text())
                for scheme in (context / "schemes").iterdir():
                    if not scheme.name.isdigit() or (scheme / "action").read_text().strip() != "pageout":
                        continue
                    age = int((scheme / "access_pattern/age/min").read_text())
                    quota = int((scheme / "quotas/bytes").read_text())
                    reset = int((scheme / "quotas/reset_interval_ms").read_text())
                    found = {"unusedSeconds": round(age * aggregation / 1e6, 1),
                             "mibPerSecond": round(quota / 2**20 * 1000 / reset) if quota and reset else None}
    except (OSError, ValueError):
        pass
    return found


def machine():
    info = {"nproc": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()}
    pageout = memory_pageout()
    if pageout:
        info["memoryPageout"] = pageout
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gb"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        info["os"] = dict(re.findall(r'^(\w+)="?([^"\n]*)"?', Path("/etc/os-release").read_text(), re.M)).get(
            "PRETTY_NAME")
    except OSError:
        pass

    def first_line(args, stream="stdout"):
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=60)
            text = (p.stdout if stream == "stdout" else p.stderr) or p.stdout or p.stderr
            return text.strip().splitlines()[0] if text.strip() else None
        except (OSError, subprocess.TimeoutExpired):
            return None

    info["tools"] = {
        "swift": first_line(["swift", "--version"]),
        "hugo": first_line(["hugo", "version"]),
        "wget": first_line(["wget", "--version"]),
        "httrack": first_line(["httrack", "--version"]),
        "xmllint": first_line(["xmllint", "--version"], "stderr"),
    }
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "Sources", "Package.swift", "templates"],
                               cwd=ROOT, capture_output=True, text=True)
        info["commit"] = commit.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")
    except OSError:
        pass
    return info


# MARK: - 1. Parse


def crawl_pages(url, boards, folder):
    """Saves every board list page and thread page of the boards, as fetched."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = []

    def get(path):
        with urllib.request.urlopen(url + path, timeout=60) as r:
            return r.read()

    def total_pages(body):
        m = re.search(rb'<a class="plant">(\d+)/(\d+)</a>', body)
        return int(m.group(2)) if m else 1

    def save(name, path, body):
        (folder / name).write_bytes(body)
        manifest.append(f"{name}\t{url}{path}")

    for board in boards:
        first = get(f"/board/{board}?p=1")
        save(f"board-{board}-1.html", f"/board/{board}?p=1", first)
        gids = []
        pages = [first]
        for p in range(2, total_pages(first) + 1):
            body = get(f"/board/{board}?p={p}")
            save(f"board-{board}-{p}.html", f"/board/{board}?p={p}", body)
            pages.append(body)
        for body in pages:
            for gid in re.findall(rb'href="/article/' + board.encode() + rb'/(\d+)"', body):
                if gid not in gids:
                    gids.append(gid)
        for gid in (g.decode() for g in gids):
            path = f"/article/{board}/{gid}?p=1"
            body = get(path)
            save(f"thread-{board}-{gid}-1.html", path, body)
            for p in range(2, total_pages(body) + 1):
                path = f"/article/{board}/{gid}?p={p}"
                save(f"thread-{board}-{gid}-{p}.html", path, get(path))
    (folder / "manifest.tsv").write_text("\n".join(manifest) + "\n")
    return len(manifest)


def crawl_nforum_pages(url, mobile_folder, folder):
    """Saves the desktop (nForum, GBK) fragment of every page the mobile crawl saved."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = []
    for line in (mobile_folder / "manifest.tsv").read_text().splitlines():
        if not line:
            continue
        name, address = line.split("\t", 1)
        path = address[len(url):]
        board = re.match(r"/board/([^?]+)\?p=(\d+)$", path)
        article = re.match(r"/article/([^/]+)/(\d+)\?p=(\d+)$", path)
        if board:
            path = f"/nForum/board/{board.group(1)}?ajax&p={board.group(2)}"
        elif article:
            path = f"/nForum/article/{article.group(1)}/{article.group(2)}?ajax&p={article.group(3)}"
        else:
            continue
        request = urllib.request.Request(url + path, headers={"X-Requested-With": "XMLHttpRequest"})
        with urllib.request.urlopen(request, timeout=60) as r:
            (folder / name).write_bytes(r.read())
        manifest.append(f"{name}\t{url}{path}")
    (folder / "manifest.tsv").write_text("\n".join(manifest) + "\n")
    return len(manifest)


def bench_parse_nforum(ctx, url, mobile_folder, runs):
    folder = ctx.work / "parse" / "pages-nforum"
    rmtree(folder)
    count = crawl_nforum_pages(url, mobile_folder, folder)
    log(f"parse: {count} saved nForum pages")
    parser_runs, libxml2_runs, data = [], [], None
    for _ in range(runs):
        result = run_timed([ctx.bins.bench, "parse", "--pages", folder, "--runs", 1, "--fetched-at", NOW,
                            "--source", "smth-nforum"], label="bbsarchive-bench parse --source smth-nforum")
        data = json.loads(result["stdout"])
        parser_runs += data["runs"]["parser"]
        libxml2_runs += data["runs"]["libxml2"]
    mb = data["bytes"] / 1e6
    out = {
        "pages": data["pages"], "bytes": data["bytes"], "parserFailures": data["parserFailures"],
        "parser": stats(parser_runs), "libxml2": stats(libxml2_runs),
        "command": shell_join([".build/release/bbsarchive-bench", "parse", "--pages", rel(folder), "--runs", 1,
                               "--source", "smth-nforum"]),
    }
    for key in ("parser", "libxml2"):
        out[key]["pagesPerSecond"] = data["pages"] / out[key]["median"]
        out[key]["mbPerSecond"] = mb / out[key]["median"]
    out["ratioToLibxml2"] = out["parser"]["median"] / out["libxml2"]["median"]
    log(f"parse: nForum parser {out['parser']['pagesPerSecond']:.0f} pages/s, {out['ratioToLibxml2']:.2f}x libxml2")
    return out


def bench_parse(ctx, url, boards):
    folder = ctx.work / "parse" / "pages"
    rmtree(folder)
    count = crawl_pages(url, boards, folder)
    log(f"parse: {count} saved replica pages")
    runs = max(5, ctx.runs)
    files = [line.split("\t")[0] for line in (folder / "manifest.tsv").read_text().splitlines() if line]
    xmllint_runs = []
    xmllint_errors = None
    parser_runs = []
    libxml2_runs = []
    data = None
    # Alternating, so a change in the machine's load hits both sides alike:
    # one bbsarchive-bench pass (after its warm-up pass), then one xmllint
    # process over every file.
    subprocess.run(["xmllint", "--html", "--noout"] + files, cwd=folder, capture_output=True)  # warm-up
    for _ in range(runs):
        result = run_timed([ctx.bins.bench, "parse", "--pages", folder, "--runs", 1, "--fetched-at", NOW],
                           label="bbsarchive-bench parse")
        data = json.loads(result["stdout"])
        parser_runs += data["runs"]["parser"]
        libxml2_runs += data["runs"]["libxml2"]
        r = run_timed(["xmllint", "--html", "--noout"] + files, cwd=folder, check=False)
        xmllint_runs.append(r["wall"])
        xmllint_errors = len([ln for ln in r["stderr"].splitlines() if ": " in ln and "error" in ln.lower()])
    data["runs"] = {"parser": parser_runs, "libxml2": libxml2_runs}
    mb = data["bytes"] / 1e6
    out = {
        "pages": data["pages"], "bytes": data["bytes"], "threadPages": data["threadPages"],
        "boardPages": data["boardPages"], "parserFailures": data["parserFailures"],
        "parser": stats(data["runs"]["parser"]), "libxml2": stats(data["runs"]["libxml2"]),
        "xmllint": stats(xmllint_runs), "xmllintErrorLines": xmllint_errors,
        "commands": {
            "pages": f"the replica ({replica_command_text(ctx.scale['fetch_forum'])}): every list and thread "
                     f"page of {', '.join(boards)}, saved to {rel(folder)} by scripts/bench/bench.py",
            "parser": shell_join([".build/release/bbsarchive-bench", "parse", "--pages", rel(folder), "--runs", 1]),
            "xmllint": f"cd {rel(folder)} && /usr/bin/time -v xmllint --html --noout *.html",
        },
    }
    for key in ("parser", "libxml2", "xmllint"):
        s = out[key]
        s["pagesPerSecond"] = data["pages"] / s["median"]
        s["mbPerSecond"] = mb / s["median"]
    out["ratioToXmllint"] = out["parser"]["median"] / out["xmllint"]["median"]
    out["ratioToLibxml2"] = out["parser"]["median"] / out["libxml2"]["median"]
    out["nforum"] = bench_parse_nforum(ctx, url, folder, runs)
    log(f"parse: parser {out['parser']['pagesPerSecond']:.0f} pages/s, xmllint "
        f"{out['xmllint']['pagesPerSecond']:.0f} pages/s, ratio {out['ratioToXmllint']:.2f}")
    return out


# MARK: - 5. Fetch


def bench_fetch(ctx, replica, boards, truth):
    folder = ctx.work / "fetch"
    rmtree(folder)
    folder.mkdir(parents=True)
    url = replica.url
    runs = {f"bbsarchive-{c}": [] for c in ctx.scale["connections"]}
    runs["wget"] = []
    kept_store = None
    for i in range(ctx.runs):
        for c in ctx.scale["connections"]:
            store = folder / f"fetch-c{c}-{i}.sqlite"
            r = run_timed([ctx.bins.bbsarchive, "fetch", *boards, "--forum-url", url, "--store", store,
                           "--rate", "0", "--connections", c], label=f"bbsarchive fetch --connections {c}")
            report = fetched_report(r["stderr"])
            requests = capture_count(store)
            runs[f"bbsarchive-{c}"].append({k: r[k] for k in ("wall", "user", "sys", "cpu", "maxrss_kb")} | {
                "report": report, "requests": requests})
            log(f"fetch: --connections {c}: {r['wall']:.2f} s, {requests} requests")
            if c == 4 and kept_store is None:
                kept_store = store
            else:
                for suffix in ("", "-wal", "-shm"):
                    Path(str(store) + suffix).unlink(missing_ok=True)
        mirror = folder / f"wget-{i}"
        r = run_timed(wget_command(url, boards, mirror), check=False)
        pages = count_mirror(mirror)
        runs["wget"].append({k: r[k] for k in ("wall", "user", "sys", "cpu", "maxrss_kb", "status")} | pages)
        log(f"fetch: wget: {r['wall']:.2f} s, {pages['files']} files")
        rmtree(mirror)

    mirror = folder / "httrack"
    cap = ctx.scale["httrack_cap"]
    r = run_timed(httrack_command(url, boards, mirror, cap), check=False, timeout=cap + 60)
    pages = count_mirror(mirror / url.split("//", 1)[1].replace(":", "_"))
    httrack = {k: r[k] for k in ("wall", "user", "sys", "cpu", "maxrss_kb", "status", "timed_out")} | pages
    httrack["cap"] = cap
    log(f"fetch: httrack: {r['wall']:.2f} s (cap {cap} s), {pages['files']} files")
    rmtree(mirror)

    out = {"forum": ctx.scale["fetch_forum"] | truth, "tools": {}, "httrack": httrack}
    for name, rows in runs.items():
        wall = stats([row["wall"] for row in rows])
        entry = {"wall": wall, "runs": rows, "maxrss_kb": max(row["maxrss_kb"] or 0 for row in rows)}
        if name.startswith("bbsarchive"):
            requests = rows[-1]["requests"]
            entry["connections"] = int(name.split("-")[1])
            entry["requests"] = requests
            if requests:
                entry["pagesPerSecond"] = requests / wall["median"]
                entry["cpuPerPageMs"] = statistics.median(row["cpu"] / row["requests"] * 1000 for row in rows)
        else:
            files = rows[-1]["files"]
            entry["requests"] = files
            entry["html"] = rows[-1]["html"]
            entry["pagesPerSecond"] = files / wall["median"] if files else None
            entry["cpuPerPageMs"] = statistics.median(row["cpu"] / row["files"] * 1000 for row in rows if row["files"])
        out["tools"][name] = entry
    if httrack["files"]:
        httrack["pagesPerSecond"] = httrack["files"] / httrack["wall"]
    out["commands"] = {
        "replica": replica_command_text(ctx.scale["fetch_forum"]) + "   # URL= the line it prints",
        "bbsarchive": "rm -f fetch.sqlite && /usr/bin/time -v " + shell_join(
            [".build/release/bbsarchive", "fetch", *boards, "--forum-url", "$URL", "--store", "fetch.sqlite",
             "--rate", "0", "--connections", "N"]),
        "wget": "rm -rf wget-mirror && /usr/bin/time -v " + shell_join(wget_command("$URL", boards, "wget-mirror")),
        "httrack": "rm -rf httrack-mirror && /usr/bin/time -v " + shell_join(
            httrack_command("$URL", boards, "httrack-mirror", cap)),
    }
    return out, kept_store


def board_alternatives(boards):
    return "(" + "|".join(re.escape(b) for b in boards) + ")"


def wget_command(url, boards, mirror):
    alt = board_alternatives(boards)
    # --no-http-keep-alive: on a kept-alive connection the replica's second
    # response waits ~40 ms (delayed ACK), which would measure the replica.
    return ["wget", "--mirror", "--no-http-keep-alive", "-e", "robots=off", "-q", "-P", str(mirror),
            "--accept-regex",
            rf"^{url}/(board/{alt}(\?p=[0-9]+)?|article/{alt}/[0-9]+(\?p=[0-9]+)?|att/{alt}/[0-9]+/[0-9]+)$"] + [
        f"{url}/board/{b}" for b in boards]


def httrack_command(url, boards, mirror, cap):
    filters = ["-*"]
    for b in boards:
        filters += [f"+*/board/{b}", f"+*/board/{b}?p=*", f"+*/article/{b}/*", f"-*/article/{b}/*au=*",
                    f"+*/att/{b}/*"]
    filters += ["-*/att/*/middle", "-*/att/*/small"]
    return (["httrack"] + [f"{url}/board/{b}" for b in boards]
            + ["-O", str(mirror), "-q", "-%v0", "-s0", "-r99", "-c16", "-%c1000", "-%!", "-A1000000000",
               f"-E{cap}"] + filters)


def count_mirror(folder):
    files = html = 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".tmp"):
                continue
            path = os.path.join(dirpath, name)
            if "/att/" in path:
                files += 1
            elif "/board/" in path or "/article/" in path:
                files += 1
                html += 1
    return {"files": files, "html": html}


# MARK: - Tier stores


class Tier:
    def __init__(self, name, shape, store, meta):
        self.name, self.shape, self.store, self.meta = name, shape, Path(store), meta

    @property
    def posts(self):
        return self.meta["truth"]["posts"]


def tier_store(ctx, name, shape):
    """A store of the replica forum `shape`, fetched once and cached by binaries and shape."""
    key = hashlib.sha256((ctx.bins.fingerprint() + json.dumps(shape, sort_keys=True) + NOW).encode()).hexdigest()[:12]
    cache = WORK / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    store = cache / f"{name}-{key}.sqlite"
    meta_file = cache / f"{name}-{key}.json"
    if store.exists() and meta_file.exists() and not os.environ.get("BENCH_FRESH"):
        log(f"tier {name}: cached store {rel(store)}")
        return Tier(name, shape, store, json.loads(meta_file.read_text()))
    # BENCH_CACHE_ANY=1: any cached store of this tier, whatever binaries
    # fetched it (a change to the build alone need not fetch 100k posts again).
    if os.environ.get("BENCH_CACHE_ANY") == "1" and not os.environ.get("BENCH_FRESH"):
        for other in sorted(cache.glob(f"{name}-*.sqlite")):
            other_meta = other.with_suffix(".json")
            if other_meta.exists() and (json.dumps(json.loads(other_meta.read_text()).get("shape"), sort_keys=True)
                                       == json.dumps(shape, sort_keys=True)):
                log(f"tier {name}: cached store {rel(other)} (BENCH_CACHE_ANY)")
                return Tier(name, shape, other, json.loads(other_meta.read_text()))
    # Each tier keeps one store (a 1M store is 2.4 GB): another key's goes,
    # said first, since fetching it again takes minutes (the 1M tier 12-18).
    for old in cache.glob(f"{name}-*"):
        if old.suffix == ".sqlite":
            log(f"tier {name}: removing {rel(old)}, fetched by other binaries (BENCH_CACHE_ANY=1 would reuse it)")
        old.unlink()
    port = free_port()
    with Replica(ctx.bins, shape, port=port) as replica:
        boards = replica.boards()
        truth = replica.truth()
        log(f"tier {name}: fetching {truth['posts']} posts in {truth['threads']} threads from the replica")
        r = run_timed([ctx.bins.bbsarchive, "fetch", *boards, "--forum-url", replica.url, "--store", store,
                       "--rate", "0", "--connections", "4", "--quiet"], label=f"bbsarchive fetch ({name})")
    meta = {"url": replica.url, "port": port, "boards": boards, "truth": truth, "shape": shape,
            "fetch": {k: r[k] for k in ("wall", "user", "sys", "maxrss_kb")}, "requests": capture_count(store)}
    meta_file.write_text(json.dumps(meta, indent=1))
    return Tier(name, shape, store, meta)


# MARK: - 2. Build (and 3. Hugo)


def build_command(bins, store, out):
    return [bins.bbsarchive, "build", "--store", store, "--out", out, "--templates", bins.templates]


def bench_build(ctx, tier, hugo):
    folder = ctx.work / "build" / tier.name
    rmtree(folder)
    folder.mkdir(parents=True)
    out = folder / "site"
    runs = ctx.scale.get(f"runs_{tier.name}", ctx.runs)
    rows = []
    hugo_rows = []
    hugo_site = folder / "hugo"
    export = None
    # Every run builds into a new folder; the folders are moved aside after
    # the timed runs (see rmtree).
    sites = []
    publics = []
    after_last_delete()
    for i in range(runs):
        site = folder / f"site-{i}"
        sites.append(site)
        r = run_timed(build_command(ctx.bins, tier.store, site), label=f"bbsarchive build ({tier.name})")
        report = built_report(r["stderr"])
        rows.append({k: r[k] for k in ("wall", "user", "sys", "cpu", "maxrss_kb")} | {"report": report})
        log(f"build {tier.name}: {r['wall']:.2f} s, peak {r['maxrss_kb'] / 1024:.0f} MB")
        if hugo:
            if export is None:
                e = run_timed([ctx.bins.bench, "hugo-export", "--store", tier.store, "--site", site, "--dest",
                               hugo_site], label="bbsarchive-bench hugo-export")
                export = json.loads(e["stdout"])
            public = folder / f"hugo-public-{i}"
            publics.append(public)
            h = run_timed(hugo_command(hugo_site, public.resolve()), check=False, label="hugo",
                          timeout=3600)
            files = sum(len(f) for _, _, f in os.walk(public))
            htmls = sum(1 for d, _, f in os.walk(public) for n in f if n.endswith(".html"))
            hugo_rows.append({k: h[k] for k in ("wall", "user", "sys", "cpu", "maxrss_kb", "status")} | {
                "files": files, "html": htmls})
            log(f"hugo {tier.name}: {h['wall']:.2f} s, {htmls} HTML pages, status {h['status']}")
    # The last run's site is the one kept; the others go aside now that the timing is done.
    rmtree(out)
    shutil.move(str(sites[-1]), out)
    for old in sites[:-1] + publics:
        rmtree(old)
    # A rebuild with nothing changed: every page rendered again, none written.
    noop = run_timed(build_command(ctx.bins, tier.store, out), label="bbsarchive build (no change)")
    files = sum(len(f) for _, _, f in os.walk(out))
    report = rows[-1]["report"] or {}
    wall = stats([row["wall"] for row in rows])
    result = {
        "tier": tier.name, "posts": tier.posts, "threads": tier.meta["truth"]["threads"],
        "boards": tier.meta["truth"]["boards"], "runs": rows, "wall": wall,
        "cpu": stats([row["cpu"] for row in rows]),
        "maxrss_kb": max(row["maxrss_kb"] or 0 for row in rows),
        "pages": report.get("pages"), "markdown": report.get("markdown"), "filesWritten": report.get("written"),
        "filesInSite": files,
        "noopRebuild": {k: noop[k] for k in ("wall", "user", "sys", "cpu", "maxrss_kb")} | {
            "report": built_report(noop["stderr"])},
        "store": rel(tier.store), "out": rel(out),
        "command": "/usr/bin/time -v " + shell_join(
            [".build/release/bbsarchive", "build", "--store", rel(tier.store), "--out", "site"]),
    }
    if report.get("pages"):
        result["pagesPerSecond"] = report["pages"] / wall["median"]
    if report.get("written"):
        result["filesPerSecond"] = report["written"] / wall["median"]
    if hugo:
        hw = stats([row["wall"] for row in hugo_rows if row["status"] == 0])
        result["hugo"] = {
            "export": export, "runs": hugo_rows, "wall": hw,
            "maxrss_kb": max(row["maxrss_kb"] or 0 for row in hugo_rows),
            "html": hugo_rows[-1]["html"], "files": hugo_rows[-1]["files"],
            "ratio": wall["median"] / hw["median"] if hw else None,
            "command": f".build/release/bbsarchive-bench hugo-export --store {rel(tier.store)} --site site "
                       f"--dest hugo-site && /usr/bin/time -v "
                       + shell_join(hugo_command("hugo-site", "public")).replace("'$PWD/public'", '"$PWD/public"'),
        }
    return result


def hugo_command(site, public):
    # --destination is taken relative to --source unless it is absolute.
    public = Path(public)
    return ["hugo", "--quiet", "--buildFuture", "--source", str(site), "--destination",
            str(public.resolve()) if public.is_absolute() else f"$PWD/{public}"]


# MARK: - 4. Incremental


class ReplyProxy:
    """Sits in front of the replica and, once `replies` > 0, serves one thread
    with that many new replies at its end: the thread's page gains the posts,
    its board list row shows the new count and last reply and moves to the top
    (below the sticky rows), as on the real forum. Every other page passes
    through unchanged. It keeps connections (HTTP/1.1) as a forum does."""

    def __init__(self, port, upstream_port, board, target):
        self.upstream_port = upstream_port
        self.board = board
        self.target = target
        self.replies = 0
        # Each list page the replica answered with 200, by path: asked
        # again, it is served from here. The replica serves the same bytes
        # for a path every time (`--seed`, `--now`, `--cached-boards`), so
        # bbsarchive reads the same pages; but building a list page again
        # cost the replica about 0.6 ms of CPU, and the replica and this
        # proxy together took about 23 ms of CPU an update (12.5 + 10.6, 20
        # list pages and a thread), a third of the two cores the update
        # itself runs on, which a forum's own servers never take from an
        # archivist. List pages only: they are what every update asks for
        # again, and a refresh through the proxy (the store's port taken)
        # fetches every thread once, which kept would be the whole forum.
        self.pages = {}
        self.pages_lock = threading.Lock()
        # CPU seconds this proxy's threads spent on requests, for the report.
        self.cpu = 0.0
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            # HTTP/1.1 both ways, as a real forum: the client's connection is
            # kept between requests (each answer has its Content-Length), and
            # each client connection keeps one connection to the replica.
            # Before, a new connection each way per request (HTTP/1.0) timed
            # Python's connection set-up, not the fetch.
            protocol_version = "HTTP/1.1"
            # Headers and body go out as two writes: without TCP_NODELAY the
            # second waits for the client's delayed ACK (40 ms a request).
            disable_nagle_algorithm = True
            upstream = None

            def forward(self):
                if self.upstream is None:
                    self.upstream = http.client.HTTPConnection("127.0.0.1", proxy.upstream_port, timeout=120)
                self.upstream.request("GET", self.path)
                response = self.upstream.getresponse()
                body = response.read()
                if response.will_close:
                    self.drop_upstream()
                return response.status, response.getheader("Content-Type", "text/html; charset=utf-8"), body

            def drop_upstream(self):
                if self.upstream is not None:
                    self.upstream.close()
                    self.upstream = None

            def do_GET(self):
                with proxy.pages_lock:
                    kept = proxy.pages.get(self.path)
                if kept is not None:
                    status, content_type, body = kept
                else:
                    try:
                        status, content_type, body = self.forward()
                    except (http.client.HTTPException, OSError):
                        # The replica closed a kept connection: once more on a new one.
                        self.drop_upstream()
                        status, content_type, body = self.forward()
                    if status == 200 and self.path.startswith("/board/"):
                        with proxy.pages_lock:
                            proxy.pages[self.path] = (status, content_type, body)
                if proxy.replies > 0 and status == 200:
                    body = proxy.rewrite(self.path, body)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def handle_one_request(self):
                # The thread's CPU, not the wall: waiting for the next
                # request on a kept connection costs none.
                started = time.thread_time()
                try:
                    super().handle_one_request()
                finally:
                    spent = time.thread_time() - started
                    with proxy.pages_lock:
                        proxy.cpu += spent

            def finish(self):
                super().finish()
                self.drop_upstream()

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            allow_reuse_address = True
            daemon_threads = True
            # The listen backlog (socketserver's default is 5): with
            # `--connections 8` the connects past the fifth were dropped and
            # retried a second later, and a fetch with nothing new at 100k
            # took 850 ms; with a backlog of 64 or 128, 39-48 ms.
            request_queue_size = 128

        self.server = Server(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def new_posts(self):
        t = self.target
        posts = []
        for k in range(1, self.replies + 1):
            when = t["lastTime"] + dt.timedelta(minutes=10 * k)
            posts.append({"floor": t["lastFloor"] + k, "author": t["starter"], "time": when})
        return posts

    def rewrite(self, path, body):
        parsed = urllib.parse.urlsplit(path)
        query = urllib.parse.parse_qs(parsed.query)
        page = query.get("p", ["1"])[0]
        b, gid = self.board, self.target["gid"]
        if parsed.path == f"/board/{b}" and page in ("1", "0", ""):
            return self.rewrite_board(body)
        if parsed.path == f"/article/{b}/{gid}" and "au" not in query:
            return self.rewrite_thread(body)
        return body

    def rewrite_board(self, body):
        text = body.decode("utf-8")
        start = text.index('<ul class="list sec">') + len('<ul class="list sec">')
        end = text.index("</ul>", start)
        rows = re.findall(r"<li(?: class=\"hla\")?>.*?</li>", text[start:end])
        b, gid = self.board, self.target["gid"]
        index = next((i for i, row in enumerate(rows) if f'href="/article/{b}/{gid}"' in row), None)
        if index is None:
            return body
        row = rows.pop(index)
        last = self.new_posts()[-1]
        row = re.sub(r"</a>\((\d+)\)</div>", lambda m: f"</a>({int(m.group(1)) + self.replies})</div>", row, count=1)
        head, _ = row.rsplit("|", 1)
        author = last["author"]
        row = (head + "|" + last["time"].strftime("%Y-%m-%d") + f'&nbsp;<a href="/user/query/{author}">'
               f"{author}</a></div></li>")
        sticky = sum(1 for r in rows if 'class="top"' in r)
        rows.insert(sticky, row)
        rows = [re.sub(r"^<li(?: class=\"hla\")?>", "<li>" if i % 2 == 0 else '<li class="hla">', r)
                for i, r in enumerate(rows)]
        return (text[:start] + "".join(rows) + text[end:]).encode("utf-8")

    def rewrite_thread(self, body):
        text = body.decode("utf-8")
        start = text.index('<ul class="list sec">')
        end = text.index("</ul>", start)
        b, gid = self.board, self.target["gid"]
        existing = text.count('<div class="nav hl">', start, end)
        items = []
        for k, post in enumerate(self.new_posts()):
            cls = "<li>" if (existing + k) % 2 == 0 else '<li class="hla">'
            a = post["author"]
            items.append(
                f'{cls}<a name="a{post["floor"]}"></a><div class="nav hl"><div><a class="plant">{post["floor"]}楼</a>|'
                f'<a href="/user/query/{a}">{a}</a>|<a class="plant">{post["time"].strftime("%Y-%m-%d %H:%M:%S")}'
                f'</a>|<a href="/article/{b}/{gid}?au={a}">只看此ID</a></div></div><div class="sp">'
                f'make bench: new reply {post["floor"]}<br />FROM 127.0.0.*</div></li>')
        return (text[:end] + "".join(items) + text[end:]).encode("utf-8")


def pick_target(url, board, room):
    """A thread on the first list page of `board`, not sticky, whose single
    page has room for `room` more posts."""

    def get(path):
        with urllib.request.urlopen(url + path, timeout=60) as r:
            return r.read().decode("utf-8")

    listing = get(f"/board/{board}?p=1")
    for row in re.findall(r"<li(?: class=\"hla\")?>.*?</li>", listing):
        m = re.search(rf'href="/article/{re.escape(board)}/(\d+)"( class="top")?>.*?</a>\((\d+)\)', row)
        if not m or m.group(2) or "原帖已删除" in row:
            continue
        gid, replies = int(m.group(1)), int(m.group(3))
        if replies + 1 + room > 10:
            continue
        page = get(f"/article/{board}/{gid}?p=1")
        if '<a class="plant">1/1</a>' not in page:
            continue
        floors = re.findall(r'<a class="plant">(楼主|\d+楼)</a>', page)
        times = re.findall(r'<a class="plant">(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)</a>', page)
        starter = re.search(r'<div class="nav hl"><div><a class="plant">[^<]*</a>\|<a href="/user/query/([^"]+)"',
                            page)
        if not floors or not times or not starter:
            continue
        last_floor = 0 if floors[-1] == "楼主" else int(floors[-1][:-1])
        return {"gid": gid, "replies": replies, "lastFloor": last_floor, "starter": starter.group(1),
                "lastTime": dt.datetime.strptime(times[-1], "%Y-%m-%d %H:%M:%S")}
    raise BenchFailure(f"no thread on the first page of {board} has room for {room} more replies")


def categorize(paths, board, gid, author):
    kinds = {}
    for p in paths:
        if p.startswith(f"board/{board}/{gid}"):
            kind = "thread"
        elif p.startswith((f"board/{board}/index", f"board/{board}/page-", f"board/{board}/list-")):
            kind = "board list"
        elif p.startswith(f"user/{author}.") or p.startswith(f"user/{author}-"):
            kind = "replier's user page"
        elif p in ("index.html", "index.md"):
            kind = "home"
        elif p == "feed.xml" or p == f"board/{board}/feed.xml":
            kind = "feeds"
        elif p.startswith("section/"):
            kind = "section page"
        elif p.startswith("hot"):
            kind = "hot pages"
        elif p.startswith("search/"):
            kind = "search index"
        elif p == ".bbsarchive-build.json":
            kind = "build state"
        else:
            kind = "other"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def bench_incremental(ctx, tier, build):
    folder = ctx.work / "incremental"
    rmtree(folder)
    folder.mkdir(parents=True)
    store = folder / "store.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if Path(str(tier.store) + suffix).exists():
            shutil.copy2(str(tier.store) + suffix, str(store) + suffix)
    out = folder / "site"
    shutil.move(str(ROOT / build["out"]), out)  # the last full build of this store
    # The copy's 240 MB (at 100k) are still dirty in the page cache: without
    # this, the first fetch's first fdatasync of the store wrote them all
    # back, and the no-change fetch was timed at 1.06 s instead of ~0.1 s.
    os.sync()
    boards = tier.meta["boards"]
    board = boards[0]
    runs = ctx.runs
    port = tier.meta["port"]
    refreshed = False
    if not port_is_free(port):
        port = 0
        refreshed = True
    # Every board kept generated: past about 16,000 threads (the 1M tier's
    # 100 boards of 1,432) the replica otherwise generates a board again for
    # each list page asked for, 60 ms of both cores each, and the fetch with
    # nothing new timed that (6.8 s at 1M for 0.11 s of bbsarchive's CPU).
    cached = ["--cached-boards", str(len(boards))]
    with Replica(ctx.bins, tier.shape, extra=cached) as replica:
        target = pick_target(replica.url, board, runs + RESIDENT_UPDATES)
        # The replica builds each board the first time it is asked for one
        # of its pages: 20 cold list pages took 3.1 s, warm 0.5 s (one curl
        # each). Unwarmed, the no-change fetch timed that: 0.76 s wall for
        # 0.07 s of CPU.
        for other in boards:
            with urllib.request.urlopen(f"{replica.url}/board/{other}?p=1", timeout=120) as r:
                r.read()
        upstream = int(replica.url.rsplit(":", 1)[1])
        proxy = ReplyProxy(port, upstream, board, target)
        try:
            binary = ctx.bins.static or ctx.bins.bbsarchive
            fetch_cmd = [binary, "fetch", *boards, "--forum-url", proxy.url, "--store", store, "--rate",
                         "0", "--connections", "4"]
            build_cmd = [binary] + build_command(ctx.bins, store, out)[1:]

            def update(label):
                before = snapshot(out)
                f = run_timed(fetch_cmd, label=f"bbsarchive fetch ({label})")
                b = run_timed(build_cmd, label=f"bbsarchive build ({label})")
                changed = changed_files(before, snapshot(out))
                return {"fetch": {k: f[k] for k in ("wall", "cpu", "maxrss_kb")} | {"report": fetched_report(f["stderr"])},
                        "build": {k: b[k] for k in ("wall", "cpu", "maxrss_kb")} | {"report": built_report(b["stderr"])},
                        "total": f["wall"] + b["wall"], "changed": len(changed), "changedFiles": changed[:40],
                        "kinds": categorize(changed, board, target["gid"], target["starter"])}

            if refreshed:
                log("incremental: the store's forum port is taken; refreshing the archive through the proxy first")
                update("refresh")
            nochange = update("no change")
            log(f"incremental: no change: fetch {nochange['fetch']['wall']:.2f} s + build "
                f"{nochange['build']['wall']:.2f} s, {nochange['changed']} files changed")
            replies = []
            for k in range(1, runs + 1):
                proxy.replies = k
                r = update(f"reply {k}")
                replies.append(r)
                log(f"incremental: reply {k}: fetch {r['fetch']['wall']:.2f} s + build {r['build']['wall']:.2f} s, "
                    f"{r['changed']} files changed {r['kinds']}")
            resident = resident_updates(binary, boards, proxy, store, out, ctx.bins.templates, RESIDENT_UPDATES,
                                        board, target, replica_cpu=lambda: process_cpu(replica.proc.pid))
        finally:
            proxy.close()
    full = build["wall"]["median"]
    total = stats([r["total"] for r in replies])
    return {
        "tier": tier.name, "posts": tier.posts, "board": board, "thread": target["gid"], "cachedBoards": len(boards),
        "threadRepliesBefore": target["replies"], "refreshedFirst": refreshed,
        "binary": rel(binary), "staticBinary": ctx.bins.static is not None,
        "noChange": nochange, "replies": replies,
        "fetch": stats([r["fetch"]["wall"] for r in replies]),
        "build": stats([r["build"]["wall"] for r in replies]),
        "total": total, "changed": stats([r["changed"] for r in replies]),
        "threadsFetched": [((r["fetch"]["report"] or {}).get("threads")) for r in replies],
        "filesInSite": sum(len(f) for _, _, f in os.walk(out)),
        "fullBuild": full, "fractionOfFullBuild": total["median"] / full,
        "resident": resident | {"fractionOfFullBuild": resident["total"]["median"] / full},
        "buildFractionOfFullBuild": stats([r["build"]["wall"] for r in replies])["median"] / full,
        "commands": {
            "setup": f"copy {build['store']} to store.sqlite and its full build to site/; serve the replica behind "
                     f"the reply proxy of scripts/bench/bench.py (ReplyProxy) at the store's forum address",
            "update": shell_join([rel(binary), "fetch", *boards, "--forum-url", "$PROXY", "--store",
                                  "store.sqlite", "--rate", "0", "--connections", "4"])
                      + " && " + shell_join([rel(binary), "build", "--store", "store.sqlite", "--out", "site"]),
        },
        "out": rel(out), "store": rel(store),
    }


# Replies timed in a running `archive --every`: more than the runs of
# `fetch` then `build`, since its first updates still warm it up (at 100k,
# 63, 51, then 38-48 ms), as a process that runs for days is warm. With
# the runs, as many as the target thread's one page has room for
# (`pick_target`: 10 posts).
RESIDENT_UPDATES = 5


def process_cpu(pid):
    """User + system CPU seconds of process `pid` so far (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_updates(binary, boards, proxy, store, out, templates, runs, board, target, replica_cpu=lambda: None):
    """The same updates in one running `bbsarchive archive --every`, which
    keeps the store, the templates and its connections open between them:
    the times are those of its JSON log's `update` events (it times each
    update itself). Its first update finds nothing new (the process starts,
    opens everything and fetches); before each later one the proxy adds one
    more reply. The interval leaves time to snapshot the site between two
    updates (three times a snapshot, and 2 s more)."""
    started = time.monotonic()
    snapshot(out)
    interval = max(3, int((time.monotonic() - started) * 3) + 2)
    cmd = [binary, "archive", *boards, "--every", f"{interval}s", "--forum-url", proxy.url, "--store", store,
           "--out", out, "--templates", templates, "--rate", "0", "--connections", "4", "--log-format", "json"]
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    events = queue.Queue()

    def read():
        for line in proc.stderr:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "update":
                events.put(event)
        events.put(None)

    threading.Thread(target=read, daemon=True).start()

    def next_update():
        try:
            event = events.get(timeout=interval + 300)
        except queue.Empty:
            event = None
        if event is None:
            raise BenchFailure(f"archive --every gave no update event (exit {proc.poll()}): {shell_join(cmd)}")
        return event

    def status_kb(field):
        try:
            with open(f"/proc/{proc.pid}/status") as status:
                for line in status:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    first = proxy.replies
    updates = []
    try:
        startup = next_update()
        # What serving the updates cost the harness, beside them on the same cores.
        harness_before = (proxy.cpu, replica_cpu())
        for k in range(1, runs + 1):
            proxy.replies = first + k
            before = snapshot(out)
            event = next_update()
            changed = changed_files(before, snapshot(out))
            update = {"fetch": event["fetchSeconds"], "build": event["buildSeconds"],
                      "total": event["fetchSeconds"] + event["buildSeconds"], "threads": event.get("threadsFetched"),
                      "written": event.get("filesWritten"), "changed": len(changed),
                      "kinds": categorize(changed, board, target["gid"], target["starter"]),
                      "rss_kb": status_kb("VmRSS")}
            updates.append(update)
            log(f"incremental: archive --every, reply {first + k}: fetch {update['fetch']:.3f} s + build "
                f"{update['build']:.3f} s, {update['changed']} files changed, RSS {update['rss_kb']} kB")
        peak = status_kb("VmHWM")
        replica_after = replica_cpu()
        harness = {"proxyCpuPerUpdate": (proxy.cpu - harness_before[0]) / runs,
                   "replicaCpuPerUpdate": (replica_after - harness_before[1]) / runs
                   if replica_after is not None and harness_before[1] is not None else None}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return {"interval": interval, "startup": {"fetch": startup["fetchSeconds"], "build": startup["buildSeconds"]},
            "updates": updates, "fetch": stats([u["fetch"] for u in updates]),
            "build": stats([u["build"] for u in updates]), "total": stats([u["total"] for u in updates]),
            "changed": stats([u["changed"] for u in updates]), "threadsFetched": [u["threads"] for u in updates],
            "peak_rss_kb": peak, "harness": harness, "proxyKeepsPages": True,
            "command": shell_join([rel(binary), "archive", *boards, "--every", f"{interval}s", "--forum-url", "$PROXY",
                                   "--store", "store.sqlite", "--out", "site", "--rate", "0", "--connections", "4",
                                   "--log-format", "json"])}


# MARK: - 6. Size


def bench_size(tier, site):
    kinds = tree_size(site)
    store = store_size(tier.store)
    per = 1000 / tier.posts
    total = {"bytes": sum(k["bytes"] for k in kinds.values()) + store["bytes"],
             "disk": sum(k["disk"] for k in kinds.values()) + store["disk"]}
    return {"tier": tier.name, "posts": tier.posts, "site": kinds, "store": store, "total": total,
            "perThousandPosts": {
                **{k: {"bytes": v["bytes"] * per, "disk": v["disk"] * per} for k, v in kinds.items()},
                "store": {"bytes": store["bytes"] * per, "disk": store["disk"] * per},
                "total": {"bytes": total["bytes"] * per, "disk": total["disk"] * per}},
            "command": f"du -sb {rel(site)} {rel(tier.store)}   # and du -s for blocks on disk"}


# MARK: - 6. Search (scripts/bench/search_bench.py)

SEARCH_QUERIES = int(os.environ.get("BENCH_SEARCH_QUERIES") or 40)


def bench_search(ctx, tier, build):
    """bbsarchive's search beside Pagefind's on the tier's built site; see search_bench.py."""
    sys.path.insert(0, str(Path(__file__).parent))
    import search_bench  # noqa: E402

    log(f"search {tier.name}: bbsarchive and Pagefind, {SEARCH_QUERIES} queries of each kind")
    after_last_delete()
    try:
        result = search_bench.measure(
            ROOT / build["out"], tier.store, ctx.bins.bbsarchive, ctx.bins.bench, ctx.work / "search",
            per_kind=SEARCH_QUERIES, build={"wall": build["wall"]["median"], "maxrss_kb": build["maxrss_kb"]},
            discard=rmtree)
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        raise BenchFailure(f"search bench: {e}")
    # The same measures on a copy of the store with a real vocabulary (see search_bench.py).
    try:
        result["realVocabulary"] = search_bench.measure_real_vocabulary(
            tier.store, ctx.bins.bbsarchive, ctx.bins.bench, ctx.work / "search", per_kind=SEARCH_QUERIES,
            discard=rmtree)
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        raise BenchFailure(f"search bench, real vocabulary: {e}")
    result.update({"tier": tier.name, "config": os.environ.get("BENCH_CONFIG", "release"),
                   "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                   "loadavg": loadavg(), "commit": ctx_commit(),
                   "command": f"BENCH_RUNS=1 python3 scripts/bench/bench.py --scale {ctx.scale_name} --only search"})
    result["site"] = rel(result["site"])
    return result


def ctx_commit():
    out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or None


# MARK: - The run


class Context:
    def __init__(self, scale_name, only):
        self.scale_name = scale_name
        self.scale = SCALES[scale_name]
        self.runs = int(os.environ.get("BENCH_RUNS") or self.scale["runs"])
        self.only = only
        self.bins = Binaries()
        self.work = WORK / scale_name

    def wants(self, name):
        return name in self.only


def run(ctx):
    started = time.monotonic()
    rmtree(ctx.work)
    ctx.work.mkdir(parents=True)
    result = {"scale": ctx.scale_name, "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "machine": machine(), "runs": ctx.runs, "replicaNow": NOW, "replicaSeed": SEED,
              "benchmarks": sorted(ctx.only, key=BENCHES.index), "loadavg": {"start": loadavg()}}
    log(f"scale {ctx.scale_name}, {ctx.runs} runs each, load {loadavg()}")

    # The fetch forum: fetch and parse benchmarks, and the smallest build tier.
    shape = ctx.scale["fetch_forum"]
    tiers = {}
    port = free_port()
    with Replica(ctx.bins, shape, port=port) as replica:
        boards = replica.boards()
        truth = replica.truth()
        log(f"fetch forum: {truth['posts']} posts, {truth['threads']} threads on {len(boards)} boards")
        if ctx.wants("parse"):
            result["loadavg"]["parse"] = loadavg()
            result["parse"] = bench_parse(ctx, replica.url, boards)
        store = None
        needs_fetch_store = ctx.wants("fetch") or any(ctx.wants(b) for b in NEEDS_SITE if b != "search") or (
            ctx.wants("search") and ctx.scale["search_tier"] == "fetch")
        if ctx.wants("fetch"):
            result["loadavg"]["fetch"] = loadavg()
            result["fetch"], store = bench_fetch(ctx, replica, boards, truth)
        elif needs_fetch_store:
            store = ctx.work / "fetch" / "fetch.sqlite"
            store.parent.mkdir(parents=True, exist_ok=True)
            run_timed([ctx.bins.bbsarchive, "fetch", *boards, "--forum-url", replica.url, "--store", store,
                       "--rate", "0", "--quiet"], label="bbsarchive fetch")
        if store:
            tiers["fetch"] = Tier(f"{truth['posts'] // 1000}k" if truth["posts"] >= 5000 else str(truth["posts"]),
                                  shape, store, {"url": replica.url, "port": port, "boards": boards, "truth": truth})

    if any(ctx.wants(b) for b in NEEDS_SITE):
        # `--only search` builds only the tier it searches.
        search_only = not any(ctx.wants(b) for b in NEEDS_SITE if b != "search")
        for name, tier_shape in ctx.scale["tiers"]:
            if not search_only or name == ctx.scale["search_tier"]:
                tiers[name] = tier_store(ctx, name, tier_shape)
                # A cached store that this bbsarchive has not opened yet gets
                # its migrations here (`status` applies them), so no timed run
                # pays for one (`status` on a copy of the 100k store read
                # 41,116 pages from the file with v14's migration, 27,658 after).
                run_timed([ctx.bins.bbsarchive, "status", "--store", tiers[name].store], label="bbsarchive status")
        result["tiers"] = {t.name: {"posts": t.posts, "threads": t.meta["truth"]["threads"],
                                    "boards": t.meta["truth"]["boards"], "store": rel(t.store),
                                    "replica": replica_command_text(t.shape),
                                    "fetch": t.meta.get("fetch"), "requests": t.meta.get("requests")}
                           for t in tiers.values()}
        builds = {}
        result["build"] = []
        if ctx.wants("hugo"):
            result["hugoSkipped"] = [t.name for k, t in tiers.items() if k not in ctx.scale["hugo_tiers"]]
        for key, tier in tiers.items():
            result["loadavg"][f"build-{tier.name}"] = loadavg()
            hugo = ctx.wants("hugo") and key in ctx.scale["hugo_tiers"]
            if key in ctx.scale.get("empty_trash_before", []):
                empty_trash()
            builds[key] = bench_build(ctx, tier, hugo)
            result["build"].append(builds[key])
        if ctx.wants("size"):
            result["size"] = [bench_size(tier, ROOT / builds[key]["out"]) for key, tier in tiers.items()]
        if ctx.wants("search"):
            key = ctx.scale["search_tier"]
            result["loadavg"]["search"] = loadavg()
            result["search"] = bench_search(ctx, tiers[key], builds[key])
        if ctx.wants("incremental"):
            key = ctx.scale["incremental_tier"]
            result["loadavg"]["incremental"] = loadavg()
            result["incremental"] = bench_incremental(ctx, tiers[key], builds[key])
    result["loadavg"]["end"] = loadavg()
    result["seconds"] = time.monotonic() - started
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", default=os.environ.get("BENCH_SCALE") or "default", choices=sorted(SCALES))
    parser.add_argument("--only", default=",".join(BENCHES), help="comma-separated: " + ",".join(BENCHES))
    parser.add_argument("--report-only", action="store_true", help="only regenerate BENCHMARKS.md from the JSON")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    import report  # noqa: E402  (scripts/bench/report.py)

    if not args.report_only:
        only = [b.strip() for b in args.only.split(",") if b.strip()]
        unknown = [b for b in only if b not in BENCHES]
        if unknown:
            parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
        try:
            ctx = Context(args.scale, only)
            result = run(ctx)
        except BenchFailure as e:
            log(f"failed: {e}")
            return 1
        finally:
            empty_trash()
        RESULTS.mkdir(exist_ok=True)
        path = RESULTS / f"{args.scale}.json"
        # When and at which commit each benchmark's figures were taken: a
        # partial run keeps the other benchmarks' figures from earlier runs.
        result["measured"] = {b: {"date": result["date"], "commit": result["machine"].get("commit")} for b in only}
        if set(only) != set(BENCHES) and path.exists():
            # A partial run replaces only its own figures in the scale's file.
            try:
                old = json.loads(path.read_text())
                for key in only:
                    if key in result:
                        old[key] = result[key]
                old["benchmarks"] = [b for b in BENCHES if b in set(old.get("benchmarks", [])) | set(only)]
                old.setdefault("loadavg", {}).update({k: v for k, v in result["loadavg"].items()
                                                      if k not in ("start", "end")})
                old["seconds"] = old.get("seconds", 0)
                old.setdefault("measured", {}).update(result["measured"])
                log(f"partial run ({', '.join(only)}): {result['seconds']:.0f} s")
                result = old
            except (OSError, ValueError):
                pass
        path.write_text(json.dumps(result, indent=1, ensure_ascii=False, default=str) + "\n")
        log(f"raw figures: {rel(path)} ({result['seconds']:.0f} s)")
    REPORT.write_text(report.render(RESULTS))
    log(f"table: {rel(REPORT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
