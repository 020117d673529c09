"""The reference page of judge files, generated from the file format's own models and tables.

Every key of a judge file, of each kind of criterion and of a jury is read from
its pydantic model (`JudgeSpec`, `NoulSpec`...), every ``check:`` condition from
the conditions' table (`FORMS`, with what each takes), and every built-in
check's parameters from `BUILTIN_FORMS`; the one thing written here is an
example of each. A form or a key without an example stops the generator, so the
page cannot leave one out, and a test runs every example through the loader and
compares the committed page with what this module writes.

Write the page from the repository's root::

    python -m langchain_jev.spec._reference            # writes docs/judge-files.md
    python -m langchain_jev.spec._reference --check    # exit 1 when the page is stale
"""

from __future__ import annotations

import argparse
import sys
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from langchain_jev.spec._builtins import BUILTIN_FORMS
from langchain_jev.spec._conditions import _ARGUMENTS, FORMS, ConditionSpec
from langchain_jev.spec._model import (
    CheckSpec,
    ChoiceSpec,
    JudgeSpec,
    JurySpec,
    NoulSpec,
    ScoreSpec,
)

__all__ = [
    "CONDITION_EXAMPLES",
    "CRITERION_EXAMPLES",
    "KEY_EXAMPLES",
    "PAGE",
    "WHOLE_FILE",
    "main",
    "reference_page",
]

PAGE = Path("docs") / "judge-files.md"
"""Where the page is written, from the repository's root."""

WHOLE_FILE = """\
requires: [user_question, assistant_answer]
criteria:
  - name: searched
    kind: check
    check: {tool_called: search}
    defect: did not search
  - name: is_grounded
    kind: noul
    instructions: Is `assistant_answer` supported by `supporting_context`?
    minimum: 0.7
    applies_when: {present: supporting_context}
  - name: mode
    kind: choice
    instructions: How does `assistant_answer` respond to `user_question`?
    options: {answered: Gives the weather, clarification_needed: Asks which place}
    accepted: [answered, clarification_needed]
  - name: has_details
    kind: noul
    instructions: Does `assistant_answer` say when and how much?
    minimum: 0.7
    when_chosen: {criterion: mode, labels: [answered]}
"""
"""A whole judge file, the page's first example."""

KEY_EXAMPLES: dict[str, str] = {
    "version": "version: 1",
    "name": "name: weather",
    "description": "description: Judges weather answers against the forecast.",
    "requires": "requires: [user_question, assistant_answer]",
    "min_confidence": "min_confidence: 0.7",
    "fail_on_inconclusive": "fail_on_inconclusive: true",
    "fail_on_error": "fail_on_error: true",
    "fail_fast": "fail_fast: true",
    "feedback_renderer": "feedback_renderer: myproject.feedback:render",
    "model": "model: jev:jev-latest",
    "criteria": "criteria: [{kind: noul, name: polite, instructions: 'Polite?', minimum: 0.7}]",
}
"""One example of each top-level key of a judge file, as YAML."""

CRITERION_EXAMPLES: dict[str, str] = {
    "noul": """\
- name: polite
  kind: noul
  instructions: Is `assistant_answer` polite?
  minimum: 0.7
  when_false: The reply is curt or rude
""",
    "score": """\
- name: helpfulness
  kind: score
  instructions: How well does `assistant_answer` address `user_question`?
  levels: [Terrible, Mostly unhelpful, Mostly helpful, Excellent]
  minimum: 2
""",
    "choice": """\
- name: mode
  kind: choice
  instructions: How does `assistant_answer` respond to `user_question`?
  options: {answered: Gives the weather, clarification_needed: Asks which place}
  accepted: [answered, clarification_needed]
""",
    "check": """\
- name: valid_json
  kind: check
  check: {answer_is_json: true}
  defect: the answer is not JSON
  applies_when: {present: expected_output}
""",
}
"""One example of each kind of criterion, as a YAML list item."""

JURY_EXAMPLE = """\
model:
  jury: [jev:jev-latest, openai:gpt-4o-mini]
  combine: mean
  quorum: 2
"""
"""A jury as the model of a judge file."""

