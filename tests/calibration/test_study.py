"""calibrate() in Python: the tables, suggestions for each kind of criterion, labels, examples, repeats."""

from __future__ import annotations

import datetime
import json
import threading
import uuid
from collections import Counter
from pathlib import Path

import pytest
import yaml
from langchain_core.decisions import Choice, Noul, Score
from langsmith.schemas import Example

from langchain_jev import JevCriterion, JevJudge
from langchain_jev._errors import CalibrationError
from langchain_jev.calibration import calibrate
from langchain_jev.calibration._sweep import choose
from langchain_jev.models import CachedDecisionModel, InMemoryCache
from langchain_jev.testing import ScriptedDecisionModel
from tests.calibration.helpers import WEATHER_SPEC, build, scripted
from tests.cli.helpers import WEATHER_JUDGE, expected_weather_verdicts, weather_rows

POLITE = Noul(instructions="Is `assistant_answer` polite?")
LEVELS = ["Useless", "Weak", "Fair", "Good", "Excellent"]
HELPFUL = Score(instructions="How helpful is `assistant_answer`?", criteria=LEVELS)
MODE = Choice(instructions="What does `assistant_answer` do?", criteria={"answers": None, "asks": None, "refuses": None})


def noul_rows() -> list[dict]:
    # the probability is in the answer; people pass a row when it is at least 0.45
    return [{"answer": f"p={p / 100:.2f}", "human": p >= 45} for p in range(5, 100, 10)]


def by_answer(name: str):
    return {name: lambda state, question: float(state["assistant_answer"].split("=")[1])}


def test_the_weather_judge_against_the_verdicts_people_gave() -> None:
    expected = expected_weather_verdicts()
    rows = [{**row, "human": expected[row["id"]]} for row in weather_rows()]
    model = scripted()
    calibration = calibrate(build(WEATHER_SPEC, model), rows, "human")
    assert calibration.overall is not None
    assert calibration.overall.confusion.accuracy == 1.0
    assert calibration.overall.confusion.n == 8
    assert [c.name for c in calibration.criteria] == ["is_grounded", "helpfulness", "mode", "has_details"]
    grounded = calibration.criterion("is_grounded")
    assert grounded.n == 4  # asked where there is context
    assert grounded.threshold_name == "minimum" and grounded.threshold == 0.7
    assert calibration.criterion("mode").threshold_name == "min_confidence"
    assert all("human" not in request["state"] for request in model.requests)  # labels are never sent
    document = json.loads(json.dumps(calibration.to_dict(calibration.suggest()), allow_nan=False))
    assert set(document["criteria"][0]) >= {
        "n", "base_rate", "auroc", "brier", "ece", "accuracy", "kappa", "kappa_interval",
        "false_pass_rate", "false_fail_rate", "reliability", "sweep",
    }
    assert len(document["criteria"][0]["reliability"]) == 10
    assert len(document["criteria"][0]["sweep"]) == 101


def test_a_noul_threshold_is_suggested_where_it_agrees_with_people_and_the_verdict_follows() -> None:
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=ScriptedDecisionModel(by_answer("polite")))
    calibration = calibrate(judge, noul_rows(), "human")
    polite = calibration.criterion("polite")
    assert polite.auroc == 1.0
    assert polite.confusion.false_fail_rate == pytest.approx(3 / 6)  # 0.45, 0.55 and 0.65 fail at 0.7
    suggestion = calibration.suggest()
    assert suggestion.minimums["polite"] == 0.45  # kappa 1 from 0.36 to 0.45: the nearest to 0.7
    assert suggestion.changes() == [("polite", 0.7, 0.45)]
    assert suggestion.before is not None and suggestion.after is not None
    assert suggestion.before.confusion.accuracy == pytest.approx(0.7)
    assert suggestion.after.confusion.accuracy == 1.0


