"""The fingerprint of a judge: a results file records it, and ``--resume`` continues only the same judge.

Pure: `judge_description` turns a judge spec and the model's name into plain
data (the criteria with their questions and thresholds, the judge's options,
the model), `fingerprint` hashes it, and `differences` says in words what
changed between two descriptions: criteria renamed, added, removed or changed
(and how), options, the model. The judge file's ``name``, ``description`` and
``version`` are left out: they change no verdict.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_jev.spec import JudgeSpec

__all__ = ["differences", "fingerprint", "judge_description"]

_COSMETIC = ("name", "description", "version")


def judge_description(spec: JudgeSpec | Mapping[str, Any], model: str | None) -> dict[str, Any]:
    """What decides a judge's verdicts, as JSON-ready data: ``{"model", "options", "criteria"}``.

    ``spec`` is a `JudgeSpec` or its JSON dump; every option is spelled out
    (defaults included), so a file that states a default and one that leaves it
    out describe the same judge.

    Example:
        >>> from langchain_jev.spec import load_spec
        >>> spec = load_spec({"criteria": [{"kind": "noul", "name": "ok", "instructions": "Ok?",
        ...     "minimum": 0.5}]})
        >>> described = judge_description(spec, "jev-latest")
        >>> described["model"], [c["name"] for c in described["criteria"]]
        ('jev-latest', ['ok'])
        >>> described["options"]["min_confidence"]  # defaults spelled out
        0.6

    """
    from langchain_jev.spec import JudgeSpec

    parsed = spec if isinstance(spec, JudgeSpec) else JudgeSpec.model_validate(dict(spec))
    data = parsed.model_dump(mode="json", by_alias=True)
    criteria = data.pop("criteria")
    for key in _COSMETIC:
        data.pop(key, None)
    return {"model": model, "options": data, "criteria": criteria}


def fingerprint(description: Mapping[str, Any]) -> str:
    """A short hash of a judge description (canonical JSON).

    Example:
        >>> fingerprint({"model": "m", "options": {}, "criteria": []}) == fingerprint(
        ...     {"criteria": [], "options": {}, "model": "m"})
        True

    """
    text = json.dumps(description, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


def differences(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What changed from the judge ``before`` to the judge ``after``, one sentence each.

    A criterion that is gone while one of another name and the same content
    appeared was renamed; a criterion of the same name with other content
    changed (the fields that differ are named, with their values when short).

    Example:
        >>> old = {"model": "jev-latest", "options": {}, "criteria": [
        ...     {"name": "polite", "kind": "noul", "minimum": 0.7},
        ...     {"name": "short", "kind": "noul", "minimum": 0.5}]}
        >>> new = {"model": "jev-canary", "options": {}, "criteria": [
        ...     {"name": "courteous", "kind": "noul", "minimum": 0.7},
        ...     {"name": "short", "kind": "noul", "minimum": 0.6}]}
        >>> for line in differences(old, new):
        ...     print(line)
        model 'jev-latest' -> 'jev-canary'
        criterion 'polite' renamed to 'courteous'
        criterion 'short' changed: minimum 0.5 -> 0.6

    """
    lines: list[str] = []
    if before.get("model") != after.get("model"):
        lines.append(f"model {before.get('model')!r} -> {after.get('model')!r}")
    lines.extend(_changed_fields("option", _mapping(before.get("options")), _mapping(after.get("options"))))
    lines.extend(_criteria(_criteria_list(before.get("criteria")), _criteria_list(after.get("criteria"))))
    lines.extend(  # what ran the conversations of a simulation (`langchain-jev simulate`)
        _changed_fields("simulation", _mapping(before.get("simulation")), _mapping(after.get("simulation")))
    )
    if not lines and fingerprint(before) != fingerprint(after):
        lines.append("the judge differs")
    return lines


def _criteria(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> list[str]:
    old_by_name = {str(c.get("name")): c for c in old}
    new_by_name = {str(c.get("name")): c for c in new}
    removed = [name for name in old_by_name if name not in new_by_name]
    added = [name for name in new_by_name if name not in old_by_name]
    lines: list[str] = []
    for name in list(removed):
        body = _without_name(old_by_name[name])
        twin = next((a for a in added if _without_name(new_by_name[a]) == body), None)
        if twin is not None:
            lines.append(f"criterion {name!r} renamed to {twin!r}")
            removed.remove(name)
            added.remove(twin)
    lines.extend(f"criterion {name!r} removed" for name in removed)
    lines.extend(f"criterion {name!r} added" for name in added)
    for name, criterion in old_by_name.items():
        if name in new_by_name and criterion != new_by_name[name]:
            changed = _changed_fields("", criterion, new_by_name[name], bare=True)
            lines.append(f"criterion {name!r} changed: " + "; ".join(changed))
    kept_old = [n for n in old_by_name if n in new_by_name]
    kept_new = [n for n in new_by_name if n in old_by_name]
    if kept_old != kept_new:
        lines.append("the criteria are in another order")
    return lines


def _changed_fields(
    what: str, old: Mapping[str, Any], new: Mapping[str, Any], *, bare: bool = False
) -> list[str]:
    lines = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) == new.get(key):
            continue
        label = key if bare else f"{what} {key}"
        before, after = _short(old.get(key)), _short(new.get(key))
        lines.append(f"{label} {before} -> {after}" if before and after else f"{label} differs")
    return lines


def _short(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else ""


def _without_name(criterion: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in criterion.items() if k != "name"}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _criteria_list(value: Any) -> list[Mapping[str, Any]]:
    return [c for c in value if isinstance(c, Mapping)] if isinstance(value, list) else []
