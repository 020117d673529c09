"""A report people can look at: one self-contained HTML file of a run or a calibration.

- `page`: `write_report` / `render_report`, the page (inline CSS and SVG; no script, no request);
- `charts`: the charts, drawn with matplotlib (install the ``report`` extra).

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jev._lazy import lazy_exports

if TYPE_CHECKING:
    from langchain_jev.report._page import render_report, write_report

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "render_report": "langchain_jev.report._page",
    "write_report": "langchain_jev.report._page",
}

__all__ = ["render_report", "write_report"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
