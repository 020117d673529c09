"""JSON read by one rule: a key an object names twice is ambiguous, and nothing is picked from it.

Python's `json` (and every JSON parser the package's peers use) keeps the last
value of a key an object names twice, silently. An answer read that way is a
guess: a decision model that answered ``"noul": 0.1`` and ``"noul": 0.9`` in one
object said nothing readable. Every place the package reads answers (the Jev
wire, a chat model's JSON, the scripted server's scripts and requests) reads
through here:

- `loads` parses as `json.loads` does, but an object that names a key twice
  keeps **none** of that key's values (no reader can pick one, even one that
  does not look), and every such place is reported as a `Repeat`;
- `decoder` is the same rule as a ``json.JSONDecoder`` (for ``raw_decode``), and
  `repeats_in` finds the repeats inside a value it decoded;
- `answers_made_unreadable` says which answers of a response a repeat makes
  unreadable (a repeated question name, or a key repeated anywhere inside an
  answer), and which repeats make the whole body unreadable (anywhere else);
- `loads_refusing` is the rule for files: a repeat raises `RepeatedKeyError`,
  naming the key and where it is.

Example:
    >>> value, repeats = loads('{"answers": {"safe": {"type": "noul", "noul": 0.1, "noul": 0.9}}}')
    >>> value
    {'answers': {'safe': {'type': 'noul'}}}
    >>> [repeat.where for repeat in repeats]
    ['answers.safe.noul']
    >>> answers_made_unreadable(repeats)
    ({'safe': 'answers.safe.noul: the key "noul" is given 2 times; an ambiguous answer is unreadable'}, ())

"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "RepeatedKeyError",
    "Repeat",
    "answers_made_unreadable",
    "decoder",
    "loads",
    "loads_refusing",
    "repeats_in",
]

Path = tuple[str | int, ...]
"""Where a value sits in a document: object keys and array indexes from the top."""


@dataclass(frozen=True)
class Repeat:
    """One key an object named more than once: where the object is, the key, and every value it was given."""

    path: Path
    """Where the object is (``()`` for the top level)."""
    key: str
    """The key named more than once."""
    values: tuple[Any, ...]
    """Every value the key was given, in order (none of them is kept in the object)."""

    @property
    def where(self) -> str:
        """The key's place, dotted: ``answers.safe.noul``, ``rules[0].answers.polite``."""
        return _dotted((*self.path, self.key))

    def problem(self, thing: str = "answer") -> str:
        """One sentence: which key is given how many times, and that the ambiguous ``thing`` is unreadable."""
        return (
            f"{self.where}: the key {json.dumps(self.key, ensure_ascii=False)} is given "
            f"{len(self.values)} times; an ambiguous {thing} is unreadable"
        )


class RepeatedKeyError(ValueError):
    """A JSON document that names a key twice in one object, where the package refuses it (a file)."""

    def __init__(self, repeat: Repeat) -> None:
        super().__init__(
            f"{repeat.where}: the key {json.dumps(repeat.key, ensure_ascii=False)} is given "
            f"{len(repeat.values)} times in one object; give it once"
        )
        self.repeat = repeat


class _Repeating(dict[str, Any]):
    """An object that named a key more than once: it holds its other keys, and the repeats apart."""

    __slots__ = ("repeated",)

    repeated: dict[str, tuple[Any, ...]]


