"""The wheel's long description: README.md, its links into the checkout named rather than linked.

On a package index the README's relative links (``docs/judges.md``) lead nowhere, so
the wheel's copy names each file in the source instead; links with a scheme or to an
anchor stay as they are. The README in the checkout is not changed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hatchling.metadata.plugin.interface import MetadataHookInterface

_RELATIVE_LINK = re.compile(r"\[([^\]\n]{1,300})\]\((?![A-Za-z][A-Za-z0-9+.-]{0,30}:|#)([^)\s]{1,300})\)")
"""A Markdown link to a path (no scheme, not an anchor): its text and the path."""


def described(readme: str) -> str:
    """``readme`` with each relative link written as its text and the path it names in the source."""
    return _RELATIVE_LINK.sub(lambda match: f"{match.group(1)} (`{match.group(2)}` in the source)", readme)


class DescriptionHook(MetadataHookInterface):
    """Sets the ``readme`` the wheel and sdist carry (declared dynamic in ``pyproject.toml``)."""

    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        """Write README.md, as `described`, as the project's long description."""
        text = (Path(self.root) / "README.md").read_text(encoding="utf-8")
        metadata["readme"] = {"content-type": "text/markdown", "text": described(text)}
