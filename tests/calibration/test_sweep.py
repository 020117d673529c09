"""Threshold sweeps decide as the judge does."""

from __future__ import annotations

import random

import pytest
from langchain_core.decisions import Noul, NoulAnswer

from langchain_jev import JevCriterion
from langchain_jev.calibration import Confusion
from langchain_jev.calibration._sweep import NOUL_GRID, SweepPoint, predictions, sweep, with_threshold


@pytest.mark.parametrize("fail_on_error", [False, True])
def test_the_noul_sweep_equals_deciding_every_answer_at_every_minimum(fail_on_error: bool) -> None:
    rng = random.Random(2)
    criterion = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)
    values = [round(rng.random(), 3) for _ in range(150)] + [0.7, 0.69999999999, 0.0, 1.0] + list(NOUL_GRID)
    answers = [NoulAnswer(type="noul", noul=v) for v in values]
    answers.append(NoulAnswer.model_construct(type="noul", noul=1.5))  # unreadable: an ERROR
    labels = [rng.random() < 0.5 for _ in answers]
    fast = sweep(criterion, answers, labels, 0.6, False, fail_on_error)
    slow = [
        SweepPoint(
            t,
            Confusion.of(
                predictions(with_threshold(criterion, t), answers, 0.6, False, fail_on_error), labels
            ),
        )
        for t in NOUL_GRID
    ]
    assert fast == slow
