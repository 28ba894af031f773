"""A headless Chromium, driven over the DevTools protocol through a pipe: enough to load the built
site's pages, ask them questions in JavaScript, see what failed to load, and take screenshots.

    with Chromium() as browser:
        page = browser.open(Path("_build/html/index.html").resolve().as_uri())
        print(page.evaluate("document.title"), page.failed_requests)
        page.screenshot(Path("index.png"))

`python -m book.browser PAGE.html OUT.png` takes a screenshot of one page.
"""
from __future__ import annotations

import base64
import fcntl
import itertools
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

FLAGS = ["--headless", "--disable-gpu", "--disable-quic", "--no-first-run", "--no-default-browser-check",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if path := shutil.which(name):
            return path
    return None


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One headless browser; `open` gives a page (a tab) in it."""

    def __init__(self, executable: str | None = None, width: int = 1280, height: int = 900,
                 timeout: float = 30.0):
        executable = executable or find_chromium()
        if executable is None:
            raise BrowserError("no chromium on PATH (Debian: apt-get install chromium)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="book-chromium-")
        flags = [*FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            flags.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
        # The DevTools pipe: the browser reads commands from its fd 3 and writes replies to its fd 4.
        # posix_spawn sets them up without running Python in a forked child (unsafe once JAX's
        # threads run in this process). The pipe's ends are first moved above fd 9, so that
        # duplicating them onto 3 and 4 cannot overwrite one another.
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        ends = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)
        quiet = not os.environ.get("BOOK_BROWSER_DEBUG")
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                   *([(os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)] if quiet else []),
                   (os.POSIX_SPAWN_DUP2, ends[0], 3), (os.POSIX_SPAWN_DUP2, ends[1], 4)]
        try:
            self.pid = os.posix_spawn(executable, [executable, *flags, "about:blank"], os.environ,
                                      file_actions=actions)
        finally:
            for fd in ends:
                os.close(fd)
        self._ids = itertools.count(1)
        self._buffer = b""
        self.events: list[dict] = []
        try:
            self.version = self.send("Browser.getVersion")["product"]
        except BrowserError:
            self.close()
            raise

    # The protocol: JSON messages, each ended by a NUL byte.
    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise BrowserError("the browser did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("the browser closed its DevTools pipe (did it crash?)")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float | None = None) -> dict:
        id_ = next(self._ids)
        message = {"id": id_, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise BrowserError("the browser is gone (it closed its DevTools pipe)") from None
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read(deadline)
            if reply.get("id") == id_:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method: str, session: str, timeout: float | None = None) -> dict:
        """The first not yet seen event `method` of a session."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method and event.get("sessionId") == session:
                    return self.events.pop(i)
            event = self._read(deadline)
            if "method" in event:
                self.events.append(event)

    def open(self, url: str) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, target, session)
        page.goto(url)
        return page

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except BrowserError:
            pass
        deadline = time.monotonic() + 10
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """A tab. After `goto`, `requests` holds every URL it asked for, `failed_requests` those that
    failed to load (URL and reason), and `exceptions` the JavaScript errors it raised."""

    def __init__(self, browser: Chromium, target: str, session: str):
        self.browser, self.target, self.session = browser, target, session
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable")

    def send(self, method: str, params: dict | None = None, **kw) -> dict:
        return self.browser.send(method, params, session=self.session, **kw)

    def goto(self, url: str, timeout: float | None = None):
        events = self.browser.events
        events[:] = [e for e in events if e.get("sessionId") != self.session]
        reply = self.send("Page.navigate", {"url": url})
        if reply.get("errorText"):
            raise BrowserError(f"could not load {url}: {reply['errorText']}")
        self.browser.wait_for("Page.loadEventFired", self.session, timeout)
        self.evaluate("document.fonts.ready.then(() => true)")
        mine = [e for e in self.browser.events if e.get("sessionId") == self.session]
        events[:] = [e for e in events if e.get("sessionId") != self.session]
        requests = {e["params"]["requestId"]: e["params"]["request"]["url"]
                    for e in mine if e["method"] == "Network.requestWillBeSent"}
        self.url = url
        self.requests = list(requests.values())
        self.failed_requests = [(requests.get(e["params"]["requestId"], "?"), e["params"]["errorText"])
                                for e in mine if e["method"] == "Network.loadingFailed"
                                and not e["params"].get("canceled")]
        self.exceptions = [e["params"]["exceptionDetails"].get("exception", {}).get("description")
                           or e["params"]["exceptionDetails"].get("text")
                           for e in mine if e["method"] == "Runtime.exceptionThrown"]

    def evaluate(self, expression: str, timeout: float | None = None):
        """The value of a JavaScript expression (a promise is awaited)."""
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description") or details.get("text"))
        return reply["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            w, h = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": min(h, 16000), "scale": 1}
        path = Path(path)
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", params)["data"]))
        return path


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m book.browser PAGE.html OUT.png", file=sys.stderr)
        return 2
    with Chromium() as browser:
        page = browser.open(Path(argv[0]).resolve().as_uri())
        page.screenshot(Path(argv[1]))
        for url, why in page.failed_requests:
            print(f"failed to load {url}: {why}", file=sys.stderr)
    print(f"wrote {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
