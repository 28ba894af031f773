"""Re-execute chapters: `python -m book.run 01` (or `all`).

For each chapter: take the cells of its markdown source, write them to the notebook, export the
package, execute the notebook in a fresh kernel and store its outputs, deterministically (no
timings, cell ids numbered), so that a re-run that changes nothing changes no byte.
"""
from __future__ import annotations

import os
import re
import sys

import jupytext
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from book import export
from book.manifest import ROOT, Chapter, chapters, find

KERNEL = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
          "language_info": {"name": "python"}}


def notebook_from_markdown(ch: Chapter) -> nbformat.NotebookNode:
    nb = jupytext.read(ch.markdown)
    nb.metadata = nbformat.from_dict(KERNEL)
    for i, cell in enumerate(nb.cells):
        cell.id = f"c{i:03d}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,16}")


def _scrub_addresses(nb):
    """Memory addresses in the text twin of a picture (`<Digraph at 0x7f...>`) change on every
    run; readers never see that text, so store it without the address."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/plain" in data and len(data) > 1:
                data["text/plain"] = _ADDRESS.sub("0xADDRESS", data["text/plain"])


def _write(nb, path) -> None:
    """Write the notebook whole or not at all: the exporter reads every chapter's notebook, and
    another chapter's run may be reading this one now."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    nbformat.write(nb, tmp)
    os.replace(tmp, path)


def run(ch: Chapter) -> bool:
    nb = notebook_from_markdown(ch)
    _write(nb, ch.notebook)
    export.main([], only=ch.modules)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    client = NotebookClient(nb, timeout=900, kernel_name="python3", record_timing=False,
                            coalesce_streams=True,
                            resources={"metadata": {"path": str(ch.notebook.parent)}})
    ok = True
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{ch.notebook.name}: a cell failed\n{e}", file=sys.stderr)
        ok = False
    nb.metadata = nbformat.from_dict(KERNEL)
    _scrub_addresses(nb)
    _write(nb, ch.notebook)
    print(f"{'ran' if ok else 'FAILED'} {ch.notebook.relative_to(ROOT)}")
    return ok


def main(argv: list[str]) -> int:
    targets = chapters() if argv in ([], ["all"]) else [find(a) for a in argv]
    return 0 if all([run(ch) for ch in targets]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
