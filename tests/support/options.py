"""Checks of a function pair that takes one set of keyword options (a ``TypedDict`` unpacked).

A sync function and its async twin (or a writer and the renderer it calls) take their options
as ``**options: Unpack[SomeOptions]`` and hand them to the one place that holds the defaults.
These checks hold the three together: the twins take the same options, every option the
``TypedDict`` names is a keyword the holder of the defaults takes (and the other way round),
and a name that is no option is refused with ``TypeError``, as a written-out signature refuses it.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st


def parameters(function: Callable[..., Any], leave_out: Iterable[str] = ()) -> dict[str, Any]:
    """The parameters of ``function`` by name, as (kind, default), without those left out."""
    left_out = set(leave_out)
    return {
        name: (p.kind, p.default)
        for name, p in inspect.signature(function).parameters.items()
        if name not in left_out
    }


def option_names(options: type) -> set[str]:
    """The keys of an options ``TypedDict``."""
    return set(options.__annotations__)


def keywords_of(holder: Callable[..., Any], leave_out: Iterable[str] = ()) -> set[str]:
    """The keyword parameters with a default that ``holder`` (the holder of the defaults) takes."""
    left_out = set(leave_out)
    return {
        name
        for name, p in inspect.signature(holder).parameters.items()
        if p.default is not inspect.Parameter.empty and name not in left_out
    }


def not_options(known: Iterable[str]) -> st.SearchStrategy[str]:
    """Keyword names that are not options: identifiers, never one of ``known``."""
    taken = set(known)
    return st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True).filter(
        lambda name: name not in taken and not keyword.iskeyword(name)
    )
