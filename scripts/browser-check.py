#!/usr/bin/env python3
"""Loads pages of a built archive in headless Chromium and reports on them.

Drives Debian's `chromium` over the DevTools protocol on a pipe
(--remote-debugging-pipe), so it needs nothing but the Python standard
library and the browser. For every page, width and colour scheme it
records console errors, uncaught exceptions and failed loads, whether the
page scrolls sideways, the page background, and optionally a screenshot.
It can also evaluate expressions on a page (the tests use that for the
lookup page's resolver and the image viewer).

    browser-check.py --site site --page index.html --page board/X/index.html \
        --widths 390,820,1440 --schemes light,dark [--screenshots DIR] \
        [--probe PAGE EXPRESSION]... [--probe-every PAGE EXPRESSION]... [--sweep PAGE]...

Any JavaScript dialog (`alert`, `confirm`, `prompt`) a page opens is
dismissed and reported as a problem: the hostile board's payloads call
`alert`, so a dialog means script from the forum ran. `--sweep PAGE` loads
PAGE, then clicks every link on it in turn (each distinct address once,
reloading PAGE after each), and reports dialogs and errors of the page and
of wherever the click led; links that leave the archive for another http(s)
host are counted, not followed.

Prints one JSON object (see `main`). Exits 0 when every load finished,
2 on a usage error, 3 when the browser could not be started or hung.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class BrowserError(Exception):
    pass


class Chromium:
    """One headless Chromium talking DevTools protocol over fds 3 and 4."""

    def __init__(self, binary, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="bbsarchive-chromium-")
        to_child_read, self.to_child = os.pipe()
        self.from_child, from_child_write = os.pipe()

        def place_pipes():
            # Chromium reads commands on fd 3 and writes replies on fd 4. Move
            # both ends out of the way first (either may already be 3 or 4),
            # and make them inheritable: Python opens pipes close-on-exec.
            high_read = os.dup(to_child_read)
            high_write = os.dup(from_child_write)
            os.dup2(high_read, 3, inheritable=True)
            os.dup2(high_write, 4, inheritable=True)

        arguments = [
            binary, "--headless", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
            "--disable-gpu", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--hide-scrollbars", "--mute-audio", "--allow-file-access-from-files", "--disable-dev-shm-usage",
            "--user-data-dir=" + self.profile, "about:blank",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            arguments.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox.
        self.log = open(os.path.join(self.profile, "chromium.log"), "wb")
        self.process = subprocess.Popen(
            arguments, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            preexec_fn=place_pipes, close_fds=False)
        os.close(to_child_read)
        os.close(from_child_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except BrowserError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def log_tail(self):
        try:
            with open(self.log.name, "rb") as log:
                return log.read()[-600:].decode(errors="replace").strip()
        except OSError:
            return ""

    def _read_message(self, deadline):
        import select
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BrowserError("timed out waiting for Chromium")
            ready, _, _ = select.select([self.from_child], [], [], min(remaining, 1.0))
            if not ready:
                if self.process.poll() is not None:
                    raise BrowserError("Chromium exited with status %s" % self.process.returncode)
                continue
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise BrowserError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            os.write(self.to_child, json.dumps(message).encode() + b"\0")
        except OSError as error:
            raise BrowserError("cannot talk to Chromium (%s); its log: %s" % (error, self.log_tail()))
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise BrowserError("%s failed: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.note(reply)

    def note(self, event):
        """Keeps an event; a JavaScript dialog is dismissed at once (it would block the page)."""
        self.events.append(event)
        if event.get("method") == "Page.javascriptDialogOpening":
            self.next_id += 1
            message = {"id": self.next_id, "method": "Page.handleJavaScriptDialog",
                       "params": {"accept": False}, "sessionId": event.get("sessionId")}
            os.write(self.to_child, json.dumps(message).encode() + b"\0")

    def wait_for(self, method, session, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self.events[index]
                    return event
            self.note(self._read_message(deadline))

    def drain(self, seconds):
        """Collects events that arrive within `seconds`."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.note(self._read_message(deadline))
        except BrowserError as error:
            if "timed out" not in str(error):
                raise


