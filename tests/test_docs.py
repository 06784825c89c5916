"""The documentation site builds in strict mode (no broken link, no missing page, no docstring
the API reference cannot render), and the repository's docs point nowhere outside it."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or
                    importlib.util.find_spec("mkdocstrings") is None,
                    reason="mkdocs is not installed (pip install -e '.[docs]')")
def test_site_builds_in_strict_mode(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stderr[-4000:]
    site = tmp_path / "site"
    assert (site / "migration_guide" / "index.html").is_file()
    assert "verify_port" in (site / "api" / "compat" / "index.html").read_text(encoding="utf-8")
    assert not (site / "hooks.py").exists()
    example = (site / "examples" / "quickstart" / "index.html").read_text(encoding="utf-8")
    assert "Quickstart: Burn&#39;s autodiff example" in example or "Quickstart: Burn's autodiff" in example
    for module, names in _public_names().items():
        page = (site / "api" / module / "index.html").read_text(encoding="utf-8")
        documented = set(re.findall(r'id="([\w.]+)"', page))
        missing = [n for n in names if not any(i == n or i.endswith(f".{n}") for i in documented)]
        assert not missing, f"api/{module}.md does not document {missing}"


def _public_names() -> dict[str, list[str]]:
    """The public names each training-stack API page must document."""
    import burn_torch.data
    import burn_torch.memory
    import burn_torch.record
    import burn_torch.train
    return {"data": burn_torch.data.__all__, "train": burn_torch.train.__all__,
            "record": burn_torch.record.__all__, "memory": burn_torch.memory.__all__,
            "quantization": ["QuantMode", "QuantLevel", "QuantScheme", "QuantizedTensor",
                             "QuantizationParameters", "quantize", "quantize_with_params"]}


@pytest.mark.skipif(importlib.util.find_spec("mkdocs_jupyter") is None,
                    reason="mkdocs-jupyter is not installed (pip install -e '.[docs]')")
def test_a_notebook_page_executed_for_the_site_shows_its_outputs():
    """What BURN_TORCH_DOCS_EXECUTE=true builds: the page holds the outputs of every cell."""
    from mkdocs_jupyter.nbconvert2 import nb2html

    html = nb2html(str(ROOT / "examples" / "quickstart.ipynb"), execute=True)
    assert "OK: the gradient equals 2 * tensor" in html and "backward returned" in html


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages and all(page in nav for page in pages), sorted(p for p in pages if p not in nav)


@pytest.mark.parametrize("path", ["README.md", *sorted(str(p.relative_to(ROOT)) for p in DOCS.rglob("*.md")),
                                  *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "migration_guide").glob("*.md"))])
def test_docs_do_not_point_outside_the_repository(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert not re.search(r"API\.md|OPS\.md|\.\./shared|/work/", text), path


def test_readme_links_to_the_documentation():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/index.md)" in readme


SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|exc|obj|data|const):`")


def test_docstrings_use_the_cross_reference_style_the_site_renders():
    """The API reference renders mkdocstrings cross-references (``[Param][burn_torch.module.Param]``);
    a Sphinx role (``:class:`Param```) would appear raw on the site."""
    offenders = [f"{path.relative_to(ROOT)}:{number}"
                 for path in sorted((ROOT / "src").rglob("*.py"))
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if SPHINX_ROLE.search(line)]
    assert offenders == []
