"""The scripted server's answer-script language: entries to wire answers, rules, scripts read and checked.

- `answers_for`: the wire answers to one request's questions from a script (a mapping, or a
  callable ``(state, questions) -> {name: entry}``), rules applied (`by_rules`); a question the
  script does not name is a hazard's "no hazard", a ``default_noul`` (``--noul``) or `Unscripted`;
- `wire_answer`: one script entry as the wire answer to its question;
- `load_script`, `parse_answer`: a script read for ``--answers`` (inline JSON or a bounded file)
  and one ``--answer NAME=VALUE``, each entry checked (`check_entry`) before the server starts;
- `is_ruled`, `scripted_names`: whether a script has the ``{"answers", "rules"}`` form, the names it scripts.

Pure but for `load_script`'s read; the entries' forms are drawn in `langchain_jev.testing.server`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from langchain_jev.models import _unique_json as unique_json
from langchain_jev.testing._unscripted import HAZARD_DEFAULT, how_to_answer, is_hazard_question, question_type

__all__ = [
    "MAX_SCRIPT_BYTES",
    "UNSCRIPTED",
    "Answerer",
    "SayOnce",
    "Unscripted",
    "answers_for",
    "by_rules",
    "check_entry",
    "is_ruled",
    "load_script",
    "scripted_names",
    "parse_answer",
    "wire_answer",
]

Answerer = Callable[[Any, Mapping[str, Any]], Mapping[str, Any]]
"""A script computed per request: ``(state, questions) -> {name: entry}``."""

SayOnce = Callable[[str, str], None]
"""``(question name, message)``: say a message about a question, once per question."""

UNSCRIPTED = object()
"""The entry of a question nobody scripted (no answer is made up for it)."""


class Unscripted(Exception):
    """A request asks questions the script does not name (and no default answers them)."""


def _unnamed(name: str, question: Any, default_noul: float | None, command: bool, say_once: SayOnce) -> Any:
    """The entry for a question the script does not name, or `UNSCRIPTED` when it gets none."""
    if is_hazard_question(name, question):
        return HAZARD_DEFAULT
    if question_type(question) == "noul" and default_noul is not None:
        flag = "--noul" if command else "default_noul"
        say_once(name, f"noul {name!r} is not scripted: answered {default_noul:g} ({flag})")
        return default_noul
    return UNSCRIPTED


def answers_for(
    script: Mapping[str, Any] | Answerer,
    state: Any,
    questions: Mapping[str, Any],
    *,
    default_noul: float | None,
    command: bool,
    say_once: SayOnce,
) -> dict[str, Any]:
    """The wire answers to ``questions`` from ``script`` for ``state`` (a left-out entry: no answer).

    ``command`` says the command line runs the server, so messages name its flags.

    Raises:
        Unscripted: a question the script does not name and no default answers
            (its message names each such question and how to script it).

    """
    entries: Mapping[str, Any] = script(state, questions) if callable(script) else by_rules(script, state)
    out: dict[str, Any] = {}
    missing: list[str] = []
    for name, question in questions.items():
        entry = entries.get(name, UNSCRIPTED)
        if entry is UNSCRIPTED:
            entry = _unnamed(name, question, default_noul, command, say_once)
        if entry is UNSCRIPTED:
            missing.append(name)
            continue
        if callable(entry):
            entry = entry(state, question)
        if entry is None:
            continue
        out[name] = wire_answer(question, entry)
    if missing:
        said = []
        for name in missing:
            kind = question_type(questions[name])
            said.append(f"{kind} {name!r}: {how_to_answer(name, kind, command=command)}")
            say_once(name, f"the script does not name {said[-1]}")
        raise Unscripted("the scripted server has no answer for " + "; ".join(said))
    return out


def is_ruled(script: Mapping[str, Any]) -> bool:
    """True for the ``{"answers", "rules"}`` form (a list is never an answer, so no name clashes)."""
    return isinstance(script.get("rules"), list)


def by_rules(script: Mapping[str, Any], state: Any) -> Mapping[str, Any]:
    """The entries of a script for one request's state (see `langchain_jev.testing.server`)."""
    if not is_ruled(script):
        return script
    entries = dict(script.get("answers") or {})
    for rule in script["rules"]:
        if _applies(rule.get("when") or {}, state):
            entries.update(rule.get("answers") or {})
    return entries


def _applies(when: Mapping[str, Any], state: Any) -> bool:
    if not isinstance(state, Mapping):
        return False
    for name, text in when.items():
        value = state.get(name)
        if value is None:
            return False
        found = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if str(text) not in found:
            return False
    return True


def wire_answer(question: Mapping[str, Any], entry: Any) -> Any:
    """Turn a script entry into the wire answer to ``question`` (see `langchain_jev.testing.server`).

    Example:
        >>> wire_answer({"type": "noul"}, 0.3)
        {'type': 'noul', 'noul': 0.3}
        >>> wire_answer({"type": "choice", "criteria": {"a": None, "b": None}}, "b")["choice"]
        'b'

    """
    kind = question.get("type")
    if isinstance(entry, Mapping) and "type" in entry:
        return dict(entry)
    if entry is UNSCRIPTED:
        raise ValueError("wire_answer needs an entry: the server answers no question nobody scripted")
    if kind == "noul":
        return {"type": "noul", "noul": float(entry)}
    if kind == "choice":
        labels = list(question.get("criteria") or {})
        if isinstance(entry, str):
            rest = [label for label in labels if label != entry]
            share = 0.1 / len(rest) if rest else 0.0
            entry = {label: (0.9 if label == entry or not rest else share) for label in labels}
        probabilities = {str(k): float(v) for k, v in entry.items()}
        chosen = max(probabilities, key=lambda k: probabilities[k])
        return {
            "type": "choice",
            "choice": chosen,
            "confidence": probabilities[chosen],
            "probabilities": probabilities,
        }
    if kind == "score":
        levels = list(question.get("criteria") or [])
        top = len(levels) - 1
        spread: Mapping[Any, Any] = _spread(float(entry), top) if isinstance(entry, (int, float)) else entry
        levels_p = {int(k): float(v) for k, v in spread.items()}
        value = sum(level * p for level, p in levels_p.items())
        return {
            "type": "score",
            "score": value,
            "confidence": max(levels_p.values()),
            "legend": {str(i): level for i, level in enumerate(levels)},
            "probabilities": {str(k): v for k, v in levels_p.items()},
        }
    return {"type": kind or "noul", "noul": 0.9}


