"""The trajectory judge: an agent's tool calls, by code first, then two questions.

========================  =====  ============================================  ============
criterion                 kind   decides                                       passes when
========================  =====  ============================================  ============
``trajectory_match``      check  ``tool_calls`` against ``reference_tool_calls``  they match
                                 in ``mode`` (strict, unordered, subset,
                                 superset; agentevals' semantics)
``tool_arguments_valid``  check  every call's arguments against its tool's     all fit
                                 JSON Schema (``tool_schemas``, or ``tools``)
``no_repeated_calls``     check  no call repeated with the same arguments,     none
                                 no tool called 4 times in a row
``right_tools``           noul   the calls were the right ones for the request yes >= 0.7
``task_completed``        noul   the answer, with the tool results, completes  yes >= 0.7
                                 the task
========================  =====  ============================================  ============

State fields: ``user_question``, ``assistant_answer``, ``reference_tool_calls``
(a list of ``{name, arguments}``; only with a match mode) and ``tool_schemas``
(only when the tools are not given to the factory); ``tool_calls`` when the agent
made any. The checks never reach the model; the two questions go in one request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_jev._criteria import JevCriterion
from langchain_jev._errors import JevConfigurationError
from langchain_jev._judge import JevJudge
from langchain_jev.judges._build import prebuilt_criteria, prebuilt_judge
from langchain_jev.judges._checks.tool_calls import ArgumentsMode, ArgumentsRule, TrajectoryMode

__all__ = ["trajectory_criteria", "trajectory_judge"]


def trajectory_judge(
    model: Any = None,
    *,
    mode: TrajectoryMode | None = "strict",
    arguments: ArgumentsMode = "exact",
    per_tool: Mapping[str, ArgumentsRule] | None = None,
    reference_field: str = "reference_tool_calls",
    tools: Sequence[Any] | Mapping[str, Any] | None = None,
    check_arguments: bool = True,
    max_identical: int = 1,
    max_consecutive: int = 3,
    thresholds: Mapping[str, float] | None = None,
    **options: Any,
) -> JevJudge:
    """The trajectory judge (see the module documentation for its rubric).

    Args:
        model: anything `JevJudge` accepts; None for Jev from the environment.
        mode: how ``tool_calls`` are matched with the reference; None leaves the match out.
        arguments: how two calls' arguments are compared (exact, ignore, subset, superset).
        per_tool: a tool's own arguments rule: a mode, the key paths (dotted) that alone
            must be equal, or ``{"mode": ..., "keys": [...], "ignore": [...]}``.
        reference_field: the state field holding the reference calls.
        tools: the agent's tools (LangChain tools, OpenAI or Anthropic tool
            definitions, or a mapping of name to JSON Schema); None reads them from
            the ``tool_schemas`` state field.
        check_arguments: False leaves the arguments check out.
        max_identical: times one call (same tool, same arguments) may be made.
        max_consecutive: times one tool may be called back to back.
        thresholds: ``{"right_tools": ..., "task_completed": ...}`` to replace 0.7.
        options: `JevJudge` options.

    Example:
        >>> from langchain_jev import JevJudgeInput
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model = ScriptedDecisionModel({"right_tools": 0.9, "task_completed": 0.9})
        >>> judge = trajectory_judge(model, mode="superset", check_arguments=False)
        >>> calls = [{"name": "search", "arguments": {"q": "Dublin"}}, {"name": "weather", "arguments": {}}]
        >>> reference = [{"name": "weather", "arguments": {}}]
        >>> data = JevJudgeInput("Weather in Dublin?", "Rain.", tool_calls=calls,
        ...                      fields={"reference_tool_calls": reference})
        >>> judge.judge(data).summary()  # doctest: +NORMALIZE_WHITESPACE
        'passed=true [trajectory_match=PASSED, no_repeated_calls=PASSED, right_tools=PASSED,
        task_completed=PASSED]'

    """
    settings = _Settings(
        mode, arguments, per_tool, reference_field, tools, check_arguments, max_identical, max_consecutive
    )
    return prebuilt_judge("trajectory", model, thresholds, settings.edit, **options)


def trajectory_criteria(
    *,
    mode: TrajectoryMode | None = "strict",
    arguments: ArgumentsMode = "exact",
    per_tool: Mapping[str, ArgumentsRule] | None = None,
    reference_field: str = "reference_tool_calls",
    tools: Sequence[Any] | Mapping[str, Any] | None = None,
    check_arguments: bool = True,
    max_identical: int = 1,
    max_consecutive: int = 3,
    thresholds: Mapping[str, float] | None = None,
) -> list[JevCriterion]:
    """The trajectory judge's criteria, to compose with others (arguments as `trajectory_judge`).

    Example:
        >>> [c.name for c in trajectory_criteria(mode=None, check_arguments=False)]
        ['no_repeated_calls', 'right_tools', 'task_completed']

    """
    settings = _Settings(
        mode, arguments, per_tool, reference_field, tools, check_arguments, max_identical, max_consecutive
    )
    return prebuilt_criteria("trajectory", thresholds, settings.edit)


@dataclass(frozen=True)
class _Settings:
    """The factory's arguments, applied to the judge file's criteria."""

    mode: TrajectoryMode | None
    arguments: ArgumentsMode
    per_tool: Mapping[str, ArgumentsRule] | None
    reference_field: str
    tools: Sequence[Any] | Mapping[str, Any] | None
    check_arguments: bool
    max_identical: int
    max_consecutive: int

    def edit(self, criteria: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept: list[dict[str, Any]] = []
        for criterion in criteria:
            name = criterion["name"]
            if name == "trajectory_match":
                if self.mode is None:
                    continue
                criterion["check"] = {"trajectory_match": self._match()}
            elif name == "tool_arguments_valid":
                if not self.check_arguments:
                    continue
                if self.tools is not None:
                    schemas = _schemas(self.tools)
                    params = {"schemas": schemas, "unknown_tools": "fail"}
                    criterion["check"] = {"tool_arguments_valid": params}
            elif name == "no_repeated_calls":
                criterion["check"] = {
                    "no_repeated_tool_calls": {
                        "max_identical": self.max_identical,
                        "max_consecutive": self.max_consecutive,
                    }
                }
            kept.append(criterion)
        return kept

    def _match(self) -> dict[str, Any]:
        rules: dict[str, Any] = {}
        for tool, r in (self.per_tool or {}).items():
            if callable(r):
                raise JevConfigurationError(
                    f"per_tool[{tool!r}]: a judge holds its arguments rules as data (a mode, key paths "
                    "or {mode, keys, ignore}); a function rule is for trajectory_matches"
                )
            rules[tool] = r if isinstance(r, str) else dict(r) if isinstance(r, Mapping) else list(r)
        return {
            "mode": self.mode,
            "arguments": self.arguments,
            "per_tool": rules,
            "reference": self.reference_field,
        }


def _schemas(tools: Sequence[Any] | Mapping[str, Any]) -> Any:
    """Tool definitions as plain JSON: LangChain tools are converted to OpenAI's shape."""
    if isinstance(tools, Mapping):
        return dict(tools)
    from langchain_core.tools import BaseTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return [convert_to_openai_tool(tool) if isinstance(tool, BaseTool) else tool for tool in tools]
