"""The guardrail pages: the recipe most readers come for first, the threat model on a page of its own."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def test_the_guardrails_page_opens_with_guarding_an_agent_in_ten_lines() -> None:
    text = (DOCS / "guardrails.md").read_text(encoding="utf-8")
    first_heading = re.search(r"^## (.*)$", text, re.M)
    assert first_heading is not None and first_heading.group(1) == "Guard an agent"
    first = _python_blocks(text)[0]
    assert "create_agent(" in first and "JevGuardrailMiddleware(" in first
    assert len([line for line in first.splitlines() if line.strip()]) <= 10


def test_the_threat_model_states_the_five_invariants_on_its_own_page() -> None:
    text = (DOCS / "threat-model.md").read_text(encoding="utf-8")
    section = text.split("## The five invariants", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^\d\. \*\*(.+?)\*\*", section, re.M)
    assert named == [
        "Lossless.",
        "The exact call.",
        "Allow-lists only.",
        "A refusal cannot be composed away.",
        "Reviews are bound to one decision.",
    ]
    assert "## What each rail sees, and what it still cannot" in text
    assert "## Threat model" not in (DOCS / "guardrails.md").read_text(encoding="utf-8")
