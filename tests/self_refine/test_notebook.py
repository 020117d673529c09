"""The self-refine notebook runs top to bottom offline, and is stored without outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "self_refine_agent.ipynb"


def test_the_notebook_is_stored_without_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)


@pytest.mark.slow
def test_the_notebook_runs_offline_and_says_its_numbers_are_scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TYPESAFE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    ).execute()

    text = "".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "the numbers below are SCRIPTED" in text
    assert "attempts: 2 | verdict: passed=true [gives_units=PASSED, helpfulness=PASSED]" in text
    assert "kept: About 70 degrees Celsius." in text
    assert "rejected: ['It boils at about 70.']" in text
    assert not any(
        output.get("output_type") == "error" for cell in notebook.cells for output in cell.get("outputs", [])
    )
