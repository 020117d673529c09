"""Thresholds chosen on one half of a labelled set meet their target on the other half."""

from __future__ import annotations

import random

import pytest

from langchain_jev import JevConfigurationError
from langchain_jev.guardrails import HazardBattery
from langchain_jev.guardrails.quality import RowLabel, ScoredRow, measure
from langchain_jev.guardrails.quality._thresholds import Target, suggest_thresholds, wilson_interval
from langchain_jev.testing import ScriptedDecisionModel

CATEGORIES = {"hate": (4.0, 2.0), "violent_crimes": (3.0, 3.0)}
"""Each category's unsafe scores ~ Beta(a, b); safe rows score ~ Beta(1.5, 5) on every category."""


def generated(seed: int, n: int = 20000) -> list[ScoredRow]:
    rng = random.Random(seed)
    rows = []
    for number in range(1, n + 1):
        scores = {name: rng.betavariate(1.5, 5) for name in CATEGORIES}
        if rng.random() < 0.4:
            name = rng.choice(sorted(CATEGORIES))
            scores[name] = rng.betavariate(*CATEGORIES[name])
            rows.append(ScoredRow(number, RowLabel(True, frozenset({name})), scores))
        else:
            rows.append(ScoredRow(number, RowLabel(False), scores))
    return rows


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("target", [Target("false_refusal_rate", 0.02), Target("recall", 0.9)])
def test_thresholds_chosen_on_one_half_meet_the_target_on_the_held_out_half(
    seed: int, target: Target
) -> None:
    rows = generated(seed)
    train, held = rows[::2], rows[1::2]
    thresholds = dict.fromkeys(CATEGORIES, 0.5)
    suggestion = suggest_thresholds(measure(train, thresholds), target)
    assert set(suggestion.thresholds) == set(CATEGORIES)
    checked = measure(held, suggestion.thresholds).categories
    for name, chosen in suggestion.categories.items():
        point = checked[name].at_thresholds["battery"]
        reached = point.false_positive_rate if target.kind == "false_refusal_rate" else point.recall
        assert chosen.interval is not None and chosen.reached is not None
        # the held-out rate falls in the stated interval, widened by sqrt(2) since the held-out half
        # is a second sample as noisy as the first (a 95% bound on the difference of two halves)
        low, high = chosen.interval
        half = (high - low) / 2 * 2**0.5
        assert abs(reached - chosen.reached) <= half, (name, reached, chosen.reached, half)
        assert abs(reached - target.value) < 0.02
        # on the half it was chosen on, the target is met exactly as stated
        if target.kind == "false_refusal_rate":
            assert chosen.reached <= target.value
        else:
            assert chosen.reached >= target.value


def test_the_wilson_interval_matches_its_published_values() -> None:
    # Newcombe (1998), table I: 81/263 -> 0.2553 to 0.3662; 0/10 -> 0 to 0.2775
    low, high = wilson_interval(81, 263)  # type: ignore[misc]
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson_interval(0, 10)  # type: ignore[misc]
    assert (round(low, 4), round(high, 4)) == (0.0, 0.2775)
    assert wilson_interval(0, 0) is None


def test_a_category_without_the_rows_a_target_needs_gets_no_threshold_and_says_why() -> None:
    rows = [ScoredRow(1, RowLabel(False), {"hate": 0.2}), ScoredRow(2, RowLabel(False), {"hate": 0.4})]
    recall = suggest_thresholds(measure(rows, {"hate": 0.5}), Target("recall", 0.9)).categories["hate"]
    assert recall.threshold is None and recall.reason == "no unsafe rows"
    frr = suggest_thresholds(measure(rows, {"hate": 0.5}), Target("false_refusal_rate", 0.0))
    assert frr.thresholds == {"hate": 1.0}  # nothing seen may be flagged: above every safe score


def test_the_battery_takes_the_thresholds_beside_its_preset() -> None:
    model = ScriptedDecisionModel({"hate": 0.45, "violent_crimes": 0.45})
    battery = HazardBattery.input(["hate", "S1"], "balanced", model, thresholds={"hate": 0.4})
    assert battery.thresholds == {"violent_crimes": 0.5, "hate": 0.4}
    assert battery.assess("anything").flagged_categories == {"hate": 0.45}
    with pytest.raises(JevConfigurationError, match="'jailbreak', which the battery does not ask"):
        HazardBattery.input(["hate"], model=model, thresholds={"jailbreak": 0.3})
    with pytest.raises(JevConfigurationError, match="threshold of 'hate' must be a probability"):
        HazardBattery.input(["hate"], model=model, thresholds={"hate": 1.5})


def test_targets_parse_from_the_command_line_forms() -> None:
    assert Target.parse("frr=1%") == Target("false_refusal_rate", 0.01)
    assert Target.parse("recall=0.95") == Target("recall", 0.95)
    with pytest.raises(ValueError, match="frr=RATE or recall=RATE"):
        Target.parse("precision=0.9")
