"""A report people can look at: one self-contained HTML file of a run or a calibration.

- `page`: `write_report` / `render_report`, the page (inline CSS and SVG; no script, no request);
- `charts`: the charts, drawn with matplotlib (install the ``report`` extra).

Names are imported lazily, so importing this package stays cheap.
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
