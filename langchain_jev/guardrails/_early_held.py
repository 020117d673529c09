"""What a model holds, read whole for `may_start_early`: every attribute known and inert, or it waits.

A chat model class of the caller's own code is trusted as the caller's, but a
model it holds (a wrapper's inner model, a router's routes) is read by the
early-start rules too. This module finds every such model, wherever the object
keeps it, and answers *why not* for anything it cannot name:

- **where it looks**: every attribute of the model that its own class (or the
  caller's subclass of a provider class) declares or sets: fields, the pydantic
  extras (``__pydantic_extra__``), private attributes (``__pydantic_private__``),
  anything else in its ``__dict__``, its ``__slots__``, and the class attributes
  of the caller's classes;
- **what it reads**: scalars (strings, numbers, booleans, None, enums, dates,
  UUIDs) and types are inert; ``list``, ``tuple``, ``set``, ``frozenset``,
  ``deque`` and ``dict`` (keys and values) are read item by item; a runnable is
  read by `may_start_early`'s rules (only an inert chat model passes; a decision
  model, the judge, is read as an object); a function is read by what it reads
  (its closure, defaults and the globals it names; a module of the caller's code
  it names waits); a pydantic
  model or a plain object of the caller's code, langchain-core's or this
  package's is read attribute by attribute, the same way; a few synchronisation
  objects of the standard library (events, locks, semaphores) hold nothing;
- **anything else waits**: an iterator, an SDK client, an object of another package, and any object past
  `NEST` levels of nesting or past `BUDGET` values read in one decision.

Example:
    >>> held_refusal([("a", object())], "the setting 'routes'", 0, lambda r, d: None, callers=lambda c: False)
    "the setting 'routes' holds a value of type object, which the guardrail does not know to be inert"

"""

from __future__ import annotations

import asyncio
import datetime
import enum
import functools
import site
import sys
import sysconfig
import threading
import uuid
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path, PurePath
from types import BuiltinFunctionType, CodeType, FunctionType, MappingProxyType, MethodType, ModuleType
from typing import Any

from langchain_core.decisions import BaseDecisionModel
from langchain_core.runnables import Runnable
from pydantic import BaseModel

__all__ = ["BUDGET", "NEST", "attributes_refusal", "held_refusal", "installed_roots"]

NEST = 12
"""How deep containers and objects inside one attribute are read; deeper waits."""

BUDGET = 5_000
"""How many values one decision reads at most (models held by models included); more waits."""

Check = Callable[[Runnable[Any, Any], int], "str | None"]
"""Why a held runnable may act (`may_start_early`'s rules at the next depth), or None."""

_SCALARS: tuple[type, ...] = (
    str,
    bytes,
    int,
    float,
    complex,
    Decimal,
    Fraction,
    enum.Enum,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    datetime.tzinfo,
    uuid.UUID,
    PurePath,
    type(None),
    type(Ellipsis),
)
"""Values that hold nothing (bool is an int)."""

_SEQUENCES: frozenset[type] = frozenset({list, tuple, set, frozenset, deque})
_MAPPINGS: frozenset[type] = frozenset({dict, OrderedDict, defaultdict, MappingProxyType})

_SYNC: tuple[type, ...] = tuple(
    {
        type(threading.Lock()),
        type(threading.RLock()),
        threading.Event,
        threading.Condition,
        threading.Semaphore,
        threading.BoundedSemaphore,
        asyncio.Event,
        asyncio.Lock,
        asyncio.Semaphore,
        asyncio.BoundedSemaphore,
        asyncio.Condition,
    }
)
"""Synchronisation objects of the standard library: they hold no value a provider is given."""

_READ = frozenset({"langchain_core", "langchain_jev", "pydantic"})
"""Packages whose objects (not runnables) are read attribute by attribute, as the caller's are."""

_KNOWN = _READ | {"langchain_openai", "langchain_anthropic", "langchain_google_genai"}
"""Packages whose classes' own attributes are known (the provider packages of `_early.PROVIDERS`)."""

_PYDANTIC_SLOTS = frozenset({"__dict__", "__weakref__"})

