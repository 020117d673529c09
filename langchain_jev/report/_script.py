"""The page's one script, the policy that lets it alone run, and the JSON island it reads.

The viewer's code is a file of its own (``viewer.js`` beside this module). The
page carries it inline, and its Content-Security-Policy names the script's
SHA-256 hash: the browser runs that script and nothing else (no other inline
script, no file, no ``eval``, no request of any kind, and Trusted Types shut
every HTML sink, so even the viewer cannot turn a text into markup). The data
goes in a ``<script type="application/json">`` island that the browser never
runs; `json_island` escapes every ``<``, ``>`` and ``&`` (and the two line
separators JavaScript once refused) so no text in it can close the element.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from importlib import resources
from typing import Any

__all__ = ["CSP", "content_security_policy", "json_island", "script_hash", "viewer_script"]


@functools.cache
def viewer_script() -> str:
    """The viewer's code, as the page carries it."""
    return resources.files("langchain_jev.report").joinpath("viewer.js").read_text(encoding="utf-8")


def script_hash(script: str) -> str:
    """The CSP source that allows exactly ``script`` (``'sha256-...'``).

    Example:
        >>> script_hash("alert(1)")
        "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"

    """
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(script: str | None) -> str:
    """The page's policy: inline styles, and ``script`` (by its hash) as the only thing that runs.

    Example:
        >>> policy = content_security_policy("x")
        >>> "script-src 'sha256-" in policy, "unsafe-eval" in policy, "connect-src" in policy
        (True, False, False)

    """
    scripts = script_hash(script) if script is not None else "'none'"
    return (
        "default-src 'none'; "
        f"script-src {scripts}; "
        "style-src 'unsafe-inline'; "
        "img-src data:; "
        "base-uri 'none'; "
        "form-action 'none'; "
        "require-trusted-types-for 'script'; "
        "trusted-types 'none'"
    )


CSP = content_security_policy(None)
"""The policy of a page with no script."""

_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def json_island(data: Any, element_id: str = "jev-data") -> str:
    r"""``data`` as a JSON island the browser never runs and no text in it can close.

    Raises:
        ValueError: ``data`` holds a number JSON cannot carry (NaN, infinity).

    Example:
        >>> json_island({"text": "</script>"})[-39:]
        '{"text":"\\u003c/script\\u003e"}</script>'

    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return f'<script type="application/json" id="{element_id}">{text.translate(_ESCAPES)}</script>'
