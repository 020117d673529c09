"""Calibrating a judge whose model is langchain-openai's OpenAIDecisions gives Jev's figures.

The weather judge file (a noul, a score, a choice, a dependent noul and a code check) calibrates labelled
rows twice: on Jev (the loopback Jev server) and on the OpenAI Decisions API (a loopback server answering
the same script, `tests.support.decisions_server`), through the Python API (``calibrate``,
``acalibrate``, with repeats) and the command line (``langchain-jev calibrate --model
openai-decisions:NAME``). Given the same probabilities, every figure, the suggestion and the written
judge file are the same.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from langchain_jev.calibration import acalibrate, calibrate
from langchain_jev.models import JevDecisionModel, JuryDecisionModel
from langchain_jev.spec import load_spec
from tests.cli.helpers import WEATHER_JUDGE, expected_weather_verdicts, run_cli, weather_answers, weather_rows
from tests.cli.helpers import write_jsonl as jsonl
from tests.support.decisions_server import DecisionsServer
from tests.support.jev_server import JevServer

pytest.importorskip("langchain_openai.decisions")
from langchain_openai.decisions import OpenAIDecisions

KEY = "sk-openai-decisions-calibrate-0123456789"


def answers(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    """The weather script, with the details' probability spread over the rows (the sweep has work to do)."""
    scripted = weather_answers(state, questions)
    spread = (len(str(state.get("assistant_answer", ""))) % 7) / 10
    return {**scripted, "has_details": round(min(0.95, scripted["has_details"] - 0.3 + spread), 2)}


def rows() -> list[dict[str, Any]]:
    expected = expected_weather_verdicts()
    return [
        {
            **row,
            "human": "pass" if expected[row["id"]] else "fail",
            "details_ok": row["id"] not in ("madrid-vague", "oslo-no-search", "why-rain"),
        }
        for row in weather_rows()
    ]


def decisions(server: DecisionsServer) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the class is in beta
        return OpenAIDecisions(model="gpt-6-luna", api_key=KEY, base_url=server.base_url, max_retries=0)


def figures(calibration: Any) -> dict[str, Any]:
    return dict(calibration.to_dict(calibration.suggest("kappa", max_false_pass=0.0)))


LABELS = {"has_details": "details_ok"}


async def test_calibrate_on_openai_decisions_gives_the_figures_calibrate_gives_on_jev() -> None:
    spec = load_spec(WEATHER_JUDGE)
    with JevServer(answers) as jev, DecisionsServer(answers) as openai:
        on_jev = spec.build(JevDecisionModel(api_key="sk-test-jev", base_url=jev.base_url))
        on_openai = spec.build(decisions(openai))
        expected = figures(calibrate(on_jev, rows(), LABELS, overall="human", repeat=2))
        got = figures(calibrate(on_openai, rows(), LABELS, overall="human", repeat=2))
        got_async = figures(await acalibrate(on_openai, rows(), LABELS, overall="human"))
        expected_async = figures(await acalibrate(on_jev, rows(), LABELS, overall="human"))
    assert got == expected and got_async == expected_async
    assert len(openai.received) == 3 * len(rows())  # one request a row each time: two repeats, one async
    assert all(body["model"] == "gpt-6-luna" for body in openai.received)
    assert not any("details_ok" in json.dumps(body) for body in openai.received)  # labels go nowhere
    details = {c["name"]: c for c in got["criteria"]}["has_details"]
    assert details["auroc"] is not None and got["stability"]  # figures, and stability over the repeats


def test_a_jury_of_jev_and_openai_decisions_calibrates_each_member_beside_the_jury() -> None:
    spec = load_spec(WEATHER_JUDGE)
    with JevServer(answers) as jev, DecisionsServer(answers) as openai:
        alone = spec.build(JevDecisionModel(api_key="sk-test-jev", base_url=jev.base_url))
        jury = JuryDecisionModel({"jev": alone.model, "openai": decisions(openai)})
        on_jury = calibrate(spec.build(jury), rows(), LABELS, overall="human")
        expected = calibrate(alone, rows(), LABELS, overall="human")
    members = on_jury.to_dict()["members"]
    assert [m["name"] for m in members] == ["jev", "openai"]
    alone_figures = [{k: v for k, v in c.items() if k != "sweep"} for c in expected.to_dict()["criteria"]]
    for member in members:  # the same probabilities: each member agrees with people as Jev alone does
        assert [{k: v for k, v in c.items() if k != "sweep"} for c in member["criteria"]] == alone_figures


@pytest.mark.slow  # two command lines in subprocesses
def test_the_command_line_calibrates_on_openai_decisions_as_on_jev(tmp_path: Path) -> None:
    data = jsonl(tmp_path / "rows.jsonl", rows())
    runs: dict[str, Any] = {}
    with JevServer(answers) as jev, DecisionsServer(answers) as openai:
        for name, model in (
            ("jev", ["--base-url", jev.base_url]),
            ("openai", ["--model", "openai-decisions:gpt-6-luna"]),
        ):
            done = run_cli(
                "calibrate", data, "--judge", WEATHER_JUDGE, *model, "--max-retries", "0",
                "--label", "human", "--label", "has_details=details_ok", "--max-false-pass", "0",
                "--json", tmp_path / f"{name}.json", "--write-judge", tmp_path / f"{name}.yaml", "--quiet",
                OPENAI_API_KEY=KEY, OPENAI_API_BASE=openai.base_url,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            runs[name] = done
    assert len(openai.received) == len(rows())
    on_jev, on_openai = (json.loads((tmp_path / f"{n}.json").read_text("utf-8")) for n in ("jev", "openai"))
    assert on_openai == on_jev
    assert runs["openai"].stdout.replace("openai.yaml", "jev.yaml") == runs["jev"].stdout
    assert (tmp_path / "openai.yaml").read_bytes() == (tmp_path / "jev.yaml").read_bytes()
    assert KEY not in runs["openai"].stdout + runs["openai"].stderr
