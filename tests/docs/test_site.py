"""The documentation site stands alone: built, then read in a real browser.

The site is built with ``mkdocs build --strict`` into a scratch folder and
its pages are opened from ``file://`` in Debian's headless Chromium, with
every host name unresolvable, so that a page needing a CDN or a web font
fails here. Chromium is driven through its DevTools protocol over a pipe
(``--remote-debugging-pipe``: NUL-separated JSON on file descriptors 3 and
4), which needs nothing beyond the standard library and lets the test read
what the page did (its requests, its script errors) and its layout at a
desktop width. On each page:

* every ``arithmatex`` element was typeset by MathJax (an ``mjx-container``
  inside, no MathJax error), and no raw TeX delimiter is left in the text
  outside code blocks;
* every request went to a ``file:`` or ``data:`` URL, and none failed;
* no script raised;
* no code block scrolls sideways (``scrollWidth <= clientWidth``);
* every "See Also" entry is a link (and, in the built HTML of every page,
  leads to an anchor that exists).

The search, from ``file://`` too, finds results.

Skipped, with the reason, when mkdocs (the ``docs`` extra) or Chromium
(``apt-get install chromium``) is absent; ``DIFFIDENT_REQUIRE_BROWSER=1``
(set by ``.ci/run``) turns those skips into failures.
"""

import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
REQUIRED = os.environ.get("DIFFIDENT_REQUIRE_BROWSER") == "1"
# A common desktop size: Material shows both sidebars from 1220 px on.
WIDTH, HEIGHT = 1280, 800
TIMEOUT = 60.0

PAGES = sorted(p.relative_to(DOCS).with_suffix(".html").as_posix() for p in DOCS.rglob("*.md"))
WITH_MATHS = ("index.html", "concepts.html", "maths.html")
WITH_SEE_ALSO = ("reference/closed-form.html", "reference/gaussian-dp.html", "reference/worlds.html")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
    # No host name resolves: a page that needs the network shows it.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    f"--window-size={WIDTH},{HEIGHT}",
    "--remote-debugging-pipe",
)

# Run in the page once it has loaded: waits for MathJax, then reports.
INSPECT = r"""
(async () => {
  const mathjax = Boolean(window.MathJax && MathJax.startup && MathJax.startup.promise);
  if (mathjax) await MathJax.startup.promise;
  const maths = [...document.querySelectorAll(".arithmatex")];
  const skip = "pre, code, script, style, mjx-container";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => node.parentElement.closest(skip) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const raw = [];
  for (let node; (node = walker.nextNode());) {
    if (/\\\(|\\\)|\\\[|\\\]|\$\$/.test(node.data)) raw.push(node.data.trim().slice(0, 100));
  }
  const longest = (el) => el.textContent.split("\n").reduce((a, b) => (b.length > a.length ? b : a), "");
  return {
    mathjax,
    maths: maths.length,
    typeset: maths.filter((el) => el.querySelector("mjx-container")).length,
    containers: document.querySelectorAll("mjx-container").length,
    errors: document.querySelectorAll('mjx-container [data-mml-node="merror"]').length,
    raw,
    overflowing: [...document.querySelectorAll("pre, pre > code")]
      .filter((el) => el.scrollWidth > el.clientWidth)
      .map((el) => `${el.scrollWidth} > ${el.clientWidth} px: ${longest(el)}`),
    seeAlso: [...document.querySelectorAll("details.see-also li")]
      .map((li) => li.querySelector("a[href]")?.getAttribute("href") ?? `not a link: ${li.textContent}`),
    width: document.documentElement.clientWidth,
  };
})()
"""


# Typed into the search box of the page: the number of results, polled for 10 s.
SEARCH = r"""
(async () => {
  const input = document.querySelector(".md-search__input");
  input.focus();
  for (let i = 0; i < 100; i++) {
    input.value = "sensitive range";
    for (const type of ["input", "keyup"]) input.dispatchEvent(new Event(type, {bubbles: true}));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const found = document.querySelectorAll(".md-search-result__item").length;
    if (found) return found;
  }
  return 0;
})()
"""


