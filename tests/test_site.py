"""The rendered book: `make book` builds a static site that works offline. The site is built once,
into a temporary folder; its HTML is parsed for broken links, and a headless Chromium loads every
page to see that it renders: title, images, the diagrams of chapter 00, math, highlighting, search."""
import functools
import html.parser
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from book import site, stage_map
from book.browser import BrowserError, Chromium, find_chromium
from book.manifest import chapters

WRITTEN = [ch for ch in chapters() if ch.notebook.exists()]


def page_of(html_dir, ch):
    return html_dir / "chapters" / f"{ch.notebook.stem}.html"


@pytest.fixture(scope="module")
def html_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "html"
    site.build(out, only=WRITTEN)  # the chapters written when the tests were collected
    return out


class Page(html.parser.HTMLParser):
    """What a built page refers to and which ids it has."""

    def __init__(self, path: Path):
        super().__init__()
        self.path, self.refs, self.ids, self.loads, self.title, self.h1 = path, [], set(), [], "", []
        self._in = None
        self.feed(path.read_text())

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "name" in attrs:
            self.ids.add(attrs["name"])
        for attr in ("href", "src"):
            if attrs.get(attr):
                self.refs.append((tag, attrs[attr]))
        if tag in ("script", "img", "iframe", "source") and attrs.get("src"):
            self.loads.append(attrs["src"])
        if tag == "link" and attrs.get("href") and attrs.get("rel") in ("stylesheet", "preload", "icon"):
            self.loads.append(attrs["href"])
        if tag in ("title", "h1"):
            self._in = tag
            if tag == "h1":
                self.h1.append("")

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        elif self._in == "h1":
            self.h1[-1] += data


@functools.cache
def parsed(path: Path) -> Page:
    """`Page(path)`, parsed once: several tests read the same built pages, and parsing the
    largest takes seconds."""
    return Page(path)


def test_the_index_lists_the_chapters_in_book_order(html_dir):
    index = parsed(html_dir / "index.html")
    toc = [href for tag, href in index.refs if tag == "a" and re.fullmatch(r"chapters/[^/#]+\.html", href)]
    # the chapters, then the appendices (reference, in a table of their own), each in book order
    want = [f"chapters/{ch.notebook.stem}.html"
            for ch in sorted(WRITTEN, key=lambda ch: ch.number[0].isalpha())]
    assert list(dict.fromkeys(toc)) == want


@pytest.mark.parametrize("ch", WRITTEN, ids=lambda ch: ch.notebook.stem)
def test_each_chapter_page_has_its_title(html_dir, ch):
    page = parsed(page_of(html_dir, ch))
    assert ch.title in page.title, f"<title> is {page.title!r}"
    assert page.h1 and ch.title in page.h1[0].replace("\N{PILCROW SIGN}", "").strip(), page.h1[:1]


def test_no_page_has_a_broken_local_link_or_image(html_dir):
    pages = {p: parsed(p) for p in html_dir.rglob("*.html") if "_static" not in p.parts}
    broken = []
    for path, page in pages.items():
        for tag, ref in page.refs:
            url = urlsplit(ref)
            if url.scheme or ref.startswith(("//", "mailto:")) or (not url.path and not url.fragment):
                continue
            target = (path.parent / unquote(url.path)).resolve() if url.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(html_dir)}: <{tag}> {ref} (no such file)")
            elif url.fragment and target.suffix == ".html" and target in pages \
                    and unquote(url.fragment) not in pages[target].ids:
                broken.append(f"{path.relative_to(html_dir)}: <{tag}> {ref} (no such anchor)")
    assert not broken, "\n".join(broken)


def test_no_page_loads_anything_from_the_network(html_dir):
    remote = [f"{p.relative_to(html_dir)}: {src}" for p in html_dir.rglob("*.html") if "_static" not in p.parts
              for src in parsed(p).loads if urlsplit(src).scheme in ("http", "https") or src.startswith("//")]
    assert not remote, "the site must work offline, but loads:\n" + "\n".join(remote)
    assert (html_dir / "_static" / "mathjax" / "tex-chtml.js").exists(), "MathJax is not served locally"


