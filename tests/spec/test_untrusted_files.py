"""Judge files are data: validating imports nothing, code runs only when trusted, parsing is bounded."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from langchain_jev import JudgeSpecError
from langchain_jev.spec import load_judge, load_spec
from langchain_jev.testing import ScriptedDecisionModel
from tests.cli.helpers import WEATHER_JUDGE, run_cli

NOUL = {"kind": "noul", "name": "polite", "instructions": "Polite?", "minimum": 0.7}


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A module that leaves a marker file when it is imported, on the import path."""
    name = f"planted_{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "imported"
    (tmp_path / f"{name}.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"
        "def check(data):\n    return True\n"
        "def render(findings):\n    return 'rendered'\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, marker
    sys.modules.pop(name, None)


def code_judge(module: str) -> dict[str, Any]:
    return {
        "feedback_renderer": f"{module}:render",
        "criteria": [
            {"kind": "check", "name": "mine", "check": {"all": [{"present": "x"}, {"call": f"{module}:check"}]}, "defect": "d"},
            {**NOUL, "applies_when": {"not": {"call": f"{module}:check"}}},
        ],
    }


def test_validating_a_file_that_names_code_imports_nothing(planted: tuple[str, Path], tmp_path: Path) -> None:
    module, marker = planted
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(code_judge(module)), encoding="utf-8")

    spec = load_spec(path)

    assert [c.name for c in spec.criteria] == ["mine", "polite"]
    assert not marker.exists() and module not in sys.modules


def test_building_refuses_code_without_the_opt_in_naming_criterion_reference_and_opt_in(
    planted: tuple[str, Path],
) -> None:
    module, marker = planted
    with pytest.raises(JudgeSpecError) as caught:
        load_judge(code_judge(module), model=ScriptedDecisionModel({"polite": 0.9}))

    assert not marker.exists() and module not in sys.modules
    problems = dict(caught.value.problems)
    assert list(problems) == ["criteria[0].check.all[1].call", "criteria[1].applies_when.not.call", "feedback_renderer"]
    first = problems["criteria[0].check.all[1].call"]
    assert f"criterion 'mine' refers to code '{module}:check'" in first
    assert "allow_code=True" in first and f"allow_code=['{module}']" in first and "--allow-code" in first
    assert problems["feedback_renderer"].startswith(f"the judge refers to code '{module}:render'")


@pytest.mark.parametrize("allow", [True, "MODULE", ["MODULE"], ["MODULE", "other"]])
def test_code_runs_when_the_user_trusts_it(planted: tuple[str, Path], allow: Any) -> None:
    module, marker = planted
    allow_code = allow if allow is True else ([module if a == "MODULE" else a for a in allow] if isinstance(allow, list) else module)

    judge = load_judge(code_judge(module), model=ScriptedDecisionModel({"polite": 0.9}), allow_code=allow_code)

    assert marker.exists()
    from langchain_jev import JevJudgeInput

    assert judge.judge(JevJudgeInput("Q?", "A.", fields={"x": 1})).feedback == "rendered"


@pytest.mark.parametrize("allow", [False, ["other"], ["planted"], [""]])
def test_a_prefix_trusts_a_module_and_those_below_it_only(planted: tuple[str, Path], allow: Any) -> None:
    module, marker = planted
    with pytest.raises((JudgeSpecError, ValueError)):
        load_judge(code_judge(module), model=ScriptedDecisionModel({}), allow_code=allow)
    assert not marker.exists()


@pytest.mark.parametrize("reference", ["unittest.__main__:main", "code:interact", "os:system"])
def test_the_reported_attacks_are_refused_before_any_import(reference: str) -> None:
    before = set(sys.modules)
    source = {"criteria": [NOUL, {"kind": "check", "name": "c", "check": {"call": reference}, "defect": "d"}]}
    load_spec(source)
    with pytest.raises(JudgeSpecError, match=r"criterion 'c' refers to code"):
        load_judge(source, model=ScriptedDecisionModel({}))
    assert reference.partition(":")[0] in before or reference.partition(":")[0] not in sys.modules


# ----------------------------------------------------------------------------- references stay inside the trust

