"""`compare_answers` and `acompare_answers` take one set of options, defaulted by one `_Comparing`."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from hypothesis import given, settings

from langchain_jev.compare import acompare_answers, compare_answers
from langchain_jev.compare._head_to_head import HeadToHeadOptions, _Comparing
from tests.support.options import not_options, option_names, parameters

EXPLICIT = {"judge", "pairs"}


def test_the_twins_take_the_same_parameters() -> None:
    assert parameters(compare_answers) == parameters(acompare_answers)


def test_every_option_is_a_field_of_the_comparison_and_back() -> None:
    assert option_names(HeadToHeadOptions) == {f.name for f in dataclasses.fields(_Comparing)}


@settings(max_examples=25, deadline=None)
@given(not_options(option_names(HeadToHeadOptions) | EXPLICIT))
def test_a_name_that_is_no_option_is_refused(name: str) -> None:
    with pytest.raises(TypeError, match=name):
        compare_answers(None, [], **{name: 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=name):
        asyncio.run(acompare_answers(None, [], **{name: 1}))  # type: ignore[arg-type]
