"""Builds each example's notebook from its script, so the two never drift apart.

An example script with cell markers (the "percent" format Jupyter tools, VS Code and jupytext
read) is the single source of its notebook:

* the module docstring becomes the first markdown cell (its first line the title);
* ``# %%`` starts a code cell; a title after the marker (``# %% PyTorch``) becomes the cell's
  first line, as a comment (``# PyTorch``); code before the first marker is a code cell of its
  own;
* ``# %% [markdown]`` starts a markdown cell made of the ``#`` comment lines that follow.

Notebooks are written next to their scripts (``quickstart.py`` → ``quickstart.ipynb``) with no
outputs; the test suite executes them.

    python examples/build_notebooks.py           # (re)writes every notebook
    python examples/build_notebooks.py --check   # exit 1 if a stored notebook is out of date
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import nbformat

EXAMPLES = Path(__file__).resolve().parent
MARKER = "# %%"
MARKDOWN = "# %% [markdown]"


def scripts() -> list[Path]:
    """The example scripts that have cell markers, by name."""
    return [p for p in sorted(EXAMPLES.glob("*.py"))
            if any(line.startswith(MARKER) for line in p.read_text(encoding="utf-8").splitlines())]


def _docstring_cell(docstring: str) -> nbformat.NotebookNode:
    title, _, rest = docstring.strip().partition("\n")
    return nbformat.v4.new_markdown_cell(f"# {title.strip()}\n{rest}".strip())


def _cell(kind: str, lines: list[str]) -> nbformat.NotebookNode | None:
    if kind == "markdown":
        lines = [line[2:] if line.startswith("# ") else line.lstrip("#") for line in lines]
    text = "\n".join(lines).strip("\n")
    if not text.strip():
        return None
    return nbformat.v4.new_markdown_cell(text) if kind == "markdown" else nbformat.v4.new_code_cell(text)


def build(script: Path) -> nbformat.NotebookNode:
    """The notebook of ``script``, outputs empty, cell ids numbered. Raises ValueError when the
    script has no docstring."""
    source = script.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree, clean=True)
    if docstring is None:
        raise ValueError(f"{script.name} has no module docstring")
    body = source.splitlines()[tree.body[0].end_lineno:]
    cells = [_docstring_cell(docstring)]
    kind, lines = "code", list[str]()
    for line in [*body, MARKER]:
        if line.startswith(MARKER):
            cell = _cell(kind, lines)
            if cell is not None:
                cells.append(cell)
            kind = "markdown" if line.startswith(MARKDOWN) else "code"
            title = line[len(MARKER):].strip()
            lines = [f"# {title}"] if kind == "code" and title else []
        else:
            lines.append(line)
    for i, cell in enumerate(cells):
        cell["id"] = f"{script.stem}-{i}"
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return nb


def notebook_path(script: Path) -> Path:
    return script.with_suffix(".ipynb")


def render(script: Path) -> str:
    """The notebook file's text for ``script``."""
    return nbformat.writes(build(script)) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the example notebooks from the scripts.")
    parser.add_argument("--check", action="store_true", help="only check that they are up to date")
    args = parser.parse_args(argv)
    stale = []
    for script in scripts():
        path, text = notebook_path(script), render(script)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path.name)
        if not args.check:
            path.write_text(text, encoding="utf-8")
    if args.check:
        if stale:
            print("out of date (run python examples/build_notebooks.py): " + ", ".join(stale))
            return 1
        print("notebooks up to date")
        return 0
    print("written: " + (", ".join(stale) or "none (all up to date)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
