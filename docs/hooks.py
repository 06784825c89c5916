"""MkDocs hook: adds the generated migration guide (``migration_guide/*.md``, outside
``docs/``) to the site under ``migration_guide/``, and points its links to the documentation
(``../docs/<page>`` in the repository, where they resolve too) at the site's pages."""
from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
GUIDE = "migration_guide"
_DOCS_LINK = re.compile(r"\]\(\.\./docs/")


def on_files(files, config):
    for path in sorted((ROOT / GUIDE).glob("*.md")):
        files.append(File(f"{GUIDE}/{path.name}", src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.startswith(f"{GUIDE}/"):
        return _DOCS_LINK.sub("](../", markdown)
    return markdown
