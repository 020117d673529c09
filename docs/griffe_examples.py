"""A griffe extension for the API reference: a docstring's ``Example:`` section is read as code.

The package's docstrings head their doctests ``Example:``, which griffe's Google
parser reads as an admonition of prose (so ``x[-1]`` would be taken for a link);
``Examples:`` is the section whose ``>>>`` lines it renders as code.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.MULTILINE)


class ExampleSections(griffe.Extension):
    """Rename each docstring's ``Example:`` section ``Examples:``."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the docstring of every object as it is loaded."""
        if obj.docstring is not None:
            obj.docstring.value = _EXAMPLE.sub(r"\1Examples:", obj.docstring.value)