_BUDGET: ContextVar[list[int] | None] = ContextVar("jev_early_budget", default=None)


def _package(cls: type) -> str:
    return cls.__module__.partition(".")[0]


def held_refusal(
    value: Any, where: str, depth: int, check: Check, *, callers: Callable[[type], bool]
) -> str | None:
    """Why ``value`` (held at ``where``) may act, or None when all of it is known and inert.

    ``check`` reads a held runnable; ``callers`` says whether a class is the caller's own code.
    """
    budget = _BUDGET.get()
    token = _BUDGET.set([BUDGET]) if budget is None else None
    try:
        return _value(value, where, 0, depth, check, callers, set())
    finally:
        if token is not None:
            _BUDGET.reset(token)


def attributes_refusal(
    model: BaseModel,
    depth: int,
    check: Check,
    *,
    callers: Callable[[type], bool],
    origin: Callable[[str], type],
) -> str | None:
    """Why an attribute of ``model`` that is no field of a known class may act, or None.

    Private attributes and slots the caller's classes declare, pydantic extras, anything else
    in the instance's ``__dict__``, and the class attributes of the caller's classes are read;
    ``origin(name)`` is the class that declared an attribute.
    """
    for where, value in _attributes(model, callers, origin):
        refusal = held_refusal(value, where, depth, check, callers=callers)
        if refusal is not None:
            return refusal
    return None


def _attributes(
    model: BaseModel, callers: Callable[[type], bool], origin: Callable[[str], type]
) -> Iterator[tuple[str, Any]]:
    cls = type(model)
    fields = cls.model_fields
    for name, value in (getattr(model, "__pydantic_private__", None) or {}).items():
        if callers(origin(name)):
            yield f"the private attribute {name!r}", value
    for name, value in (getattr(model, "__pydantic_extra__", None) or {}).items():
        yield f"the extra setting {name!r}", value
    for name, value in vars(model).items():
        declarer = next((base for base in cls.__mro__ if name in vars(base)), None)
        if name not in fields and (declarer is None or callers(declarer)):  # not a known class's cache
            yield f"the attribute {name!r}", value
    for base in cls.__mro__:
        if not callers(base) or _package(base) in _KNOWN or _package(base) in sys.stdlib_module_names:
            continue
        yield from _slots(model, base)
        for name, value in vars(base).items():
            code = _method(value)
            if code is not None:  # a method of the caller's: what it reads (closure, globals) is read
                yield f"the method {name!r}", code
            elif _class_value(name, value):
                yield f"the class attribute {name!r}", value


def _slots(obj: Any, cls: type) -> Iterator[tuple[str, Any]]:
    slots = vars(cls).get("__slots__", ())
    for name in (slots,) if isinstance(slots, str) else slots:
        if isinstance(name, str) and name not in _PYDANTIC_SLOTS and hasattr(obj, name):
            yield f"the slot {name!r}", getattr(obj, name)


def _method(value: Any) -> FunctionType | None:
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    elif isinstance(value, property):
        value = value.fget
    return value if isinstance(value, FunctionType) and not _library_code(value) else None


def _library_code(function: FunctionType) -> bool:
    """True for a function of the standard library or an installed package (pydantic's generated methods)."""
    module = sys.modules.get(function.__module__)
    return module is not None and _library(module)


def _class_value(name: str, value: Any) -> bool:
    """True for a class attribute that holds a value (no method, descriptor, class or pydantic machinery)."""
    if (name.startswith("__") and name.endswith("__")) or name in {"_abc_impl", "model_config"}:
        return False
    return not isinstance(value, type) and not hasattr(type(value), "__get__")