CONDITION_EXAMPLES: dict[str, str] = {
    "present": "{present: supporting_context}",
    "empty": "{empty: expected_output}",
    "field": "{field: search_required, equals: true}",
    "tool_called": "{tool_called: search}",
    "tool_not_called": "{tool_not_called: delete_account}",
    "answer_equals_expected": "{answer_equals_expected: true}",
    "answer_is_json": "{answer_is_json: true}",
    "trajectory_match": "{trajectory_match: {mode: unordered}}",
    "tool_arguments_valid": "{tool_arguments_valid: {}}",
    "no_repeated_tool_calls": "{no_repeated_tool_calls: {max_consecutive: 2}}",
    "no_sensitive_data": "{no_sensitive_data: {kinds: [email]}}",
    "json_match": "{json_match: {rules: {id: ignore}}}",
    "string_similarity": "{string_similarity: {minimum: 0.8}}",
    "code_parses": "{code_parses: {language: json}}",
    "code_type_checks": "{code_type_checks: {tool: mypy}}",
    "call": '{call: "myproject.checks:cites_a_source"}',
    "all": "{all: [{present: supporting_context}, {tool_called: search}]}",
    "any": "{any: [{tool_called: search}, {tool_called: lookup}]}",
    "not": "{not: {tool_called: search}}",
}
"""One example of each condition form, as flow YAML (what follows ``check:``)."""

_KINDS: dict[str, type[BaseModel]] = {
    "noul": NoulSpec,
    "score": ScoreSpec,
    "choice": ChoiceSpec,
    "check": CheckSpec,
}


def reference_page() -> str:
    """The page's markdown, from the models, the conditions' table and the examples.

    Raises:
        ValueError: a key, a kind or a condition form has no example, or an
            example names one that does not exist (the message names them).

    Example:
        >>> reference_page().splitlines()[2]
        '# Judge files'

    """
    _same_names("top-level key", set(KEY_EXAMPLES), set(_keys(JudgeSpec)))
    _same_names("kind of criterion", set(CRITERION_EXAMPLES), set(_KINDS))
    _same_names("condition form", set(CONDITION_EXAMPLES), set(FORMS))
    parts = [
        "<!-- Written by `python -m langchain_jev.spec._reference`: edit that module, not this page. -->",
        "",
        "# Judge files",
        "",
        "A judge file is a YAML or JSON file that describes a judge: its criteria, in order, and"
        " the judge's options. Check one with `langchain-jev validate judge.yaml`, run it with"
        " `langchain-jev judge DATA --judge judge.yaml` (see"
        " [the command line](command-line.md)), or build it in Python with"
        ' `load_judge("judge.yaml")`. This page lists every key and every condition a file can'
        " use, each with an example.",
        "",
        _yaml(WHOLE_FILE),
        "",
        "A file may use only the keys on this page: any other is refused, naming its place."
        " `langchain-jev schema` prints the same format as a JSON Schema, for editors.",
        "",
        "## Top-level keys",
        "",
        _keys_table(JudgeSpec, KEY_EXAMPLES),
        "",
        "A question names the state fields it reads in backticks (`` `user_question` ``); the"
        " fields and their names are on [Writing a judge](judges.md#the-state-a-judge-builds).",
        "",
        "## Criteria",
        "",
        "Each criterion of `criteria:` is told apart by its `kind`.",
    ]
    for kind, model in _KINDS.items():
        parts += ["", f"### `kind: {kind}`", "", _first_paragraph(model), ""]
        parts += [_keys_table(model, None), "", _yaml(CRITERION_EXAMPLES[kind])]
    parts += [
        "",
        "## A jury as the model",
        "",
        "`model:` takes one `provider:model`, or a jury of them"
        " (see [A jury of models](comparing.md#a-jury-of-models)):",
        "",
        _keys_table(JurySpec, None),
        "",
        _yaml(JURY_EXAMPLE),
        "",
        "## Conditions",
        "",
        "A condition is a mapping with exactly one of these keys. It is what `check:` holds, and"
        " what `applies_when:` holds for any criterion. Only `call` names code of your own, which"
        " runs only when you [opt in](command-line.md).",
        "",
        _conditions_table(),
        "",
        "## Built-in checks",
        "",
        "A built-in check takes a mapping of its parameters; `{}` gives every default. A check"
        " past its time bound raises (the row is an error), never passes.",
    ]
    for form, model in BUILTIN_FORMS.items():
        parts += ["", f"### `{form}`", "", _first_paragraph(model), ""]
        parts += [_keys_table(model, None, key="parameter")]
        parts += ["", _yaml(f"check: {CONDITION_EXAMPLES[form]}")]
    return "\n".join(parts) + "\n"


def _same_names(what: str, examples: set[str], names: set[str]) -> None:
    missing, unknown = sorted(names - examples), sorted(examples - names)
    if missing or unknown:
        raise ValueError(
            f"every {what} needs one example on the reference page: "
            f"missing {', '.join(missing) or 'none'}; unknown {', '.join(unknown) or 'none'}"
        )