def problems_in(events, session):
    """Console errors, exceptions and failed loads among the collected events."""
    found = []
    for event in events:
        if event.get("sessionId") != session:
            continue
        method = event.get("method")
        params = event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "exception")
            found.append("exception: %s (%s:%s)" % (text, details.get("url", ""), details.get("lineNumber", "")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            values = [str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])]
            found.append("console.%s: %s" % (params.get("type"), " ".join(values)))
        elif method == "Page.javascriptDialogOpening":
            found.append("dialog (script ran): %s %s" % (params.get("type", ""), params.get("message", "")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            found.append("log: %s %s" % (entry.get("text", ""), entry.get("url", "")))
    return found


def evaluate(browser, session, expression):
    result = browser.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session)
    if "exceptionDetails" in result:
        details = result["exceptionDetails"]
        return {"error": details.get("exception", {}).get("description") or details.get("text")}
    return {"value": result.get("result", {}).get("value")}


def load(browser, session, url, width, scheme, height):
    browser.send("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, session)
    browser.send("Emulation.setEmulatedMedia", {
        "media": "screen", "features": [{"name": "prefers-color-scheme", "value": scheme}]}, session)
    if "#" in url:
        # Only the fragment would differ from the page already there: a
        # navigation within the document fires no load event. Leave it first.
        browser.send("Page.navigate", {"url": "about:blank"}, session)
        browser.wait_for("Page.loadEventFired", session)
    browser.events = [e for e in browser.events if e.get("sessionId") != session]
    browser.send("Page.navigate", {"url": url}, session)
    browser.wait_for("Page.loadEventFired", session)
    # Let deferred scripts, lazy images near the top and fonts settle.
    evaluate(browser, session, "document.fonts ? document.fonts.ready.then(() => true) : true")
    browser.drain(0.3)


# What a page's markup allows to run: inline scripts, event-handler
# attributes, scripts from elsewhere, javascript: addresses.
ACTIVE_MARKUP = """({
    inlineScripts: [...document.querySelectorAll('script:not([src])')].filter(s => s.textContent.trim()).length,
    handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]
      .filter(a => a.name.toLowerCase().startsWith('on')).map(a => e.tagName + '[' + a.name + ']')),
    foreignScripts: [...document.scripts].filter(s => s.src && !s.src.startsWith(location.protocol)
      ).map(s => s.src),
    scriptLinks: [...document.querySelectorAll('[href],[src],[action],[formaction]')].flatMap(e =>
      ['href', 'src', 'action', 'formaction'].map(n => e.getAttribute(n)).filter(v => v !== null))
      .filter(v => /^\\s*(javascript|data|vbscript):/i.test(v))
})"""


def sweep(browser, session, site, page, height):
    """Clicks every link on `page`, each distinct address once."""
    url = (site / page).as_uri()
    load(browser, session, url, 1440, "light", height)
    result = {"page": page, "clicked": 0, "external": 0, "problems": problems_in(browser.events, session)}
    active = evaluate(browser, session, ACTIVE_MARKUP).get("value") or {}
    result.update(active)
    links = evaluate(browser, session, "[...document.querySelectorAll('a[href]')].map(a => a.href)").get("value") or []
    seen = set()
    for index, href in enumerate(links):
        if href in seen:
            continue
        seen.add(href)
        if href.startswith("http:") or href.startswith("https:"):
            result["external"] += 1
            continue
        load(browser, session, url, 1440, "light", height)
        evaluate(browser, session, """(() => {
            const a = document.querySelectorAll('a[href]')[%d];
            if (!a) return false;
            a.removeAttribute('target');
            a.click();
            return true;
        })()""" % index)
        browser.drain(0.4)
        where = evaluate(browser, session, "location.href").get("value")
        landed = evaluate(browser, session, ACTIVE_MARKUP).get("value") or {}
        problems = problems_in(browser.events, session)
        for key in ("inlineScripts", "handlers", "foreignScripts", "scriptLinks"):
            if landed.get(key):
                problems.append("%s after clicking %s: %s" % (key, href, landed.get(key)))
        result["problems"] += ["%s -> %s: %s" % (href, where, p) for p in problems]
        result["clicked"] += 1
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", required=True, help="the built archive folder")
    parser.add_argument("--page", action="append", default=[], help="a page, relative to the site (repeatable)")
    parser.add_argument("--widths", default="390,820,1440")
    parser.add_argument("--schemes", default="light,dark")
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--screenshots", help="write full-page PNGs into this folder")
    parser.add_argument("--max-shot-height", type=int, default=4000)
    parser.add_argument("--probe", nargs=2, action="append", default=[], metavar=("PAGE", "EXPRESSION"),
                        help="evaluate EXPRESSION on PAGE (light, first width) and report its value")
    parser.add_argument("--probe-every", nargs=2, action="append", default=[], metavar=("PAGE", "EXPRESSION"),
                        help="evaluate EXPRESSION on PAGE at every width and scheme (reported with them)")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--base", help="load probes from this http(s) address of the site instead of file://")
    parser.add_argument("--probe-everywhere", action="store_true",
                        help="evaluate every probe at every width in every scheme, not only light at the first width")
    parser.add_argument("--sweep", action="append", default=[], metavar="PAGE",
                        help="click every link on PAGE and report what ran (repeatable)")
    args = parser.parse_args()

    site = Path(args.site).resolve()
    binary = shutil.which(args.chromium)
    if not binary:
        print(json.dumps({"fatal": "no %s on PATH: run `make setup` (it installs Debian's chromium)" % args.chromium}))
        return 3
    widths = [int(w) for w in args.widths.split(",") if w]
    schemes = [s for s in args.schemes.split(",") if s]
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)

    report = {"loads": [], "probes": [], "sweeps": []}
    browser = None
    try:
        browser = Chromium(binary, args.timeout)
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            browser.send(domain + ".enable", {}, session)
        # File links carry `download`: a click must not write into the profile.
        browser.send("Browser.setDownloadBehavior", {"behavior": "deny"})

        for page in args.page:
            url = (site / page).as_uri()
            if not (site / page).exists():
                report["loads"].append({"page": page, "problems": ["no such file %s" % (site / page)]})
                continue
            for scheme in schemes:
                for width in widths:
                    load(browser, session, url, width, scheme, args.height)
                    facts = evaluate(browser, session, """({
                        overflow: document.documentElement.scrollWidth - window.innerWidth,
                        height: document.documentElement.scrollHeight,
                        background: getComputedStyle(document.body).backgroundColor,
                        color: getComputedStyle(document.body).color,
                        frame: (f => f ? f.getAttribute('src') || '' : null)(document.querySelector('.threadlist iframe')),
                        visible: [...document.querySelectorAll('.sidebar, .threadlist, main')]
                          .filter(e => getComputedStyle(e).display !== 'none').map(e => e.className || e.tagName),
                        brokenImages: [...document.images].filter(i => i.complete && i.getBoundingClientRect().top
                          < innerHeight && i.naturalWidth === 0).map(i => i.getAttribute('src'))
                    })""").get("value") or {}
                    entry = {"page": page, "width": width, "scheme": scheme,
                             "problems": problems_in(browser.events, session), **facts}
                    if args.sweep:
                        entry.update(evaluate(browser, session, ACTIVE_MARKUP).get("value") or {})
                    if args.screenshots:
                        # Lazy images below the fold would show as empty boxes.
                        evaluate(browser, session, """Promise.all([...document.images].map(i => {
                            i.loading = 'eager';
                            return i.complete ? true : new Promise(r => { i.onload = i.onerror = r; });
                        })).then(() => true)""")
                        name = "%s-%d-%s.png" % (page.replace("/", "_").replace(".html", ""), width, scheme)
                        height = min(max(int(facts.get("height") or args.height), args.height), args.max_shot_height)
                        shot = browser.send("Page.captureScreenshot", {
                            "format": "png", "captureBeyondViewport": True,
                            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}}, session)
                        import base64
                        path = os.path.join(args.screenshots, name)
                        with open(path, "wb") as out:
                            out.write(base64.b64decode(shot["data"]))
                        entry["screenshot"] = path
                    report["loads"].append(entry)

        for page, expression in args.probe:
            if args.base:
                url = args.base.rstrip("/") + "/" + page
            elif "?" not in page:
                url = (site / page).as_uri()
            else:
                url = (site / page.split("?")[0]).as_uri() + "?" + page.split("?", 1)[1]
            places = [(w, s) for s in schemes for w in widths] if args.probe_everywhere else [(widths[0], "light")]
            for width, scheme in places:
                load(browser, session, url, width, scheme, args.height)
                result = evaluate(browser, session, expression)
                result.update({"page": page, "expression": expression, "width": width, "scheme": scheme,
                               "problems": problems_in(browser.events, session)})
                report["probes"].append(result)
        for page, expression in args.probe_every:
            for scheme in schemes:
                for width in widths:
                    load(browser, session, (args.base.rstrip("/") + "/" + page) if args.base else (site / page).as_uri(),
                         width, scheme, args.height)
                    result = evaluate(browser, session, expression)
                    result.update({"page": page, "expression": expression, "width": width, "scheme": scheme,
                                   "problems": problems_in(browser.events, session)})
                    report["probes"].append(result)
        for page in args.sweep:
            report["sweeps"].append(sweep(browser, session, site, page, args.height))
    except BrowserError as error:
        report["fatal"] = str(error)
        print(json.dumps(report, ensure_ascii=False))
        return 3
    finally:
        if browser:
            browser.close()
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
