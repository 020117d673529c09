"""The judge-file reference page: written from the format's own tables, every example accepted.

`docs/judge-files.md` is what `langchain_jev.spec._reference` writes, so a condition, a
key or a built-in check added to the format without an example stops the generator, and
a page not regenerated since fails here. Each example runs through the real loader:
`langchain-jev validate` accepts a file holding it, and the judge built from it decides a
row (code named by `call` is only checked, as `validate` does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from langchain_jev import JevJudgeInput, Outcome
from langchain_jev.cli import main
from langchain_jev.spec import _reference as page
from langchain_jev.spec import load_spec
from langchain_jev.spec._builtins import BUILTIN_FORMS
from langchain_jev.spec._conditions import FORMS
from langchain_jev.testing import ScriptedDecisionModel

ROOT = Path(__file__).resolve().parents[2]
NOUL = {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}
ROW = JevJudgeInput(
    question="q?",
    answer='{"id": 1}',
    expected={"id": 1},
    context=["doc"],
    tool_calls=[{"name": "search", "arguments": {"q": "x"}}],
    fields={"reference_tool_calls": [{"name": "search", "arguments": {"q": "x"}}], "tool_schemas": {}},
)


def _validates(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    code = main(["validate", str(path)])
    assert code == 0, capsys.readouterr().err


def test_the_committed_page_is_what_the_generator_writes() -> None:
    committed = (ROOT / page.PAGE).read_text(encoding="utf-8")
    assert committed == page.reference_page(), "run: python -m langchain_jev.spec._reference"


def test_the_check_option_says_whether_the_page_is_current(tmp_path: Path) -> None:
    stale = tmp_path / "judge-files.md"
    stale.write_text("old\n", encoding="utf-8")
    assert page.main(["--check", str(stale)]) == 1
    assert page.main([str(stale)]) == 0
    assert page.main(["--check", str(stale)]) == 0


def test_every_form_key_and_kind_has_its_example_and_a_missing_one_stops_the_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = page.reference_page()
    for form in FORMS:
        assert f"| `{form}` |" in text and page.CONDITION_EXAMPLES[form] in text
    for form in BUILTIN_FORMS:
        assert f"### `{form}`" in text
    monkeypatch.setattr(page, "FORMS", (*FORMS, "new_condition"))
    with pytest.raises(ValueError, match="missing new_condition"):
        page.reference_page()
    monkeypatch.setattr(page, "FORMS", FORMS)
    monkeypatch.delitem(page.KEY_EXAMPLES, "requires")
    with pytest.raises(ValueError, match=r"top-level key.*missing requires"):
        page.reference_page()


def test_the_whole_file_example_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _validates(tmp_path, yaml.safe_load(page.WHOLE_FILE), capsys)


@pytest.mark.parametrize("key", sorted(page.KEY_EXAMPLES))
def test_each_top_level_key_example_validates(
    key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-reference-test")  # `model:` is built, never asked
    data = yaml.safe_load(page.KEY_EXAMPLES[key])
    assert list(data) == [key]
    _validates(tmp_path, {"criteria": [NOUL], **data}, capsys)


@pytest.mark.parametrize("kind", sorted(page.CRITERION_EXAMPLES))
def test_each_kind_example_validates(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    criteria = yaml.safe_load(page.CRITERION_EXAMPLES[kind])
    assert [c["kind"] for c in criteria] == [kind]
    _validates(tmp_path, {"criteria": [*criteria, NOUL] if kind == "check" else criteria}, capsys)


def test_the_jury_example_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TYPESAFE_API_KEY", "sk-reference-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-reference-test")
    pytest.importorskip("langchain_openai")
    _validates(tmp_path, {**yaml.safe_load(page.JURY_EXAMPLE), "criteria": [NOUL]}, capsys)


@pytest.mark.parametrize("form", FORMS)
def test_each_condition_example_validates_and_decides_a_row(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    condition = yaml.safe_load(page.CONDITION_EXAMPLES[form])
    assert isinstance(condition, dict) and next(iter(condition)) == form
    check = {"kind": "check", "name": "c", "check": condition, "defect": "d"}
    data = {"criteria": [check, NOUL]}
    _validates(tmp_path, data, capsys)
    if form in ("call", "code_type_checks"):  # code of the user's own, or a type checker installed apart
        return
    judge = load_spec(data).build(ScriptedDecisionModel({"polite": 0.9}))
    assert judge.invoke(ROW).findings[0].outcome in (Outcome.PASSED, Outcome.FAILED)
