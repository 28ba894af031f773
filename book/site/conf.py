"""Sphinx configuration of the book's site. `python -m book.site` stages the chapters that book.toml
lists, and an index whose table of contents follows book.toml, then builds them with this file."""
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BOOK = tomllib.loads((ROOT / "book.toml").read_text())["book"]
project = BOOK["title"]
author = BOOK["author"]
copyright = f"%Y, {author}"

extensions = ["myst_nb", "sphinx-mathjax-offline"]  # MathJax served from _static, not a CDN
myst_enable_extensions = ["dollarmath", "amsmath"]
nb_execution_mode = "off"              # render the stored outputs: nbval has checked them already
nb_output_stderr = "show"
exclude_patterns = ["chapters/*.md", "**/.ipynb_checkpoints"]  # the chapters' jupytext twins
include_patterns = ["index.md", "chapters/*.ipynb"]
root_doc = "index"
highlight_language = "ipython3"

html_theme = "sphinx_book_theme"
html_title = project
html_static_path = [str(Path(__file__).parent / "static")]
html_css_files = ["book.css"]
html_js_files = ["book.js"]
html_last_updated_fmt = None
html_theme_options = {
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_source_button": False,
    "navigation_with_keys": True,
    "navbar_persistent": [],            # the sidebar has the search field already
}
html_show_sourcelink = False

MAP_PAGE = "chapters/00_the_map"   # the page that draws the interactive map (book/stage_map.py)


def _map_files(app, pagename, templatename, context, doctree):
    if pagename == MAP_PAGE and (Path(app.srcdir) / "_static" / "stage_map_data.js").exists():
        app.add_css_file("stage_map.css")
        app.add_js_file("stage_map_data.js")
        app.add_js_file("stage_map.js")


def setup(app):
    # book.site writes the map's data into the staged sources' _static, beside their chapters.
    staged = Path(app.srcdir) / "_static"
    if staged.is_dir():
        app.config.html_static_path.append(str(staged))
    app.connect("html-page-context", _map_files)
