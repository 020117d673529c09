r"""Optional extras: one wording for a part of the package whose extra is not installed.

Example:
    >>> print(install_hint("classic").replace(", or ", ",\nor "))
    install the classic extra: pip install -e ".[classic]" in a checkout of langchain-jev,
    or pip install "langchain_jev-VERSION-py3-none-any.whl[classic]" from a wheel
    >>> error = missing_extra("langchain_jev.evaluation", "langchain-classic", "classic")
    >>> what, how = str(error).split(": ", 1)
    >>> what
    'langchain_jev.evaluation needs langchain-classic, which is not installed'
    >>> how == install_hint("classic")
    True

"""

from __future__ import annotations

__all__ = ["install_hint", "missing_extra"]


def install_hint(extra: str) -> str:
    """How to install ``extra``: its name and the ``pip install`` line, from a checkout and from a wheel."""
    return (
        f'install the {extra} extra: pip install -e ".[{extra}]" in a checkout of langchain-jev, '
        f'or pip install "langchain_jev-VERSION-py3-none-any.whl[{extra}]" from a wheel'
    )


def missing_extra(user: str, package: str, extra: str) -> ImportError:
    """The error for importing ``user`` without ``package``, which ``extra`` installs.

    Raise it from the import's own error: ``raise missing_extra(...) from error``.
    """
    return ImportError(f"{user} needs {package}, which is not installed: {install_hint(extra)}")