def _hook(found: list[bool]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        made = dict(items)
        if len(made) == len(items):  # the usual case: every key once
            return made
        values: dict[str, list[Any]] = {}
        for key, value in items:
            values.setdefault(key, []).append(value)
        kept = _Repeating({key: given[0] for key, given in values.items() if len(given) == 1})
        kept.repeated = {key: tuple(given) for key, given in values.items() if len(given) > 1}
        found[0] = True
        return kept

    return pairs


def loads(text: str | bytes | bytearray) -> tuple[Any, tuple[Repeat, ...]]:
    """Parse JSON as `json.loads` does; a key named twice in an object is left out of it, and reported.

    Raises:
        ValueError: the text is not JSON (``json.JSONDecodeError``), or nests too deeply
            for the parser (a ``RecursionError`` is reported as a ``ValueError``).

    Example:
        >>> loads('{"a": 1, "b": [{"c": 2, "c": 3}]}')[1][0].where
        'b[0].c'
        >>> loads('{"a": 1}')
        ({'a': 1}, ())

    """
    found = [False]
    try:
        value = json.loads(text, object_pairs_hook=_hook(found))
    except RecursionError:
        raise ValueError("the JSON nests too deeply to be read") from None
    return value, (repeats_in(value) if found[0] else ())


def decoder() -> json.JSONDecoder:
    """A ``json.JSONDecoder`` that follows the rule of `loads` (find the repeats with `repeats_in`).

    Example:
        >>> value, end = decoder().raw_decode('{"a": 1, "a": 2} and more')
        >>> value, [r.where for r in repeats_in(value)], end
        ({}, ['a'], 16)

    """
    return json.JSONDecoder(object_pairs_hook=_hook([False]))


def repeats_in(value: Any) -> tuple[Repeat, ...]:
    """Every key named twice in a value parsed by `loads` or `decoder`, in document order.

    Example:
        >>> value, _ = loads('[{"x": {"y": 1, "y": 1}}]')
        >>> [(r.where, r.values) for r in repeats_in(value)]
        [('[0].x.y', (1, 1))]

    """
    found: list[Repeat] = []
    stack: list[tuple[Path, Any]] = [((), value)]
    while stack:  # no recursion: whatever depth the parser took, this takes too
        path, item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item, _Repeating):
                found.extend(Repeat(path, key, given) for key, given in item.repeated.items())
                for key, given in reversed(item.repeated.items()):
                    stack.extend(((*path, key), one) for one in reversed(given))
            stack.extend(((*path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, index), child) for index, child in reversed(list(enumerate(item))))
    return tuple(found)


def answers_made_unreadable(
    repeats: tuple[Repeat, ...] | list[Repeat], answers: Path = ("answers",)
) -> tuple[dict[str, str], tuple[Repeat, ...]]:
    """Which answers the repeats make unreadable, and the repeats that make the whole body so.

    Answers sit at ``answers`` (a path; ``()`` when the document is the answers
    object itself). A question name given twice, or a key given twice anywhere
    inside one answer, makes that answer unreadable (the name, with the reason).
    A key given twice anywhere else (the answers object named twice, ``model`` or
    ``usage`` twice) is a repeat of the whole body: it is returned for the caller
    to refuse the body.

    Example:
        >>> _, repeats = loads('{"model": "a", "model": "b", "answers": {"x": {}, "x": {}}}')
        >>> names, whole = answers_made_unreadable(repeats)
        >>> list(names), [r.where for r in whole]
        (['x'], ['model'])

    """
    names: dict[str, str] = {}
    whole: list[Repeat] = []
    depth = len(answers)
    for repeat in repeats:
        place = (*repeat.path, repeat.key)
        if len(place) > depth and place[:depth] == answers and isinstance(place[depth], str):
            names.setdefault(str(place[depth]), repeat.problem())
        else:
            whole.append(repeat)
    return names, tuple(whole)


def loads_refusing(text: str | bytes | bytearray) -> Any:
    """Parse JSON as `json.loads` does, refusing a document that names a key twice in one object.

    Raises:
        RepeatedKeyError: the first key given twice (a ``ValueError``, naming it and its place).
        ValueError: the text is not JSON.

    Example:
        >>> loads_refusing('{"polite": 0.2, "polite": 0.9}')  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev.models._unique_json.RepeatedKeyError: polite: the key "polite" is given 2 times ...

    """
    value, repeats = loads(text)
    if repeats:
        raise RepeatedKeyError(repeats[0])
    return value


def _dotted(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
