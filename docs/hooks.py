"""MkDocs hook: adds the generated migration guide (``migration_guide/*.md``, outside
``docs/``) to the site under ``migration_guide/``, and points its links to the documentation
(``../docs/<page>`` in the repository, where they resolve too) at the site's pages; adds the
example notebooks (``examples/*.ipynb``, the ones :data:`NOTEBOOKS` lists) under ``examples/``
for mkdocs-jupyter to render (this hook runs first: its files must exist when the plugin's
``on_files`` looks for notebooks)."""
from __future__ import annotations

import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
GUIDE = "migration_guide"
_DOCS_LINK = re.compile(r"\]\(\.\./docs/")


#: The example notebooks on the site, in the order of the navigation (mkdocs.yml).
NOTEBOOKS = ("quickstart", "backward_and_gradients", "gradient_accumulation",
             "train_mlp_side_by_side", "porting_walkthrough", "checkpointing_memory",
             "train_mnist_learner", "testing_custom_layer", "port_mnist_cnn", "port_nanogpt",
             "port_word_language_model")


@event_priority(100)
def on_files(files, config):
    for path in sorted((ROOT / GUIDE).glob("*.md")):
        files.append(File(f"{GUIDE}/{path.name}", src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    for name in NOTEBOOKS:
        files.append(File(f"examples/{name}.ipynb", src_dir=str(ROOT), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.startswith(f"{GUIDE}/"):
        return _DOCS_LINK.sub("](../", markdown)
    return markdown
