# The book's two commands: `make book` and `make test`. Both set up everything they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export TF_CPP_MIN_LOG_LEVEL := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with chapters/nbval_sanitize.cfg
XDIST := -n 2 --dist loadfile

.PHONY: run-example book serve site-student handout nbgrader test check-chapters lab lab-student export chapter chapters student check sysdeps browser venv clean

book: check-chapters ## check that every chapter runs and matches its stored outputs, then render the site
	$(PY) -m book.site _build/html

serve: ## serve the rendered site at http://localhost:8000 (search shows excerpts only when served)
	$(PY) -m http.server --directory _build/html 8000

site-student: check-chapters ## render the student edition of the site, without solutions, to _build/html-student
	$(PY) -m book.site --student _build/html-student

handout: venv ## write what students get, without solutions or git history: _build/handout/ and _build/handout.tar.gz
	$(PY) -m book.handout _build/handout

nbgrader: venv ## COURSE=path: write an nbgrader course of every chapter (source notebooks with nbgrader's metadata)
	@test -n "$(COURSE)" || { echo "say where: make nbgrader COURSE=path/to/course"; exit 1; }
	$(PY) -m book.nbgrader "$(COURSE)"

test: venv sysdeps browser ## run every test: the package, the chapters (nbval), the exporter and the pairs
	$(PY) -m pytest $(XDIST) tests $(NBVAL) $$($(PY) -m book.manifest)

check-chapters: venv sysdeps
	$(PY) -m book.export --check
	$(PY) -m pytest $(XDIST) -p no:cacheprovider $(NBVAL) $$($(PY) -m book.manifest)

ROOT_OK := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: venv sysdeps ## open the chapters, with their solutions, in JupyterLab
	$(VENV)/bin/jupyter lab $(ROOT_OK) chapters

lab-student: student ## open the student edition (no solutions) in JupyterLab
	$(VENV)/bin/jupyter lab $(ROOT_OK) _build/student

export: venv ## write autodidax/*.py from the chapters' `#| export` cells
	$(PY) -m book.export

chapter: venv sysdeps ## CH=01: sync the notebook with its markdown, export, re-execute and store outputs
	@test -n "$(CH)" || { echo "say which chapter: make chapter CH=01"; exit 1; }
	$(PY) -m book.run $(CH)

chapters: venv sysdeps ## re-execute every chapter
	$(PY) -m book.run all

student: venv ## write the student edition, solutions replaced by stubs, to _build/student
	$(PY) -m book.student _build/student

check: venv sysdeps ## CHAPTER=03 NOTEBOOK=path/to/03_jvp.ipynb: run a student's notebook, print its exercises
	@test -n "$(CHAPTER)" -a -n "$(NOTEBOOK)" || { echo "say which: make check CHAPTER=03 NOTEBOOK=path/to/student.ipynb"; exit 1; }
	@$(PY) -m book.check $(CHAPTER) "$(NOTEBOOK)" || true   # the table says what failed

venv: $(VENV)/.installed $(VENV)/.quiet

# jaxlib's C++ logging reads TF_CPP_MIN_LOG_LEVEL once, when jaxlib is first imported, whoever
# imports it (a chapter's `from jaxlib.mlir import ir` comes before autodidax's own setting): a
# .pth file sets it as the venv's Python starts, so kernels and scripts stay quiet.
$(VENV)/.quiet: $(VENV)/.installed
	$(PY) -c 'import pathlib, site; pathlib.Path(site.getsitepackages()[0], "autodidax_quiet.pth").write_text("import os; os.environ.setdefault(\"TF_CPP_MIN_LOG_LEVEL\", \"1\")\n")'
	@touch $@

$(VENV)/.installed: requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "autodidax needs Python 3.11 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q -e . --no-deps
	@touch $@

sysdeps: ## graphviz's `dot` draws the book's diagrams
	@command -v dot >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing graphviz (Debian's package) for its dot command"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; \
	  else \
	    echo "The book draws diagrams with graphviz's dot, which is missing: install it (Debian/Ubuntu: sudo apt-get install graphviz; macOS: brew install graphviz)"; exit 1; \
	  fi; }

browser: ## Debian's chromium checks the rendered site; its test is skipped, with the reason, without it
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing chromium (Debian's package) for the site's browser test"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	      || echo "could not install chromium: the site's browser test will be skipped"; \
	  else \
	    echo "chromium is missing, so the site's browser test will be skipped: install it (Debian/Ubuntu: sudo apt-get install chromium)"; \
	  fi; }

run-example: venv ## export chapter 18's trained classifier, then run it with the runner on new points
	$(PY) examples/classifier.py _build/example
	$(PY) -m autodidax.runner _build/example/classifier.jaxexport --input _build/example/points.npy --output _build/example/logits.npz
	$(PY) -c 'import numpy as np; p = np.load("_build/example/logits.npz")["result"].argmax(1); y = np.load("_build/example/labels.npy"); print(f"predicted classes: {p}\naccuracy on 64 new points: {(p == y).mean():.3f}")'

clean:
	rm -rf $(VENV) _build .pytest_cache .hypothesis
