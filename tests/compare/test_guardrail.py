"""Two ``guardrail-eval`` runs compared: the deltas are scikit-learn's, the paired counts are counted again.

Two real runs (`guardrail_eval`, the scripted decision model) over one generated labelled set,
the second with other scripted probabilities and another threshold; every figure the comparison
gives is computed again here with scikit-learn and NumPy from the scripted probabilities, the
paired counts and McNemar's p from the rows (SciPy's binomial test), the flipped rows by hand.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.metrics import roc_auc_score, roc_curve

from langchain_jev._errors import ComparisonError
from langchain_jev.compare._guardrail import compare_guardrail_files
from langchain_jev.datasets._header import header_record
from langchain_jev.guardrails._battery import HazardBattery, select_hazards, thresholds_for
from langchain_jev.guardrails.quality import guardrail_eval
from langchain_jev.testing import ScriptedDecisionModel

CATEGORIES = ("hate", "violent_crimes")
THRESHOLDS_A = {"hate": 0.5, "violent_crimes": 0.5}
THRESHOLDS_B = {"hate": 0.3, "violent_crimes": 0.5}


def _rows(seed: int = 7, count: int = 60) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for n in range(count):
        label: Any = rng.choice(["safe", "safe", ["hate"], ["violent_crimes"], ["hate", "violent_crimes"]])
        unsafe = label != "safe"
        probabilities = {}
        for run in ("a", "b"):
            for name in CATEGORIES:
                hit = unsafe and name in label
                base = rng.choice([0.6, 0.7, 0.9]) if hit else rng.choice([0.1, 0.2, 0.4, 0.6])
                probabilities[f"{run}:{name}"] = round(base, 1)  # ties on purpose
        rows.append({"id": f"r{n}", "text": f"row {n} text", "label": label, "p": probabilities})
    return rows


def _model(rows: list[dict[str, Any]], run: str) -> ScriptedDecisionModel:
    by_text = {row["text"]: row["p"] for row in rows}

    def answer(name: str) -> Any:
        return lambda state, question: by_text[str(state["user_question"])][f"{run}:{name}"]

    return ScriptedDecisionModel({name: answer(name) for name in CATEGORIES})


def _runs(tmp_path: Path) -> tuple[list[dict[str, Any]], Path, Path]:
    rows = _rows()
    data = tmp_path / "labelled.jsonl"
    data.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "p"}) + "\n" for r in rows))
    out = {}
    for run, thresholds in (("a", THRESHOLDS_A), ("b", THRESHOLDS_B)):
        battery = HazardBattery.input(list(CATEGORIES), model=_model(rows, run), thresholds=thresholds)
        out[run] = tmp_path / f"{run}.jsonl"
        guardrail_eval(data, battery, out[run])
    return rows, out["a"], out["b"]


def _expected(rows: list[dict[str, Any]], run: str, thresholds: dict[str, float]) -> dict[str, Any]:
    """The figures of one run, by scikit-learn and NumPy from the scripted probabilities."""
    figures: dict[str, Any] = {}
    for name in CATEGORIES:
        kept = [r for r in rows if r["label"] == "safe" or name in r["label"]]
        y = np.array([r["label"] != "safe" for r in kept])
        s = np.array([r["p"][f"{run}:{name}"] for r in kept])
        fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
        presets = {p: thresholds_for(select_hazards("input", [name]), p)[name] for p in ("lenient", "strict")}
        figures[name] = {
            "roc_auc": roc_auc_score(y, s),
            "recall": float(np.mean(s[y] >= thresholds[name])),
            "recall_lenient": float(np.mean(s[y] >= presets["lenient"])),
            "recall_strict": float(np.mean(s[y] >= presets["strict"])),
            "false_refusal_rate": float(np.mean(s[~y] >= thresholds[name])),
            "recall_at_1pct_fpr": float(tpr[fpr <= 0.01].max()),
        }
    y = np.array([r["label"] != "safe" for r in rows])
    top = np.array([max(r["p"][f"{run}:{n}"] for n in CATEGORIES) for r in rows])
    flagged = np.array([any(r["p"][f"{run}:{n}"] >= thresholds[n] for n in CATEGORIES) for r in rows])
    fpr, tpr, _ = roc_curve(y, top, drop_intermediate=False)
    figures["overall"] = {
        "roc_auc": roc_auc_score(y, top),
        "recall": float(np.mean(flagged[y])),
        "false_refusal_rate": float(np.mean(flagged[~y])),
        "recall_at_1pct_fpr": float(tpr[fpr <= 0.01].max()),
        "flagged": flagged,
    }
    return figures


def test_the_deltas_are_scikit_learns_and_the_paired_counts_and_flips_are_the_rows(tmp_path: Path) -> None:
    rows, a, b = _runs(tmp_path)
    compared = compare_guardrail_files(a, b)
    before, after = _expected(rows, "a", THRESHOLDS_A), _expected(rows, "b", THRESHOLDS_B)
    changes = {c.name: c for c in [*compared.categories, compared.overall]}
    assert sorted(changes) == ["hate", "overall", "violent_crimes"]
    for name, change in changes.items():
        for figure, value in after[name].items():
            if figure == "flagged":
                continue
            assert change.figures[figure][0] == pytest.approx(before[name][figure], abs=1e-9), (name, figure)
            assert change.delta(figure) == pytest.approx(value - before[name][figure], abs=1e-9), (
                name,
                figure,
            )
    # latency: each file's own seconds, P50 and P95 as NumPy interpolates them
    for side, path in enumerate((a, b)):
        seconds = [json.loads(line)["seconds"] for line in path.read_text().splitlines()[1:]]
        for q in (50, 95):
            recorded = compared.overall.figures[f"p{q}_seconds"][side]
            assert recorded == pytest.approx(np.percentile(seconds, q), abs=1e-9)
    # the paired counts, overall: unsafe rows flagged under A and not B, and the other way round
    flagged_a, flagged_b = before["overall"]["flagged"], after["overall"]["flagged"]
    unsafe = np.array([r["label"] != "safe" for r in rows])
    recall = compared.overall.recall
    assert (recall.a_only, recall.b_only) == (
        int(np.sum(unsafe & flagged_a & ~flagged_b)),
        int(np.sum(unsafe & ~flagged_a & flagged_b)),
    )
    refusals = compared.overall.false_refusals
    a_only, b_only = (
        int(np.sum(~unsafe & flagged_a & ~flagged_b)),
        int(np.sum(~unsafe & ~flagged_a & flagged_b)),
    )
    assert (refusals.a_only, refusals.b_only) == (a_only, b_only) and b_only > 0  # hate's lower threshold
    assert refusals.difference == pytest.approx(
        after["overall"]["false_refusal_rate"] - before["overall"]["false_refusal_rate"]
    )
    assert refusals.p_value == pytest.approx(binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue)
    # the flipped rows: exactly those whose overall decision differs, regressions first, with their text
    flipped = {f"row {n} text" for n, (x, y) in enumerate(zip(flagged_a, flagged_b, strict=True)) if x != y}
    assert {f.b.text for f in compared.flips} == flipped and flipped
    marks = [f.regression for f in compared.flips]
    assert marks == sorted(marks, reverse=True)
    for flip in compared.flips:
        assert flip.regression == (flip.flagged[1] != flip.b.label.unsafe)
    text = compared.table(flips=100)
    assert all(t in text for t in flipped) and "thresholds differ: hate 0.5 -> 0.3" in text


def test_a_judge_results_file_beside_a_guardrail_one_is_refused_naming_both(tmp_path: Path) -> None:
    _, a, _ = _runs(tmp_path)
    judge = tmp_path / "judge.jsonl"
    header = header_record(
        {
            "model": "jev",
            "options": {},
            "criteria": [{"kind": "noul", "name": "ok", "instructions": "Ok?", "minimum": 0.5}],
        }
    )
    record = {"row": 1, "key": "k", "passed": True, "findings": []}
    judge.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(ComparisonError) as raised:
        compare_guardrail_files(judge, a)
    assert str(raised.value).startswith(f"{judge} is a results file of judge and {a} one of guardrail-eval")