def _keys(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """A model's keys as a file spells them (``all``, not ``all_``), in the model's order."""
    return {info.alias or name: info for name, info in model.model_fields.items()}


def _keys_table(model: type[BaseModel], examples: Mapping[str, str] | None, key: str = "key") -> str:
    head = f"| {key} | takes | default | meaning |"
    rule = "|---|---|---|---|"
    if examples is not None:
        head, rule = head + " example |", rule + "---|"
    rows = [head, rule]
    keys = _keys(model)
    for key, info in sorted(keys.items(), key=lambda item: item[0] != "kind"):  # `kind` first
        cells = [f"`{key}`", _takes(info.annotation), _default(info), _cell(info.description)]
        if examples is not None:
            cells.append(f"`{examples[key]}`")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _conditions_table() -> str:
    fields = ConditionSpec.model_fields
    rows = ["| condition | takes | true when | example |", "|---|---|---|---|"]
    for form in FORMS:
        info = fields[{"all": "all_", "any": "any_", "not": "not_"}.get(form, form)]
        meaning = _cell(info.description).removeprefix("True when ").removesuffix(".")
        if form == "field":
            meaning = "the state field equals `equals` (a JSON value: `true` is not `1`)"
            takes = f"{_ARGUMENTS[form]}, with `equals`"
        else:
            takes = "`true`" if _ARGUMENTS[form] == "true" else _ARGUMENTS[form]
        if form in BUILTIN_FORMS:
            takes = f"[its parameters](#{form})"
        if form == "call":
            meaning = "the function, given the judge input, returns true"
        rows.append(f"| `{form}` | {_cell(takes)} | {meaning} | `{CONDITION_EXAMPLES[form]}` |")
    return "\n".join(rows)


def _takes(annotation: Any) -> str:
    """What a key takes, in words, read from its type."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " or ".join(f"`{_flow(arg)}`" for arg in args)
    if origin in (Union, types.UnionType):
        shown = [_takes(arg) for arg in args if arg is not type(None)]
        return " or ".join(dict.fromkeys(shown))
    if origin is not None and getattr(origin, "__name__", "") == "Annotated":
        return _takes(args[0])
    if hasattr(annotation, "__metadata__"):  # Annotated[...]
        return _takes(args[0])
    if origin in (list, Sequence):
        inner = args[0] if args else Any
        return "a list" if inner is Any else f"a list of {_plural(_takes(inner))}"
    if origin in (dict, Mapping):
        return "a mapping"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "a condition" if annotation is ConditionSpec else "a mapping"
    return _SIMPLE.get(annotation, "a JSON value")


_SIMPLE: dict[Any, str] = {str: "text", float: "a number", int: "a whole number", bool: "`true` or `false`"}


def _plural(words: str) -> str:
    plurals = {"text": "texts", "number": "numbers", "condition": "conditions", "mapping": "mappings"}
    plurals["JSON value"] = "JSON values"
    parts = [part.removeprefix("a ") for part in words.split(" or ")]
    return " or ".join(plurals.get(part, part) for part in parts)


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    if info.default_factory is not None:
        value: Any = info.default_factory()  # type: ignore[call-arg]
    else:
        value = info.default
    if value is None or value is PydanticUndefined:
        return "none"
    if value == [] or value == {}:
        return "none"
    return f"`{_flow(value)}`"


def _flow(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


def _cell(text: str | None) -> str:
    return _markdown(text or "").replace("|", "\\|")


def _first_paragraph(model: type[BaseModel]) -> str:
    return _markdown((model.__doc__ or "").strip().split("\n\n", 1)[0])


def _markdown(text: str) -> str:
    """A docstring's text on one line, its reStructuredText literals (````x````) as markdown."""
    return " ".join(text.split()).replace("``", "`")


def _yaml(text: str) -> str:
    return f"```yaml\n{text.rstrip()}\n```"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the page (or, with ``--check``, say whether it is current); return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m langchain_jev.spec._reference", description=__doc__)
    parser.add_argument("path", nargs="?", default=str(PAGE), help=f"the page (default {PAGE})")
    parser.add_argument("--check", action="store_true", help="exit 1 when the page differs")
    args = parser.parse_args(argv)
    path, text = Path(args.path), reference_page()
    if args.check:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            sys.stderr.write(f"{path} is stale: run python -m langchain_jev.spec._reference\n")
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