def _missing(reason):
    if REQUIRED:
        pytest.fail(f"{reason} (DIFFIDENT_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """A headless Chromium driven over its DevTools pipe."""

    def __init__(self, executable, profile):
        commands_in, commands_out = os.pipe()
        replies_in, replies_out = os.pipe()

        def on_fds_3_and_4():  # in the child, before exec: Chromium reads fd 3 and writes fd 4
            read, write = os.dup(commands_in), os.dup(replies_out)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=on_fds_3_and_4, close_fds=False,  # fds made by os.pipe are not inherited
        )
        os.close(commands_in)
        os.close(replies_out)
        self._commands = os.fdopen(commands_out, "wb")
        self._replies = replies_in
        self._buffer = b""
        self._id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium closed its DevTools pipe (exit status {self.process.poll()})")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        """Send one command and return its result (events that come first are kept)."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._commands.write(json.dumps(message).encode() + b"\0")
        self._commands.flush()
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, method, session):
        deadline = time.monotonic() + TIMEOUT
        while not any(e.get("method") == method and e.get("sessionId") == session for e in self.events):
            self.events.append(self._read(deadline))

    def open(self, url, expression=INSPECT):
        """Open the URL in a new tab; return what the expression found, the requests and the script errors."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_for("Page.loadEventFired", session)
        found = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                          session)
        if "exceptionDetails" in found:
            raise RuntimeError(f"{url}: the inspection failed: {found['exceptionDetails']}")
        self.send("Target.closeTarget", {"targetId": target})
        mine = [e for e in self.events if e.get("sessionId") == session]
        self.events = [e for e in self.events if e.get("sessionId") != session]
        ids = {e["params"]["requestId"]: e["params"]["request"]["url"]
               for e in mine if e["method"] == "Network.requestWillBeSent"}
        failed = [f"{ids.get(e['params']['requestId'], '?')}: {e['params']['errorText']}"
                  for e in mine if e["method"] == "Network.loadingFailed"]
        errors = [e["params"]["exceptionDetails"].get("exception", {}).get("description")
                  or e["params"]["exceptionDetails"]["text"]
                  for e in mine if e["method"] == "Runtime.exceptionThrown"]
        return found["result"]["value"], sorted(set(ids.values())), failed, errors

    def close(self):
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._commands.close()
        os.close(self._replies)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built from this checkout into a scratch folder."""
    if find_spec("mkdocs") is None or find_spec("material") is None or find_spec("mkdocstrings") is None:
        _missing("the site needs mkdocs, mkdocs-material and mkdocstrings (the docs extra: pip install '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
        cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    executable = _chromium()
    if executable is None:
        _missing("Chromium is not installed (Debian: apt-get install chromium)")
    chromium = Chromium(executable, tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


@pytest.fixture(scope="module")
def pages(site, browser):
    """What each page showed in the browser, read once for the tests below."""
    seen = {}

    def read(page):
        if page not in seen:
            seen[page] = browser.open((site / page).as_uri())
        return seen[page]

    return read


def test_pages_found():
    assert set(WITH_MATHS + WITH_SEE_ALSO) <= set(PAGES)
    assert len(PAGES) >= 25


@pytest.mark.parametrize("page", PAGES)
def test_page_stands_alone(pages, page):
    found, requests, failed, errors = pages(page)
    assert WIDTH - 20 <= found["width"] <= WIDTH, found["width"]  # less a scroll bar
    outside = [url for url in requests if urlsplit(url).scheme not in ("file", "data")]
    assert not outside, f"{page} asks another host for {outside}"
    assert not failed, f"{page}: these loads failed: {failed}"
    assert not errors, f"{page}: scripts raised {errors}"
    assert found["mathjax"], f"{page}: MathJax did not load"
    assert found["typeset"] == found["maths"], f"{page}: {found['maths'] - found['typeset']} formulas not typeset"
    assert found["containers"] == found["maths"], found
    assert found["errors"] == 0, f"{page}: MathJax reports {found['errors']} TeX errors"
    assert not found["raw"], f"{page}: raw TeX left in the text: {found['raw'][:5]}"
    assert not found["overflowing"], f"{page}: code blocks wider than the page at {WIDTH} px: {found['overflowing']}"
    unlinked = [entry for entry in found["seeAlso"] if entry.startswith("not a link: ")]
    assert not unlinked, f"{page}: See Also entries that are not links: {unlinked}"


@pytest.mark.parametrize("page", WITH_MATHS)
def test_maths_pages_typeset_their_formulas(pages, page):
    found = pages(page)[0]
    assert found["maths"] >= (100 if page == "maths.html" else 5), found["maths"]
    assert found["typeset"] == found["maths"]


@pytest.mark.parametrize("page", WITH_SEE_ALSO)
def test_see_also_entries_link_to_their_entries(site, pages, page):
    """The links lead to an anchor that exists, on this page or on another."""
    hrefs = pages(page)[0]["seeAlso"]
    assert len(hrefs) >= 5, hrefs
    for href in hrefs:
        path, _, anchor = href.partition("#")
        target = (site / page).parent / unquote(path) if path else site / page
        assert anchor.startswith("diffident."), href
        assert f'id="{anchor}"' in target.read_text(encoding="utf-8"), f"{page}: {href} leads nowhere"


def test_search_works_from_file_urls(site, browser):
    """The offline plugin's inlined index and the Web Worker shim, both from the site."""
    found, requests, failed, errors = browser.open((site / "reference" / "index.html").as_uri(), SEARCH)
    assert found > 0, "the search found nothing"
    assert not failed and not errors, (failed, errors)
    assert all(urlsplit(url).scheme in ("file", "data", "blob") for url in requests), requests
    assert any(url.endswith("search/search_index.js") for url in requests), requests


def test_every_see_also_entry_is_a_working_link(site):
    """In the built HTML of every page (no browser needed)."""
    entries = 0
    for page in PAGES:
        html = (site / page).read_text(encoding="utf-8")
        for section in re.findall(r'<details class="see-also"[^>]*>(.*?)</details>', html, re.S):
            items = re.findall(r"<li>(.*?)</li>", section, re.S)
            assert items, f"{page}: a See Also section without a list: {section[:200]}"
            for item in items:
                entries += 1
                hrefs = re.findall(r'<a [^>]*href="([^"]*)"', item)
                assert hrefs, f"{page}: a See Also entry that is no link: {item}"
                for href in hrefs:
                    path, _, anchor = href.partition("#")
                    target = (site / page).parent / unquote(path) if path else site / page
                    assert target.is_file() and f'id="{anchor}"' in target.read_text(encoding="utf-8"), (page, href)
    assert entries >= 60, entries
