"""MkDocs hooks: the site's home page is the README, its links into ``docs/`` made relative to the site."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_README = Path(__file__).resolve().parents[1] / "README.md"
_INTO_DOCS = re.compile(r"\]\(docs/")


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Serve the README as ``index.md``, so the landing page and the site's home are one text."""
    if page.file.src_uri != "index.md":
        return markdown
    return _INTO_DOCS.sub("](", _README.read_text(encoding="utf-8"))