def _spread(value: float, top: int) -> dict[int, float]:
    """A distribution over levels 0..top whose expected value is ``value``."""
    value = min(max(value, 0.0), float(top))
    low = math.floor(value)
    high = min(low + 1, top)
    upper = value - low
    probabilities = dict.fromkeys(range(top + 1), 0.0)
    probabilities[low] += 1.0 - upper
    probabilities[high] += upper
    return probabilities


MAX_SCRIPT_BYTES = 1 << 20
"""The largest script file ``--answers`` reads (as large as a judge file may be)."""


def load_script(source: str) -> dict[str, Any]:
    """Read a script: inline JSON (``{...}``) or the path of a JSON file holding one object.

    Raises:
        ValueError: the file cannot be read, or it is not a JSON object of script entries.

    Example:
        >>> load_script('{"polite": 0.2, "mode": "refused", "helpful": {"1": 0.8, "2": 0.2}}')
        {'polite': 0.2, 'mode': 'refused', 'helpful': {'1': 0.8, '2': 0.2}}

    """
    text = source
    if not source.lstrip().startswith(("{", "[")):
        from langchain_jev.datasets._reading import read_bounded

        try:  # a regular file within bounds: a FIFO, a device or a folder is refused at once
            text = read_bounded(source, MAX_SCRIPT_BYTES).decode("utf-8")
        except OSError as error:
            raise ValueError(f"--answers: cannot read {source}: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise ValueError(f"--answers: {source} is not UTF-8 text: {error.reason}") from None
    try:
        script = unique_json.loads_refusing(text)
    except unique_json.RepeatedKeyError as error:  # an answer scripted twice: refused, never one picked
        raise ValueError(f"--answers: {source}: {error}") from None
    except ValueError as error:
        raise ValueError(f"--answers: {source} is not JSON: {error}") from None
    if not isinstance(script, dict):
        raise ValueError(
            "--answers: the script must be a JSON object {question name: answer}, "
            f"got {type(script).__name__}"
        )
    if is_ruled(script):
        _check_ruled(script)
    else:
        _check_entries(script, "")
    return script


def _check_ruled(script: Mapping[str, Any]) -> None:
    unknown = sorted(set(script) - {"answers", "rules"})
    if unknown:
        raise ValueError(f"a script with rules has only answers and rules, not {', '.join(unknown)}")
    _check_entries(script.get("answers") or {}, "answers.")
    for index, rule in enumerate(script["rules"]):
        where = f"rules[{index}]"
        if not isinstance(rule, dict) or set(rule) - {"when", "answers"}:
            raise ValueError(f"{where}: a rule is an object {{when: {{field: text}}, answers: {{...}}}}")
        when = rule.get("when")
        if not isinstance(when, dict) or not all(isinstance(v, str) for v in when.values()):
            raise ValueError(f"{where}.when: expected an object {{state field: text it contains}}")
        _check_entries(rule.get("answers") or {}, f"{where}.answers.")


def _check_entries(entries: Any, where: str) -> None:
    if not isinstance(entries, dict):
        raise ValueError(f"{where.rstrip('.') or 'the script'}: expected an object {{question name: answer}}")
    for name, entry in entries.items():
        check_entry(f"{where}{name}", entry)


def check_entry(name: str, entry: Any) -> None:
    """Refuse an entry that is not a number, a label, a distribution, a wire answer or null."""
    if entry is None or isinstance(entry, str):
        return
    if isinstance(entry, bool) or not isinstance(entry, (int, float, dict)):
        raise ValueError(
            f"answer for {name!r}: expected a number, a label, a distribution, a wire answer or null, "
            f"got {json.dumps(entry)}"
        )
    if isinstance(entry, (int, float)) and not math.isfinite(entry):
        raise ValueError(f"answer for {name!r}: {entry} is not a finite number")
    if isinstance(entry, dict) and "type" not in entry:
        for key, probability in entry.items():
            if isinstance(probability, bool) or not isinstance(probability, (int, float)):
                raise ValueError(
                    f"answer for {name!r}: the probability of {key!r} must be a number, "
                    f"got {json.dumps(probability)}"
                )


def parse_answer(text: str) -> tuple[str, Any]:
    """One ``--answer NAME=VALUE``: the name, and the value read as JSON (else a bare label), checked."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--answer takes NAME=VALUE, got {text!r}")
    try:
        entry = unique_json.loads_refusing(value)
    except unique_json.RepeatedKeyError as error:
        raise ValueError(f"--answer {name.strip()}: {error}") from None
    except ValueError:
        entry = value  # a bare label
    check_entry(name.strip(), entry)
    return name.strip(), entry


def scripted_names(script: Mapping[str, Any]) -> set[str]:
    """The question names a script answers (with rules: those of its answers and of every rule)."""
    if not is_ruled(script):
        return set(script)
    names = set(script.get("answers") or {})
    for rule in script["rules"]:
        names.update(rule.get("answers") or {})
    return names