def test_the_site_search_has_an_index(html_dir):
    assert (html_dir / "search.html").exists()
    index = (html_dir / "searchindex.js").read_text()
    for ch in WRITTEN:
        assert f'"chapters/{ch.notebook.stem}"' in index, f"{ch.notebook.stem} is not in the search index"


# The browser: every page as a reader sees it.

MATHJAX_DONE = """new Promise(resolve => {
  let tries = 0;
  const poll = () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise)
      MathJax.startup.promise.then(() => resolve(document.querySelectorAll('mjx-container').length));
    else if (tries++ > 200) resolve(-1);
    else setTimeout(poll, 25);
  };
  poll();
})"""

IMAGES = """Array.from(document.images).map(i => ({
  src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0,
  width: i.getBoundingClientRect().width, height: i.getBoundingClientRect().height}))"""

# Code blocks whose lines are at most 100 characters long but that do not fit their column.
CUT_CODE = """[...document.querySelectorAll('div.cell_input pre')].filter(p =>
  p.scrollWidth > p.clientWidth + 1 &&
  Math.max(...p.textContent.split('\\n').map(l => l.length)) <= 100).length"""

HIGHLIGHTED = """(() => {
  const keyword = document.querySelector('div.highlight pre span.k, div.highlight pre span.kn');
  if (!keyword) return null;
  return getComputedStyle(keyword).color !== getComputedStyle(keyword.closest('pre')).color;
})()"""


@pytest.fixture(scope="module")
def browser():
    if find_chromium() is None:
        pytest.skip("no chromium to check the site in a browser: `make browser` installs Debian's "
                    "chromium (as root), or install it yourself (apt-get install chromium)")
    try:
        with Chromium() as b:
            yield b
    except BrowserError as e:
        pytest.fail(f"chromium is installed but would not start: {e}")


def test_every_page_renders_in_a_browser(html_dir, browser, tmp_path):
    pages = [(html_dir / "index.html", None)] + [(page_of(html_dir, ch), ch) for ch in WRITTEN]
    problems = []
    tab = None
    for path, ch in pages:
        url = path.as_uri()
        if tab is None:
            tab = browser.open(url)
        else:
            tab.goto(url)
        name = path.relative_to(html_dir)
        title = tab.evaluate("document.title")
        want = ch.title if ch else "Autodidax"
        if want not in title:
            problems.append(f"{name}: title {title!r} lacks {want!r}")
        problems += [f"{name}: could not load {u} ({why})" for u, why in tab.failed_requests]
        problems += [f"{name}: asked the network for {u}" for u in tab.requests
                     if urlsplit(u).scheme not in ("file", "data", "blob", "about")]
        problems += [f"{name}: JavaScript error: {e}" for e in tab.exceptions]
        problems += [f"{name}: image {i['src']} did not load or has no size" for i in tab.evaluate(IMAGES)
                     if not i["loaded"] or i["width"] < 1 or i["height"] < 1]
        math = tab.evaluate("document.querySelectorAll('.math').length")
        if math and tab.evaluate(MATHJAX_DONE) < math:
            problems.append(f"{name}: MathJax did not render the page's {math} formulas")
        if ch and tab.evaluate(HIGHLIGHTED) is not True:
            problems.append(f"{name}: its code is not highlighted")
        if ch and tab.evaluate(CUT_CODE):
            problems.append(f"{name}: {tab.evaluate(CUT_CODE)} code cells of lines of at most 100 "
                            "characters are cut off in a 1280-pixel window")
        nav = tab.evaluate("[...document.querySelectorAll('nav.bd-links a')].map(a => a.textContent.trim())")
        if not all(any(c.title in entry for entry in nav) for c in WRITTEN):
            problems.append(f"{name}: the navigation does not list every chapter: {nav}")
    assert not problems, "\n".join(problems)


