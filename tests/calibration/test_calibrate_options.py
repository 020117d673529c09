"""`calibrate` and `acalibrate` take one set of options, defaulted where the study is set up."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings

from langchain_jev.calibration import acalibrate, calibrate
from langchain_jev.calibration._study import CalibrationOptions, _Study
from tests.support.options import keywords_of, not_options, option_names, parameters

EXPLICIT = {"judge", "rows", "labels"}


def test_the_twins_take_the_same_parameters() -> None:
    assert parameters(calibrate) == parameters(acalibrate)


def test_every_option_is_a_keyword_of_the_study_and_back() -> None:
    assert option_names(CalibrationOptions) == keywords_of(_Study.of)


@settings(max_examples=25, deadline=None)
@given(not_options(option_names(CalibrationOptions) | EXPLICIT))
def test_a_name_that_is_no_option_is_refused(name: str) -> None:
    with pytest.raises(TypeError, match=name):
        calibrate(None, [], "ok", **{name: 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=name):
        asyncio.run(acalibrate(None, [], "ok", **{name: 1}))  # type: ignore[arg-type]