def test_a_bound_on_false_passes_picks_the_fewest_false_fails_within_it() -> None:
    rows = noul_rows()
    rows[1]["human"] = True  # p=0.15 passed by people, p=0.75 failed: no threshold is perfect
    rows[7]["human"] = False
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.5)], model=ScriptedDecisionModel(by_answer("polite")))
    calibration = calibrate(judge, rows, "human")
    sweep = calibration.criterion("polite").sweep
    for bound in (0.0, 0.2, 0.5):
        chosen = calibration.suggest(max_false_pass=bound).points["polite"]
        feasible = [p for p in sweep if p.confusion.false_pass_rate <= bound]
        assert chosen.confusion.false_pass_rate <= bound
        assert chosen.confusion.false_fail_rate == min(p.confusion.false_fail_rate for p in feasible)
    strict = calibration.suggest(max_false_fail=0.0).points["polite"]
    assert strict.confusion.false_fail_rate == 0.0 and strict.threshold <= 0.15
    assert choose(sweep, calibration.suggest(max_false_pass=0.0).objective, 0.5) is not None


def test_a_score_gets_a_minimum_level_and_scores_and_choices_a_min_confidence() -> None:
    # the model's expected level is in the answer: people pass rows at level 3 or above
    rows = [{"answer": f"level={level}", "human": level >= 3} for level in (0.2, 1.0, 1.6, 2.2, 2.9, 3.1, 3.6, 4.0)]
    scripts = {
        "helpful": lambda state, q: float(state["assistant_answer"].split("=")[1]),
        "mode": lambda state, q: {"answers": 0.55, "asks": 0.3, "refuses": 0.15},
    }
    judge = JevJudge(
        [JevCriterion.score("helpful", HELPFUL, 2), JevCriterion.choice("mode", MODE, ["answers"])],
        model=ScriptedDecisionModel(scripts),
        min_confidence=0.5,
    )
    calibration = calibrate(judge, rows, {"helpful": "human"}, overall="human")
    helpful = calibration.criterion("helpful")
    assert [p.threshold for p in helpful.sweep] == [0.0, 1.0, 2.0, 3.0, 4.0]
    suggestion = calibration.suggest()
    assert suggestion.minimums == {"helpful": 3.0}
    # mode passes every row at 0.55 >= 0.5; above 0.55 it is INCONCLUSIVE, which does not block either
    assert calibration.criterion("mode").confusion.pass_rate == 1.0
    assert suggestion.min_confidence is not None
    assert suggestion.after is not None and suggestion.after.confusion.accuracy == 1.0


def test_a_choice_label_is_one_of_its_options() -> None:
    rows = [{"answer": "Sure, here it is.", "mode_label": "answers"}, {"answer": "Which one?", "mode_label": "asks"}]
    model = ScriptedDecisionModel({"mode": lambda state, q: "asks" if "?" in state["assistant_answer"] else "answers"})
    judge = JevJudge([JevCriterion.choice("mode", MODE, ["answers"])], model=model)
    calibration = calibrate(judge, rows, {"mode": "mode_label"})
    assert calibration.criterion("mode").labels == (True, False)
    assert calibration.overall is None
    with pytest.raises(CalibrationError, match=r"row 2: mode_label: 'maybe' is not a label.*one of the options of 'mode'"):
        calibrate(judge, [rows[0], {**rows[1], "mode_label": "maybe"}], {"mode": "mode_label"})


def test_labels_that_cannot_be_read_or_name_no_criterion_are_errors() -> None:
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=ScriptedDecisionModel(by_answer("polite")))
    rows = noul_rows()
    with pytest.raises(CalibrationError, match=r"row 3: human: 'sometimes' is not a label"):
        calibrate(judge, [*rows[:2], {**rows[2], "human": "sometimes"}], "human")
    with pytest.raises(CalibrationError, match="labels name no criterion of the judge: rude"):
        calibrate(judge, rows, {"rude": "human"})
    with pytest.raises(CalibrationError, match="no row carries a label"):
        calibrate(judge, [{**row, "human": None} for row in rows], "human")


def test_langsmith_examples_are_labelled_by_their_reference_outputs() -> None:
    dataset = uuid.uuid4()
    examples = [
        Example(
            id=uuid.uuid4(),
            dataset_id=dataset,
            created_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
            inputs={"question": "Door?", "answer": row["answer"]},
            outputs={"verdict": "pass" if row["human"] else "fail"},
        )
        for row in noul_rows()
    ]
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=ScriptedDecisionModel(by_answer("polite")))
    calibration = calibrate(judge, examples, "verdict")
    assert calibration.criterion("polite").labels == tuple(row["human"] for row in noul_rows())
    assert calibration.suggest().minimums["polite"] == 0.45


