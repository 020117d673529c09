"""LangChain agent middleware (extra `middleware`) of langchain-jev: self-refine and the guardrail.

Names are imported lazily, so importing this package stays cheap and works
without the `langchain` extra until a middleware is used.
"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
