"""`deploy` and `adeploy` take one set of rule options, defaulted where the rule is planned."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings

from langchain_jev.online import adeploy, deploy
from langchain_jev.online._deployment import RuleOptions, _plan
from tests.support.options import keywords_of, not_options, option_names, parameters

EXPLICIT = {"judge", "dry_run", "client"}


def test_the_twins_take_the_same_parameters() -> None:
    assert parameters(deploy, ["client"]) == parameters(adeploy, ["client"])
    assert "client" in parameters(adeploy)


def test_every_option_is_a_keyword_of_the_plan_and_back() -> None:
    assert option_names(RuleOptions) == keywords_of(_plan)


@settings(max_examples=25, deadline=None)
@given(not_options(option_names(RuleOptions) | EXPLICIT))
def test_a_name_that_is_no_option_is_refused(name: str) -> None:
    with pytest.raises(TypeError, match=name):
        deploy(None, dry_run=True, **{name: 1})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=name):
        asyncio.run(adeploy(None, dry_run=True, **{name: 1}))  # type: ignore[arg-type]
