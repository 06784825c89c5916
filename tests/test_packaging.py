"""The package as a dependency: its metadata (license, version, Python and torch bounds, extras),
a PyPI description that works off the repository, an sdist without a test suite it could not
run, and optional dependencies that name their extra when missing."""
from __future__ import annotations

import email
import importlib.metadata
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

import burn_torch

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> tarfile.TarFile:
    """The sdist, built from this checkout with the installed setuptools."""
    out = tmp_path_factory.mktemp("dist")
    code = f"from setuptools import build_meta; print(build_meta.build_sdist({str(out)!r}))"
    name = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip().splitlines()[-1]
    with tarfile.open(out / name) as archive:
        yield archive


def _members(archive: tarfile.TarFile) -> set[str]:
    return {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}


def _metadata(archive: tarfile.TarFile) -> email.message.Message:
    top = archive.getmembers()[0].name.split("/")[0]
    return email.message_from_bytes(archive.extractfile(f"{top}/PKG-INFO").read())


def test_the_sdist_has_the_packages_and_licenses_and_no_test_suite(sdist):
    files = _members(sdist)
    for name in ("LICENSE-MIT", "LICENSE-APACHE", "DESCRIPTION.md", "pyproject.toml",
                 "src/burn_torch/__init__.py", "src/burn_torch_check/catalog.json",
                 "src/burn_torch_check/methods.json", "src/burn_torch_pytest/plugin.py"):
        assert name in files, name
    assert not [f for f in files if f.startswith("tests/")]


def test_the_metadata_names_the_license_authors_and_bounds(sdist):
    meta = _metadata(sdist)
    assert meta["License-Expression"] == "MIT OR Apache-2.0"
    assert set(meta.get_all("License-File")) == {"LICENSE-MIT", "LICENSE-APACHE"}
    assert meta["Author"] == "The burn_torch developers"
    assert meta["Requires-Python"] == ">=3.11"
    assert "torch>=2.13" in meta.get_all("Requires-Dist")
    assert {"train", "testing"} <= set(meta.get_all("Provides-Extra"))
    assert "Programming Language :: Python :: 3.11" in meta.get_all("Classifier")
    assert meta["Version"] == burn_torch.__version__


def test_the_version_is_written_in_one_place():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "burn_torch.__version__"}
    assert importlib.metadata.version("burn-torch") == burn_torch.__version__


def test_the_pypi_description_has_no_link_into_the_repository():
    text = (ROOT / "DESCRIPTION.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", text)
    assert links and all(re.match(r"https://", link) for link in links), links


def test_the_pypi_description_code_runs_as_printed():
    text = (ROOT / "DESCRIPTION.md").read_text(encoding="utf-8")
    code = "\n".join(re.findall(r"^```python\n(.*?)^```", text, re.S | re.M))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[[2.0, 2.0], [2.0, 2.0]]"]


WITHOUT = "import sys\nfor name in {names!r}:\n    sys.modules[name] = None\n"


@pytest.mark.parametrize("names, code, extra", [
    (("rich",), "from burn_torch.train import RichDashboard\nRichDashboard()", "train"),
    (("psutil",), "from burn_torch.train import CpuUse\nCpuUse()", "train"),
    (("hypothesis",), "import burn_torch.testing.strategies", "testing"),
], ids=["dashboard without rich", "CpuUse without psutil", "strategies without hypothesis"])
def test_a_feature_whose_extra_is_missing_names_the_extra(names, code, extra):
    out = subprocess.run([sys.executable, "-c", WITHOUT.format(names=names) + code],
                         capture_output=True, text=True)
    assert out.returncode != 0
    assert "ImportError: " in out.stderr and f"pip install 'burn-torch[{extra}]'" in out.stderr


def test_without_rich_a_terminal_gets_log_lines(monkeypatch):
    from burn_torch.train import PlainRenderer, renderer

    monkeypatch.setattr(renderer, "available", lambda package: package != "rich")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)  # not under a Jupyter kernel
    assert isinstance(renderer.default_renderer(), PlainRenderer)