CHECKS = """
import functools, json, os, re
from os import system
from subprocess import Popen
from {package}.other import helper
from {package}.checks import text

def check(data):
    return True

lam = lambda data: True

class Checker:
    def __call__(self, data):
        return True

    def run(self, data):
        return True

run_eval = eval
partial = functools.partial(os.system, "true")
pattern = re.compile("x")
checker = Checker()
"""


@pytest.fixture
def trusted_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package ``<name>`` with ``checks`` (the trusted module), ``checks.text`` below it, and ``other`` beside it."""
    name = f"myproject_{uuid.uuid4().hex[:8]}"
    root = tmp_path / name
    (root / "checks").mkdir(parents=True)
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "other.py").write_text("def helper(data):\n    return True\n", encoding="utf-8")
    (root / "checks" / "text.py").write_text("def short(data):\n    return True\n", encoding="utf-8")
    (root / "checks" / "__init__.py").write_text(CHECKS.format(package=name), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        sys.modules.pop(module, None)


def _check_judge(reference: str) -> dict[str, Any]:
    return {"criteria": [NOUL, {"kind": "check", "name": "c", "check": {"call": reference}, "defect": "d"}]}


@pytest.mark.parametrize(
    ("attribute", "home"),
    [
        ("os.system", "'os'"),  # the reported attack: a module the trusted one imported
        ("system", "'posix'"),  # a function it re-exports
        ("Popen", "'subprocess'"),  # a class it re-exports
        ("helper", "'.other'"),  # a function of an untrusted module beside it
        ("run_eval", "'builtins'"),  # a builtin under another name
        ("partial", "'functools'"),  # a partial of an untrusted function
        ("pattern.match", "'re'"),  # a method of an object of an untrusted class
        ("json.dumps", "'json'"),  # a step through an untrusted module
        ("Checker.__class__", "'builtins'"),  # out of a trusted class to its metaclass
        ("check.__globals__.get", "no module"),  # out of a trusted function to its namespace
    ],
)
def test_a_reference_must_name_what_a_trusted_module_defines_not_what_it_reaches(
    trusted_package: str, attribute: str, home: str
) -> None:
    reference = f"{trusted_package}.checks:{attribute}"
    with pytest.raises(JudgeSpecError) as caught:
        load_judge(_check_judge(reference), model=ScriptedDecisionModel({}), allow_code=[f"{trusted_package}.checks"])
    message = dict(caught.value.problems)["criteria[1].check.call"]
    assert "which is not trusted" in message and home.replace("'.", f"'{trusted_package}.") in message


@pytest.mark.parametrize("attribute", ["check", "lam", "Checker", "Checker.run", "checker", "text.short"])
def test_functions_classes_and_submodules_defined_in_trusted_modules_still_run(
    trusted_package: str, attribute: str
) -> None:
    reference = f"{trusted_package}.checks:{attribute}"
    judge = load_judge(
        _check_judge(reference), model=ScriptedDecisionModel({"polite": 0.9}), allow_code=[f"{trusted_package}.checks"]
    )
    if attribute not in ("Checker", "Checker.run"):  # a class and an unbound method build, but are no check
        assert judge.judge("Hi?", "Hello!").finding("c").outcome.name == "PASSED"


def test_trusting_every_module_still_reaches_anything(trusted_package: str) -> None:
    load_judge(_check_judge(f"{trusted_package}.checks:Popen"), model=ScriptedDecisionModel({}), allow_code=True)


def test_a_feedback_renderer_is_held_to_the_same_rule(trusted_package: str) -> None:
    source = {"feedback_renderer": f"{trusted_package}.checks:json.dumps", "criteria": [NOUL]}
    with pytest.raises(JudgeSpecError, match=r"feedback_renderer: .*:json' is defined in 'json'"):
        load_judge(source, model=ScriptedDecisionModel({}), allow_code=[trusted_package])


def test_built_in_checks_need_no_opt_in() -> None:
    judge = load_judge(WEATHER_JUDGE, model=ScriptedDecisionModel({}))
    assert len(judge.criteria) == 5


# ----------------------------------------------------------------------------- bounded parsing

ALIAS_BOMB = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
    "criteria:\n"
    "  - {kind: noul, name: polite, instructions: *i, minimum: 0.7}\n"
)


def _error(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JudgeSpecError) as caught:
        load_judge(path, model=ScriptedDecisionModel({}))
    return str(caught.value)


def test_a_yaml_alias_bomb_is_refused_at_its_first_alias(tmp_path: Path) -> None:
    assert len(ALIAS_BOMB.encode()) < 700
    message = _error(tmp_path, "bomb.yaml", ALIAS_BOMB)
    assert message == (
        f"{tmp_path / 'bomb.yaml'}: line 2, column 8: judge files take no YAML aliases (*a); write the value out in full"
    )


def test_a_judge_file_nested_a_thousand_deep_is_a_located_error(tmp_path: Path) -> None:
    flow = "criteria:\n  - {kind: noul, name: n, minimum: 0.5, instructions: " + "[" * 1000 + "]" * 1000 + "}\n"
    assert "line 2, column" in _error(tmp_path, "deep.yaml", flow) and "nests deeper than 64 levels" in _error(
        tmp_path, "deep.yaml", flow
    )
    condition = '{"not": ' * 1000 + '{"present": "x"}' + "}" * 1000
    text = '{"criteria": [' + json.dumps(NOUL) + ', {"kind": "check", "name": "c", "defect": "d", "check": ' + condition + "}]}"
    assert "line 1, column" in _error(tmp_path, "deep.json", text)
    assert "nests deeper than 64 levels" in _error(tmp_path, "deep.json", text)
    block = "criteria:\n  - kind: check\n    name: c\n    defect: d\n    check:\n"
    block += "".join("  " * (level + 3) + "not:\n" for level in range(1000)) + "  " * 1003 + "present: x\n"
    assert "nests deeper than 64 levels" in _error(tmp_path, "deep_block.yaml", block)
    document: dict[str, Any] = {"present": "x"}
    for _ in range(1000):
        document = {"not": document}
    with pytest.raises(JudgeSpecError, match=r"criteria\[1\]\.check\.not\.not\.not\.\.\.: nests deeper than 64"):
        load_judge({"criteria": [NOUL, {"kind": "check", "name": "c", "check": document, "defect": "d"}]})


def test_a_file_larger_than_the_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    text = "criteria:\n  - {kind: noul, name: n, minimum: 0.5, instructions: x}\n# " + "x" * (1 << 20) + "\n"
    assert "the judge file is larger than 1024 KiB" in _error(tmp_path, "big.yaml", text)


@pytest.mark.parametrize(
    "tag",
    ["!!python/object/apply:os.system ['echo hi']", "!!python/name:os.system", "!custom x", "!!binary aGk="],
)
def test_yaml_tags_beyond_plain_data_are_refused(tmp_path: Path, tag: str) -> None:
    text = f"criteria:\n  - {{kind: noul, name: n, minimum: 0.5, instructions: {tag}}}\n"
    assert "criteria" in _error(tmp_path, "tag.yaml", text) or "YAML" in _error(tmp_path, "tag.yaml", text)


# ----------------------------------------------------------------------------- the command line


@pytest.mark.slow
def test_the_command_line_validates_without_importing_and_judges_code_only_with_allow_code(
    planted: tuple[str, Path], tmp_path: Path
) -> None:
    module, marker = planted
    spec = tmp_path / "judge.json"
    spec.write_text(json.dumps(code_judge(module)), encoding="utf-8")
    data = tmp_path / "rows.jsonl"
    data.write_text('{"answer": "a", "x": 1}\n', encoding="utf-8")

    valid = run_cli("validate", spec, PYTHONPATH=str(tmp_path))
    assert valid.returncode == 0, valid.stderr
    assert f"criteria[0].check.all[1].call names code '{module}:check'" in valid.stdout
    refused = run_cli("judge", data, "--judge", spec, "--base-url", "http://127.0.0.1:9", PYTHONPATH=str(tmp_path))
    assert refused.returncode == 2, refused.stderr
    assert "criterion 'mine' refers to code" in refused.stderr and "--allow-code" in refused.stderr
    assert not marker.exists()
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(ALIAS_BOMB, encoding="utf-8")
    bombed = run_cli("validate", bomb, timeout=30)
    assert bombed.returncode == 2 and "judge files take no YAML aliases" in bombed.stderr
