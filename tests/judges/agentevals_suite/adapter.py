"""agentevals' trajectory match evaluators, answered by our ``trajectory_match`` check.

The vendored tests import ``create_trajectory_match_evaluator`` (and its async
twin), ``EvaluatorResult`` and ``ChatCompletionMessage`` from here instead of
agentevals. An evaluator reads the agent's messages as a judge input
(`read_calls`), puts the reference messages in the state, and runs the judge
file's built-in check: the same path a judge file's row takes. A matcher given
as a function (which a judge file cannot hold) goes to `trajectory_matches`, the
function the check calls, with the same reading of both sides.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_jev import JevJudgeInput
from langchain_jev.judges._checks.tool_calls import read_calls, trajectory_matches
from langchain_jev.spec._builtins import TrajectoryMatch, compile_builtin


def ChatCompletionMessage(**fields: Any) -> dict[str, Any]:
    """An OpenAI chat message, as agentevals' TypedDict builds one: a plain dict."""
    return dict(fields)


def EvaluatorResult(**fields: Any) -> dict[str, Any]:
    """An evaluator's result, as agentevals' TypedDict builds one: a plain dict."""
    return dict(fields)


def _messages(value: Any) -> Any:
    return value["messages"] if isinstance(value, Mapping) else value


def create_trajectory_match_evaluator(
    *,
    trajectory_match_mode: str = "strict",
    tool_args_match_mode: str = "exact",
    tool_args_match_overrides: Mapping[str, Any] | None = None,
) -> Callable[..., dict[str, Any]]:
    """agentevals' factory, over the ``trajectory_match`` check."""
    rules = dict(tool_args_match_overrides or {})
    spec = {"mode": trajectory_match_mode, "arguments": tool_args_match_mode, "per_tool": rules}
    check = (
        None if any(map(callable, rules.values())) else compile_builtin(TrajectoryMatch.model_validate(spec))
    )

    def evaluate(*, outputs: Any, reference_outputs: Any, **_: Any) -> dict[str, Any]:
        calls = read_calls(_messages(outputs), "outputs")
        reference = json.loads(json.dumps(_messages(reference_outputs), default=_plain))
        if check is None:
            wanted = read_calls(reference, "reference_outputs")
            score = trajectory_matches(calls, wanted, trajectory_match_mode, tool_args_match_mode, rules)  # type: ignore[arg-type]
        else:
            data = JevJudgeInput(answer="", tool_calls=calls, fields={"reference_tool_calls": reference})
            score = check(data)
        return {
            "key": f"trajectory_{trajectory_match_mode}_match",
            "score": score,
            "comment": None,
            "metadata": None,
        }

    return evaluate


def create_async_trajectory_match_evaluator(**options: Any) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The async twin of `create_trajectory_match_evaluator`."""
    evaluate = create_trajectory_match_evaluator(**options)

    async def aevaluate(**kwargs: Any) -> dict[str, Any]:
        return evaluate(**kwargs)

    return aevaluate


def _plain(value: Any) -> Any:
    """LangChain messages as OpenAI chat messages, so the reference travels as JSON in the state."""
    from langchain_core.messages import convert_to_openai_messages

    return convert_to_openai_messages(value)
