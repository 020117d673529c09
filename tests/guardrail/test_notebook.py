"""The guardrail notebook runs top to bottom offline and is stored without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "guardrail_agent.ipynb"


def test_the_notebook_is_stored_without_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)


@pytest.mark.slow
def test_the_notebook_runs_without_keys_or_network(monkeypatch, tmp_path) -> None:
    for key in ("TYPESAFE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    text = "\n".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "the numbers below are SCRIPTED" in text
    assert "I can't help with that request: it was flagged for jailbreak." in text
    assert "I can't share that response: it was flagged for indiscriminate weapons." in text
    assert "To make sarin" not in text
    assert "[withheld: the safety check flagged this tool result]" in text
    assert "on_error='raise': raised ConnectionError" in text
