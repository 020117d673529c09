"""Whether a client is pointed at the scripted server: its placeholder key, or a loopback URL.

The command line prints `PLACEHOLDER_KEY` when ``--api-key`` names none; `scripted_server_reason`
is what prints "scripted" rather than "measured" reads (the notebooks do).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["PLACEHOLDER_KEY", "scripted_server_reason"]

PLACEHOLDER_KEY = "sk-jev-scripted"
"""The API key the command prints when ``--api-key`` names none (any key is accepted)."""


def scripted_server_reason(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the environment points Jev at a scripted server (its key, a loopback URL), or None.

    What prints "scripted" rather than "measured" reads this (the notebooks do): a run whose
    ``TYPESAFE_API_KEY`` is the placeholder this server prints (`PLACEHOLDER_KEY`), or whose
    ``TYPESAFE_BASE_URL`` names a loopback address (``localhost``, ``127.x.x.x``, ``::1``),
    is answered from a script, whatever the numbers look like. ``environ`` defaults to
    ``os.environ``; the key itself is never quoted.

    Example:
        >>> scripted_server_reason({"TYPESAFE_API_KEY": PLACEHOLDER_KEY})
        "TYPESAFE_API_KEY is the scripted server's placeholder key"
        >>> scripted_server_reason({"TYPESAFE_API_KEY": "sk-live", "TYPESAFE_BASE_URL": "http://[::1]:8000"})
        'TYPESAFE_BASE_URL http://[::1]:8000 is a loopback address'
        >>> scripted_server_reason({"TYPESAFE_API_KEY": "sk-live"}) is None
        True

    """
    env = os.environ if environ is None else environ
    if (env.get("TYPESAFE_API_KEY") or "").strip() == PLACEHOLDER_KEY:
        return "TYPESAFE_API_KEY is the scripted server's placeholder key"
    url = (env.get("TYPESAFE_BASE_URL") or "").strip()
    if url and _is_loopback(url):
        return f"TYPESAFE_BASE_URL {url} is a loopback address"
    return None


def _is_loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url if "//" in url else f"//{url}").hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