def test_the_diagrams_of_chapter_00_show(html_dir, browser, tmp_path):
    ch = next((ch for ch in WRITTEN if ch.number == "00"), None)
    if ch is None:
        pytest.skip("chapter 00 is not written yet")
    tab = browser.open(page_of(html_dir, ch).as_uri())
    svgs = [i for i in tab.evaluate(IMAGES) if i["src"].endswith(".svg")]
    assert svgs, "chapter 00 shows no SVG diagram"
    for i in svgs:
        assert i["loaded"] and i["width"] > 100 and i["height"] > 20, f"a diagram does not show: {i}"
    assert max(i["height"] for i in svgs) > 300, f"the map of the stages should be a large diagram: {svgs}"
    links = tab.evaluate("[...document.querySelectorAll('.cell_output img')]"
                         ".map(i => i.closest('a.book-full-size')?.href)")
    assert all(link and link.endswith(".svg") for link in links), f"a click should enlarge: {links}"
    # The map, in view: its nodes are drawn (text of the graph is in the SVG, so look at pixels).
    tab.evaluate("document.querySelector('img[src$=\".svg\"]').scrollIntoView({block: 'center'})")
    screenshot(tab, tmp_path / "chapter00.png", "chapter 00")


def screenshot(tab, path, what):
    """A screenshot of the tab that is not blank, kept in $BOOK_SCREENSHOTS if that is set."""
    shot = tab.screenshot(path)
    assert shot.stat().st_size > 20_000, f"the screenshot of {what} is (nearly) blank"
    if os.environ.get("BOOK_SCREENSHOTS"):
        Path(os.environ["BOOK_SCREENSHOTS"]).mkdir(parents=True, exist_ok=True)
        shot.replace(Path(os.environ["BOOK_SCREENSHOTS"]) / shot.name)


def test_navigation_and_search_work_in_a_browser(html_dir, browser):
    first, second = WRITTEN[0], WRITTEN[1]
    tab = browser.open(page_of(html_dir, first).as_uri())
    href = tab.evaluate("document.querySelector('a.right-next').href")
    assert href.endswith(f"chapters/{second.notebook.stem}.html"), f"'next' goes to {href}"
    tab.goto((html_dir / "search.html").as_uri() + "?q=pytree")
    found = tab.evaluate("""new Promise(resolve => {
      let tries = 0;
      const poll = () => {
        const hits = [...document.querySelectorAll('#search-results li a')].map(a => a.getAttribute('href'));
        if (hits.length || tries++ > 200) resolve(hits); else setTimeout(poll, 25);
      };
      poll();
    })""")
    assert any("02_pytrees" in h for h in found), f"searching for 'pytree' found {found}"


# Chapter 0's interactive map (book/stage_map.py makes its data, book/site/static/stage_map.js
# draws it).


def test_the_map_s_routes_connect_and_each_stage_names_its_chapters():
    listed = {ch.notebook.stem for ch in chapters()}
    for mode, device in stage_map.CHOICES:
        route = stage_map.steps(mode, device)
        assert route[0]["from"] == "code" and route[-1]["hit"], (mode, device)
        seen = {route[0]["from"]}
        for before, step in zip([None, *route], route):
            assert step["from"] in (before and before["to"], *seen), (
                f"{mode} on {device}: step {step} starts where no earlier step went")
            seen.add(step["to"])
        on = stage_map.stages_on(route)
        assert [s for s in on if s in stage_map.DEVICES] == [device], (mode, device, on)
        for stage in on:
            stems = stage_map.BY_ID[stage].chapters
            assert stems, f"the stage {stage} names no chapter"
            for stem in stems:
                assert stem in listed, f"the stage {stage} names {stem}, not in book.toml"
    # Every stage says something under every choice.
    raw = {k: "text" for k in ("jaxpr", "stablehlo", "hlo", "jitcache", "eager_jaxpr",
                               "eager_stablehlo", "eager_hlo", "opcache", "jit_binds",
                               "eager_binds", "eager_result", "jit_result", "devices",
                               "jit_kernel", "jit_llvm", "jit_asm", "eager_kernel", "eager_llvm",
                               "eager_asm")}
    raw["platforms"] = ["cpu"]
    for stage in stage_map.BY_ID:
        for mode, device in stage_map.CHOICES:
            shown = stage_map.artifact(stage, mode, device, raw)
            assert shown["text"] or shown["note"], (stage, mode, device)