def test_reusing_records_makes_no_request(tmp_path: Path) -> None:
    expected = expected_weather_verdicts()
    rows = [{**row, "human": expected[row["id"]]} for row in weather_rows()]
    first = calibrate(build(WEATHER_SPEC, scripted()), rows, "human")
    records = [row.record for row in first.rows]
    model = ScriptedDecisionModel({})
    again = calibrate(build(WEATHER_SPEC, model), rows, "human", records=records)
    assert model.calls == 0
    assert again.to_dict() == first.to_dict()
    suggestion = again.suggest(max_false_pass=0.0)
    diff = again.write_judge(WEATHER_JUDGE, tmp_path / "new.yaml", suggestion)
    changed = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert len(changed) == len(suggestion.changes())  # only what moves is written
    assert yaml.safe_load((tmp_path / "new.yaml").read_text())["criteria"][0] == WEATHER_SPEC["criteria"][0]


def test_write_judge_leaves_a_min_confidence_that_does_not_move_unwritten(tmp_path: Path) -> None:
    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=ScriptedDecisionModel(by_answer("polite")))
    calibration = calibrate(judge, noul_rows(), "human")
    source = tmp_path / "judge.yaml"
    source.write_text("# mine\ncriteria:\n  - {name: polite, kind: noul, instructions: Polite, minimum: 0.7}\n")
    diff = calibration.write_judge(source, tmp_path / "new.yaml")
    assert (tmp_path / "new.yaml").read_text() == (
        "# mine\ncriteria:\n  - {name: polite, kind: noul, instructions: Polite, minimum: 0.45}\n"
    )
    assert "min_confidence" not in diff


class Alternating:
    """Answers that move by a known amount: each row's probability alternates 0.5, 0.7, 0.5, ... per request."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, state, question) -> float:
        with self.lock:
            self.seen[state["assistant_answer"]] += 1
            count = self.seen[state["assistant_answer"]]
        return 0.5 if count % 2 else 0.7


def test_repeats_bypass_the_cache_and_measure_flips_and_variance() -> None:
    inner = ScriptedDecisionModel({"wobbly": Alternating(), "steady": 0.9})
    judge = JevJudge(
        [JevCriterion.noul("wobbly", POLITE, 0.6), JevCriterion.noul("steady", Noul(instructions="Steady?"), 0.6)],
        model=CachedDecisionModel(inner, InMemoryCache()),
    )
    rows = [{"answer": f"answer {i}", "human": i % 2 == 0} for i in range(6)]
    calibration = calibrate(judge, rows, "human", repeat=4)
    assert inner.calls == 24  # 4 requests per row: the cache answered none of them
    wobbly, steady = calibration.stability
    assert (wobbly.name, wobbly.rows, wobbly.flip_rate) == ("wobbly", 6, 1.0)
    assert wobbly.mean_variance == pytest.approx(0.01)  # 0.5 and 0.7 twice each: variance 0.1 ** 2
    assert (steady.flip_rate, steady.mean_variance) == (0.0, 0.0)
    assert calibration.repeats == 4
    assert calibration.to_dict()["stability"][0] == {"name": "wobbly", "rows": 6, "flip_rate": 1.0, "mean_variance": pytest.approx(0.01)}


async def test_acalibrate_is_calibrate_on_the_event_loop() -> None:
    from langchain_jev.calibration import acalibrate

    judge = JevJudge([JevCriterion.noul("polite", POLITE, 0.7)], model=ScriptedDecisionModel(by_answer("polite")))
    awaited = await acalibrate(judge, noul_rows(), "human")
    assert awaited.to_dict(awaited.suggest()) == calibrate(judge, noul_rows(), "human").to_dict(awaited.suggest())
    inner = ScriptedDecisionModel({"wobbly": Alternating(), "steady": 0.9})
    cached = JevJudge(
        [JevCriterion.noul("wobbly", POLITE, 0.6), JevCriterion.noul("steady", Noul(instructions="Steady?"), 0.6)],
        model=CachedDecisionModel(inner, InMemoryCache()),
    )
    repeated = await acalibrate(cached, [{"answer": f"a{i}", "human": True} for i in range(3)], "human", repeat=2)
    assert inner.calls == 6
    assert repeated.stability[0].flip_rate == 1.0
