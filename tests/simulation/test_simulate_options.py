"""`simulate`, `asimulate` and `check_options` take one set of options, each None by default."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from langchain_core.runnables import RunnableLambda

from langchain_jev.simulation import asimulate, simulate, simulated_user
from langchain_jev.simulation._run import SimulationOptions, check_options
from tests.support.options import not_options, option_names, parameters

EXPLICIT = {"app", "user", "max_turns"}
ECHO = RunnableLambda(lambda messages: "You said: " + messages[-1].content)


def test_the_twins_take_the_same_parameters() -> None:
    assert parameters(simulate) == parameters(asimulate)
    assert parameters(check_options) == parameters(simulate, ["user"])


@settings(max_examples=25, deadline=None)
@given(not_options(option_names(SimulationOptions) | EXPLICIT))
def test_a_name_that_is_no_option_is_refused(name: str) -> None:
    user = simulated_user(script=["Hi."])
    with pytest.raises(TypeError, match=name):
        simulate(ECHO, user, max_turns=1, **{name: 1})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=name):
        asyncio.run(asimulate(ECHO, user, max_turns=1, **{name: 1}))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=name):
        check_options(ECHO, max_turns=1, **{name: 1})  # type: ignore[call-arg]


def test_every_option_may_be_given() -> None:
    options: SimulationOptions = {
        "judge": None,
        "stop_when": None,
        "model": None,
        "final_judge": None,
        "thread_id": None,
        "config": None,
    }
    assert set(options) == option_names(SimulationOptions)
    result = simulate(ECHO, simulated_user(script=["Hi."]), max_turns=2, **options)
    assert result.ending == "user_done"
