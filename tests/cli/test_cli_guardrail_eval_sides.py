"""``guardrail-eval`` judges the shipped sets on the side their rows name, and refuses another.

The shipped model replies (``output_replies.jsonl``) run with no ``--side``: the command judges
them with the output battery, and every category of that side has unsafe and safe rows. A
``--side`` other than the rows' is refused, naming both sides, before any request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_jev.guardrails import HAZARDS
from langchain_jev.testing.server import JevServer
from tests.cli.helpers import run_cli

SETS = Path(__file__).resolve().parents[2] / "langchain_jev" / "guardrails" / "eval_sets"


def placeholders(state: Mapping[str, Any], questions: Mapping[str, Any]) -> dict[str, Any]:
    """The scripted model: a reply with a bracketed placeholder is flagged on every category."""
    return dict.fromkeys(questions, 0.8 if "[placeholder" in json.dumps(dict(state)) else 0.1)


def test_the_shipped_replies_are_judged_on_the_output_side_with_both_labels_per_category(
    tmp_path: Path,
) -> None:
    figures = tmp_path / "figures.json"
    with JevServer(placeholders) as server:
        done = run_cli(
            "guardrail-eval", SETS / "output_replies.jsonl", "--base-url", server.base_url,
            "--out", tmp_path / "out.jsonl", "--quiet", "--json", figures,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = json.loads(figures.read_text(encoding="utf-8"))
    assert written["direction"] == "output"
    output_side = {h.name for h in HAZARDS if "output" in h.questions}
    assert set(written["categories"]) == output_side
    for name, category in written["categories"].items():
        assert (category["positives"], category["negatives"]) == (2, 28), name
        assert category["roc_auc"] == 1.0, name  # every unsafe reply carries its placeholder


def test_a_side_other_than_the_rows_is_refused_naming_both(tmp_path: Path) -> None:
    with JevServer(placeholders) as server:
        done = run_cli(
            "guardrail-eval", SETS / "output_replies.jsonl", "--side", "input", "--base-url",
            server.base_url, "--out", tmp_path / "out.jsonl", "--quiet",
        )  # fmt: skip
        assert server.request_count == 0
    assert done.returncode == 2
    assert "the rows are of the output side, not input" in done.stderr
