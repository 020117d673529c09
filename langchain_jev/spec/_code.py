"""Code a judge file refers to, and the user's opt-in to run it.

A judge file is data. It may name code (a ``{call: "package.module:function"}``
condition, a ``feedback_renderer``), but validating it never imports anything,
and building the judge imports only what the user trusted: ``allow_code=True``
for any module, or a list of trusted module prefixes (``["myproject.checks"]``
trusts ``myproject.checks`` and the modules below it). With prefixes, what a
reference names must be defined in a trusted module, and so must every object
its dotted path goes through: ``myproject.checks:os.system`` is refused, since
``os`` is only imported there (`trust_test`). The built-in conditions are data
and need no opt-in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple

from langchain_jev._errors import JevConfigurationError
from langchain_jev.spec._conditions import ConditionSpec
from langchain_jev.spec._errors import Problem, format_location

if TYPE_CHECKING:
    from langchain_jev.spec._model import JudgeSpec

__all__ = [
    "AllowCode",
    "CodeReference",
    "code_references",
    "module_trusted",
    "refused_code",
    "trust_test",
    "trusted",
]

AllowCode = bool | str | Sequence[str]
"""The opt-in to run code a judge file names: True, False, or trusted module prefixes."""


class CodeReference(NamedTuple):
    """One place where a judge file names code."""

    where: str
    """The place in the file, such as ``criteria[2].check.call``."""
    criterion: str | None
    """The criterion it belongs to (None for the judge's own ``feedback_renderer``)."""
    reference: str
    """The import path, ``package.module:function``."""


def code_references(spec: JudgeSpec) -> list[CodeReference]:
    """Every place the judge file names code, in file order.

    Example:
        >>> from langchain_jev.spec import load_spec
        >>> spec = load_spec({"criteria": [{"kind": "check", "name": "mine",
        ...     "check": {"not": {"call": "checks:is_short"}}, "defect": "too long"}]})
        >>> code_references(spec)
        [CodeReference(where='criteria[0].check.not.call', criterion='mine', reference='checks:is_short')]

    """
    found: list[CodeReference] = []
    for index, criterion in enumerate(spec.criteria):
        for key in ("check", "applies_when"):
            condition = getattr(criterion, key, None)
            if isinstance(condition, ConditionSpec):
                for where, reference in _calls(condition, ["criteria", index, key]):
                    found.append(CodeReference(where, criterion.name, reference))
    if spec.feedback_renderer is not None:
        found.append(CodeReference("feedback_renderer", None, spec.feedback_renderer))
    return found


def trusted(reference: str, allow_code: AllowCode) -> bool:
    """True when ``allow_code`` trusts the module of ``reference``.

    Example:
        >>> trusted("myproject.checks.text:short", ["myproject.checks"])
        True
        >>> trusted("myproject_evil:run", ["myproject"]), trusted("os:system", False)
        (False, False)

    """
    return module_trusted(reference.partition(":")[0], allow_code)


def module_trusted(module: str, allow_code: AllowCode) -> bool:
    """True when ``allow_code`` trusts the module named ``module``.

    Example:
        >>> module_trusted("myproject.checks", ["myproject"]), module_trusted("os", ["myproject"])
        (True, False)

    """
    if allow_code is True:
        return True
    if allow_code is False:
        return False
    prefixes = [allow_code] if isinstance(allow_code, str) else list(allow_code)
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def trust_test(allow_code: AllowCode) -> Callable[[str], bool] | None:
    """The test `import_callable` applies to each module a reference goes through; None trusts all.

    A reference must not merely start in a trusted module: the function or class
    it names, and each object on the way, must be defined in one.

    Example:
        >>> from langchain_jev.spec._conditions import import_callable
        >>> import_callable("json:dumps", trust_test(["json"]))  # doctest: +ELLIPSIS
        <function dumps at ...>
        >>> import_callable("json:codecs.open", trust_test(["json"]))
        Traceback (most recent call last):
        ...
        ValueError: 'json:codecs' is defined in 'codecs', which is not trusted: ...

    """
    if allow_code is True:
        return None
    return lambda module: module_trusted(module, allow_code)


def check_allow_code(allow_code: object) -> AllowCode:
    """Validate an ``allow_code`` argument.

    Raises:
        JevConfigurationError: it is neither a bool nor module prefixes.

    """
    if isinstance(allow_code, bool):
        return allow_code
    prefixes = [allow_code] if isinstance(allow_code, str) else allow_code
    if isinstance(prefixes, Sequence) and all(
        isinstance(prefix, str) and prefix.strip(". ") for prefix in prefixes
    ):
        return [str(prefix).strip(". ") for prefix in prefixes]
    raise JevConfigurationError(
        f"allow_code must be True, False or a list of trusted module prefixes, got {allow_code!r}"
    )


def refused_code(spec: JudgeSpec, allow_code: AllowCode) -> list[Problem]:
    """The code references ``allow_code`` does not trust, each as a located problem.

    Example:
        >>> from langchain_jev.spec import load_spec
        >>> spec = load_spec({"feedback_renderer": "mine:render", "criteria": [
        ...     {"kind": "noul", "name": "ok", "instructions": "Ok?", "minimum": 0.5}]})
        >>> [where for where, _ in refused_code(spec, False)], refused_code(spec, ["mine"])
        (['feedback_renderer'], [])

    """
    problems: list[Problem] = []
    for where, criterion, reference in code_references(spec):
        if trusted(reference, allow_code):
            continue
        owner = f"criterion {criterion!r}" if criterion is not None else "the judge"
        module = reference.partition(":")[0]
        problems.append(
            (
                where,
                f"{owner} refers to code {reference!r}; a judge file runs no code unless you opt in: "
                f"load_judge(..., allow_code=True), or trust its module with "
                f"allow_code=[{module!r}], or pass --allow-code on the command line",
            )
        )
    return problems


def _calls(condition: ConditionSpec, path: list[str | int]) -> Iterator[tuple[str, str]]:
    stack: list[tuple[ConditionSpec, list[str | int]]] = [(condition, path)]
    found: list[tuple[str, str]] = []
    while stack:
        current, here = stack.pop()
        if current.call is not None:
            found.append((format_location([*here, "call"]), current.call))
        for key, items in (("all", current.all_), ("any", current.any_)):
            for index, item in enumerate(items or ()):
                stack.append((item, [*here, key, index]))
        if current.not_ is not None:
            stack.append((current.not_, [*here, "not"]))
    yield from sorted(found, key=lambda pair: _order(pair[0]))


def _order(where: str) -> list[object]:
    parts = where.replace("[", ".").replace("]", "").split(".")
    return [int(part) if part.isdigit() else part for part in parts]
