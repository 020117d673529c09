"""`monitor` and `amonitor` take one set of options, checked and defaulted by `MonitorOptions`."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from hypothesis import given, settings

from langchain_jev.monitor import amonitor, monitor
from langchain_jev.monitor._monitor import MonitorArguments, MonitorOptions
from tests.support.options import not_options, option_names, parameters

EXPLICIT = {"judge", "project", "client"}


def test_the_twins_take_the_same_parameters() -> None:
    assert parameters(monitor) == parameters(amonitor)


def test_every_option_is_a_field_of_monitor_options_and_back() -> None:
    fields = {f.name for f in dataclasses.fields(MonitorOptions) if f.init} - EXPLICIT
    assert option_names(MonitorArguments) == fields


@settings(max_examples=25, deadline=None)
@given(not_options(option_names(MonitorArguments) | EXPLICIT))
def test_a_name_that_is_no_option_is_refused(name: str) -> None:
    with pytest.raises(TypeError, match=name):
        monitor(None, project="p", **{name: 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=name):
        asyncio.run(amonitor(None, project="p", **{name: 1}))  # type: ignore[arg-type]
