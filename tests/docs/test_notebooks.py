"""Every notebook runs top to bottom with no keys set, says its numbers are scripted, and is stored clean.

This is the one place CI runs the notebooks. Each runs in a fresh kernel whose
environment has no API key of any provider and LangSmith tracing off, so each
must pick its scripted decision model, print the line that says so, and run
offline. Besides that line, each notebook's key results are checked, so a
notebook that runs but shows nonsense fails too. Each runs again from the README's
shell, the scripted server's settings exported (its placeholder key, or a key of
one's own and its loopback URL): the notebook must still say "scripted", never
"measured", and show the same results.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from langchain_jev.testing.server import PLACEHOLDER_KEY, JevServer, load_script

pytestmark = pytest.mark.slow  # subprocesses, servers or large loads: `-m "not slow"` leaves them out

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
KEYS = ("TYPESAFE_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LANGSMITH_API_KEY", "LANGCHAIN_API_KEY")
SCRIPTED_LINE = "the numbers below are SCRIPTED"

# notebook -> text its outputs must show (with the scripted decision model)
EXPECTED: dict[str, list[str]] = {
    "quickstart.ipynb": [
        "vague: passed=false [helpfulness=FAILED, is_plausible=PASSED]",
        'is_plausible: "At least one value is impossible" (yes at 0.08, needs 0.70)',
        'has_details: does not apply, mode was "clarification_needed"',
        "a coin flip around the minimum, fail_on_inconclusive=False: INCONCLUSIVE, passed=True",
        "a coin flip around the minimum, fail_on_inconclusive=True: FAILED, passed=False",
        "[True, False, False]",
    ],
    "langsmith_experiment.ipynb": [
        "jev_pass_rate",
        "not_empty: the answer is empty",
    ],
    "self_refine_agent.ipynb": [
        "attempts: 2 | verdict: passed=true [gives_units=PASSED, helpfulness=PASSED]",
        "kept: About 70 degrees Celsius.",
        "rejected: ['It boils at about 70.']",
    ],
    "prebuilt_judges.ipynb": [
        "Where does the Seine reach the sea? [rag]",
        "Which museum is the most visited in the world?: correctness_exact_match PASSED by code, agreement not asked",
        "Who handles lost tickets?: sensitive_no_email_addresses FAILED by code, no question asked",
        "no_email_addresses: the answer contains an email address",
        "10 requests for 12 judgements (4 answers x 3 judges)",
    ],
    "calibration.ipynb": [
        "suggested: [('has_details', 0.7, 0.45)]",
        "overall accuracy before 0.80, after 0.90",
        "-    minimum: 0.7   # agreed with the support team in March",
        "+    minimum: 0.45   # agreed with the support team in March",
        "decided again from 10 stored row(s) of results.jsonl: 0 requests",
        "requests to the model while re-judging: 0",
        " KiB, 7 charts",
        "10 helpfulness false pass 0.95",  # the disagreement the page lists first
    ],
    "guardrail_agent.ipynb": [
        "I can't help with that request: it was flagged for jailbreak.",
        "I can't share that response: it was flagged for indiscriminate weapons.",
        "[withheld: the safety check flagged this tool result]",
        "on_error='raise': raised GuardrailCheckError: the output safety check failed: ConnectionError",
    ],
}
NEVER_SHOWN: dict[str, list[str]] = {
    "guardrail_agent.ipynb": ["To make sarin"],
}


def _code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_the_four_notebooks_are_there_and_each_has_expectations() -> None:
    names = {path.name for path in PATHS}
    assert {
        "quickstart.ipynb",
        "langsmith_experiment.ipynb",
        "self_refine_agent.ipynb",
        "guardrail_agent.ipynb",
    } <= names
    assert names == set(EXPECTED), "every notebook needs its expected results here"


@pytest.mark.parametrize("path", PATHS, ids=[path.stem for path in PATHS])
def test_the_notebook_is_stored_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    cells = _code_cells(notebook)
    assert cells, f"{path.name} has no code"
    dirty = [i for i, cell in enumerate(cells) if cell.outputs or cell.execution_count is not None]
    assert dirty == [], f"{path.name}: code cells {dirty} are stored with outputs or execution counts"


@pytest.fixture(scope="module")
def scripted_server() -> Iterator[JevServer]:
    """The README's first-verdict server: scripted by ``examples/weather_answers.json``."""
    with JevServer(load_script(str(NOTEBOOKS.parent / "examples" / "weather_answers.json"))) as server:
        yield server


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS, ids=[path.stem for path in PATHS])
def test_the_notebook_runs_without_keys_and_says_its_numbers_are_scripted(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run_and_check(path, tmp_path, monkeypatch, {})


SERVER_SHELLS = [
    *[(path, "placeholder-key") for path in PATHS],
    (NOTEBOOKS / "quickstart.ipynb", "own-key-loopback-url"),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "shell"), SERVER_SHELLS, ids=[f"{path.stem}-{shell}" for path, shell in SERVER_SHELLS]
)
def test_the_notebook_run_from_the_scripted_servers_shell_says_scripted_not_measured(
    path: Path, shell: str, scripted_server: JevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = PLACEHOLDER_KEY if shell == "placeholder-key" else "sk-my-own-key"
    env = {"TYPESAFE_API_KEY": key, "TYPESAFE_BASE_URL": scripted_server.base_url}
    text = _run_and_check(path, tmp_path, monkeypatch, env)
    assert "scripted server" in text or "loopback address" in text, f"{path.name} never says why:\n{text}"
    assert "are measured" not in text, f"{path.name} calls scripted numbers measured:\n{text}"
    assert "sk-my-own-key" not in text  # a key is never printed


def _run_and_check(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str]
) -> str:
    """Run the notebook with only ``env`` of the keys set; check what it shows; return its text."""
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("TYPESAFE_BASE_URL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    monkeypatch.setenv("LANGCHAIN_TRACING_V2", "false")
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError, naming the cell, when a cell fails

    outputs = [output for cell in _code_cells(notebook) for output in cell.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # a cell's stream may arrive in pieces (print writes each argument apart): join them as written
    text = "\n".join(
        "".join(str(o.get("text", "")) for o in cell.outputs if o.get("output_type") == "stream")
        + "\n".join(str(o.get("data", {}).get("text/plain", "")) for o in cell.outputs)
        for cell in _code_cells(notebook)
    )
    assert SCRIPTED_LINE in text, f"{path.name} never says its numbers are scripted"
    missing = [expected for expected in EXPECTED.get(path.name, []) if expected not in text]
    assert missing == [], f"{path.name} did not show {missing}:\n{text}"
    shown = [unsafe for unsafe in NEVER_SHOWN.get(path.name, []) if unsafe in text]
    assert shown == [], f"{path.name} showed {shown}"
    # a tour from a checkout leaves `git status` clean: what it writes is ignored, or not there
    left = [f"notebooks/{p.relative_to(tmp_path).as_posix()}" for p in tmp_path.rglob("*") if p.is_file()]
    assert _not_ignored(left) == [], f"{path.name} leaves files git would list as untracked"
    return text


def _not_ignored(paths: list[str]) -> list[str]:
    """The paths of ``paths`` (relative to the repository) that its ``.gitignore`` does not ignore."""
    if not paths:
        return []
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=NOTEBOOKS.parent,
        input="\n".join(paths),
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    return [path for path in paths if path not in ignored]