def click(tab, selector):
    """Click the middle of an element, as a reader's mouse would."""
    x, y = tab.evaluate(f"""(() => {{
      const e = document.querySelector({selector!r});
      e.scrollIntoView({{block: 'center'}});
      const r = e.getBoundingClientRect();
      return [r.x + r.width / 2, r.y + r.height / 2];
    }})()""")
    for kind in ("mousePressed", "mouseReleased"):
        tab.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                              "clickCount": 1})


MAP_STATE = """(() => ({
  checked: [...document.querySelectorAll('#stage-map input:checked')].map(i => i.value),
  lit: [...document.querySelectorAll('#stage-map .sm-stage.sm-on')].map(g => g.dataset.stage),
  steps: [...document.querySelectorAll('#stage-map .sm-steps tbody tr')].map(
    tr => [...tr.cells].map(td => td.textContent.trim())),
  panel: document.querySelector('#stage-map .sm-panel').textContent,
}))()"""


def test_the_map_of_chapter_00_is_interactive(html_dir, browser, tmp_path):
    ch = next((ch for ch in WRITTEN if ch.number == "00"), None)
    if ch is None:
        pytest.skip("chapter 00 is not written yet")
    page = page_of(html_dir, ch)
    tab = browser.open(page.as_uri())
    assert not tab.exceptions and not tab.failed_requests, (tab.exceptions, tab.failed_requests)
    assert tab.evaluate("document.querySelectorAll('#stage-map svg .sm-stage').length") == len(
        stage_map.STAGES), "the map is not drawn"
    titles = {s.id: s.title for s in stage_map.STAGES}
    for mode, device in stage_map.CHOICES:
        click(tab, f"#stage-map input[value={mode}]")
        click(tab, f"#stage-map input[value={device}]")
        state = tab.evaluate(MAP_STATE)
        route = stage_map.steps(mode, device)
        assert state["checked"] == [mode, device]
        assert sorted(state["lit"]) == sorted(stage_map.stages_on(route)), (mode, device)
        assert state["steps"] == [[str(i), titles[s["from"]], s["what"].replace("`", ""),
                                   titles[s["to"]]] for i, s in enumerate(route, 1)]
    # A stage shows its artifact: the jaxpr, made when the site was built.
    click(tab, "#stage-map .sm-stage[data-stage=jaxpr]")
    panel = tab.evaluate(MAP_STATE)["panel"]
    assert "b:f32[3] = sin a" in panel and "d:f32[3] = add c a" in panel, panel
    # Its links lead to the chapters' pages, and name every chapter the site has.
    hrefs = tab.evaluate("[...document.querySelectorAll('#stage-map a')]"
                         ".map(a => a.getAttribute('href'))")
    assert hrefs
    for href in hrefs:
        url = urlsplit(href)
        assert not url.scheme and (page.parent / unquote(url.path)).exists(), f"broken: {href}"
        if url.fragment:
            assert unquote(url.fragment) in parsed(page.parent / unquote(url.path)).ids, href
    written = {c.notebook.stem for c in WRITTEN}
    for stem in {stem for s in stage_map.STAGES for stem in s.chapters}:
        if stem in written:
            assert f"{stem}.html" in hrefs, f"the map does not link to {stem}"
    errors = [e for e in browser.events if e["method"] == "Runtime.exceptionThrown"
              and e.get("sessionId") == tab.session]
    assert not errors, errors
    tab.evaluate("document.querySelector('#stage-map svg').scrollIntoView({block: 'start'})")
    screenshot(tab, tmp_path / "chapter00_map.png", "the map")