def _value(
    value: Any,
    where: str,
    nest: int,
    depth: int,
    check: Check,
    callers: Callable[[type], bool],
    seen: set[int],
) -> str | None:
    budget = _BUDGET.get()
    if budget is not None:
        budget[0] -= 1
        if budget[0] < 0:
            return f"{where} holds more than {BUDGET} values to read"
    if isinstance(value, (*_SCALARS, type, *_SYNC)):
        return None
    if nest > NEST:
        return f"{where} is nested too deep to be read"
    if id(value) in seen:  # a cycle: it is being read already
        return None
    seen.add(id(value))
    if isinstance(value, Runnable) and not isinstance(value, BaseDecisionModel):  # a judge: read as an object
        refusal = check(value, depth + 1)
        return None if refusal is None else f"the model held in {where} waits: {refusal}"
    cls = type(value)
    items: list[Any] | None = None
    if cls in _SEQUENCES:
        items = list(value)
    elif cls in _MAPPINGS:
        items = [*value.keys(), *value.values()]
        if isinstance(value, defaultdict):
            items.append(value.default_factory)
    elif isinstance(value, ModuleType):
        return None if _library(value) else f"{where} names a module of the caller's code, which is not read"
    else:
        items = _code_parts(value)
    if items is not None:
        for item in items:
            refusal = _value(item, where, nest + 1, depth, check, callers, seen)
            if refusal is not None:
                return refusal
        return None
    readable = _package(cls) in _READ or (callers(cls) and cls.__module__ not in sys.builtin_module_names)
    if not readable or isinstance(value, (Iterator, Callable)):  # type: ignore[arg-type]
        return (
            f"{where} holds a value of type {cls.__qualname__}, which the guardrail does not know to be inert"
        )
    return _object(value, where, nest, depth, check, callers, seen)


def _code_parts(value: Any) -> list[Any] | None:
    """What a function reads besides its arguments (closure, defaults, the globals it names), or None."""
    if isinstance(value, functools.partial):
        return [value.func, *value.args, *value.keywords.values()]
    if isinstance(value, (MethodType, BuiltinFunctionType)):
        return [value.__self__, getattr(value, "__func__", None)]
    if not isinstance(value, FunctionType):
        return None
    if _library_code(value):  # library code: known, and not the caller's to have changed
        return []
    parts: list[Any] = [*(cell.cell_contents for cell in value.__closure__ or () if _filled(cell))]
    parts.extend([*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values()])
    names: set[str] = set()
    codes = [value.__code__]
    while codes and len(names) < BUDGET:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(const for const in code.co_consts if isinstance(const, CodeType))
    scope = value.__globals__
    parts.extend(scope[name] for name in sorted(names) if name in scope)
    return parts


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


@cache
def installed_roots() -> tuple[Path, ...]:
    """Where installed packages and the standard library live."""
    found = {sysconfig.get_paths()[key] for key in ("purelib", "platlib", "stdlib", "platstdlib")}
    found.update(getattr(site, "getsitepackages", list)())
    found.add(site.getusersitepackages())
    return tuple(Path(root).resolve() for root in found if root)


def _library(module: ModuleType) -> bool:
    """True for a module of the standard library or an installed package (not the caller's code)."""
    file = getattr(module, "__file__", None)
    if module.__name__.partition(".")[0] in sys.stdlib_module_names or file is None:
        return module.__name__ in sys.builtin_module_names or file is not None
    path = Path(file).resolve()
    return any(path.is_relative_to(root) for root in installed_roots())


def _object(
    value: Any,
    where: str,
    nest: int,
    depth: int,
    check: Check,
    callers: Callable[[type], bool],
    seen: set[int],
) -> str | None:
    """Every attribute of an object of the caller's code (or langchain-core's, pydantic's): read as values."""
    parts: list[Any] = []
    if isinstance(value, (Mapping, list, tuple, set, frozenset)):  # a subclass: its items too
        parts.extend([*value.keys(), *value.values()] if isinstance(value, Mapping) else list(value))
    parts.extend(getattr(value, "__dict__", {}).values())
    if isinstance(value, BaseModel):
        parts.extend((value.__pydantic_private__ or {}).values())
        parts.extend((value.__pydantic_extra__ or {}).values())
    for base in type(value).__mro__:
        parts.extend(slot for _, slot in _slots(value, base))
    for part in parts:
        refusal = _value(part, where, nest + 1, depth, check, callers, seen)
        if refusal is not None:
            return refusal
    return None
