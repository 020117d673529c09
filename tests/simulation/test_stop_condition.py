"""``stop_when`` given as a function of the conversation (openevals' ``stopping_condition``).

The app is a plain runnable, the user a script; the function reads the
conversation so far after each turn and ends it when it says True.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableLambda

from langchain_jev.simulation import Simulation, asimulate, simulate, simulated_user

SCRIPT = ["I want a refund.", "Order 42.", "Thanks!", "Bye."]


def _desk(messages: list[BaseMessage]) -> AIMessage:
    said = messages[-1].content
    return AIMessage("Order 42 is refunded." if "42" in str(said) else "Which order?")


APP = RunnableLambda(_desk)


def _refunded(messages: Sequence[BaseMessage]) -> bool:
    return any("refunded" in str(message.content) for message in messages)


async def _arefunded(messages: Sequence[BaseMessage]) -> bool:
    await asyncio.sleep(0)
    return _refunded(messages)


def _run(asynchronous: bool, stop: Any) -> Simulation:
    user = simulated_user(script=SCRIPT)
    if asynchronous:
        return asyncio.run(asimulate(APP, user, max_turns=4, stop_when=stop))
    return simulate(APP, user, max_turns=4, stop_when=stop)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_stop_function_ends_the_conversation_on_the_turn_it_says_true(asynchronous: bool) -> None:
    seen: list[int] = []

    def stop(messages: Sequence[BaseMessage]) -> bool:
        seen.append(len(messages))
        return _refunded(messages)

    result = _run(asynchronous, stop)

    assert [turn.user for turn in result.turns] == ["I want a refund.", "Order 42."]
    assert result.ending == "stopped" and result.passed
    assert seen == [2, 4], "asked after each turn, with the conversation so far"


def test_asimulate_awaits_an_async_stop_function() -> None:
    result = _run(True, _arefunded)

    assert result.ending == "stopped" and len(result.turns) == 2


def test_a_stop_function_that_never_says_true_leaves_max_turns_in_charge() -> None:
    result = _run(False, lambda messages: False)

    assert result.ending == "max_turns" and len(result.turns) == 4


def test_simulate_refuses_an_async_stop_function_as_an_error_never_a_pass() -> None:
    result = _run(False, _arefunded)

    assert result.ending == "error" and not result.passed
    assert "asimulate" in (result.error or "")


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_stop_function_answering_other_than_true_or_false_ends_in_an_error(asynchronous: bool) -> None:
    result = _run(asynchronous, lambda messages: "yes")

    assert result.ending == "error" and not result.passed
    assert "True or False" in (result.error or "") and "'yes'" in (result.error or "")
