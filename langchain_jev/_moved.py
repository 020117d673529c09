"""Old import paths that moved behind the private line, kept importable for one release (removed in 0.2).

- `MOVED`: old module path -> the module (or, for a module split in parts, the modules) now holding
  its names. A finder installed when ``langchain_jev`` is imported builds the old module on first
  import: its names are the new modules' own objects, and importing it warns with a
  `DeprecationWarning` naming the face to import from.
- `MOVED_NAMES`: old face -> {name: the face exporting it now}, for a name that left a face that
  stays; the face's lazy ``__getattr__`` (`langchain_jev._lazy`) asks `moved_name`, which warns alike.
- `MOVED_METHODS`: old method -> (the call to make now, the callable making it), for a method whose
  work moved to a spoke (``JevJudge.as_evaluator`` -> ``JevRunEvaluator(judge)``). The package face
  fills it (`move_method`) when it loads, so the engine calls `moved_method` and imports no spoke.

The face of a new module is its path up to its first private part
(``langchain_jev.datasets._results.writer`` -> ``langchain_jev.datasets``). No stub file for an old path:
a move is one row here. The rows go when 0.2 removes the old paths.

Example:
    >>> from langchain_jev._moved import face_of
    >>> face_of("langchain_jev.datasets._results.writer")
    'langchain_jev.datasets'

"""

from __future__ import annotations

import importlib
import importlib.abc
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import FrameType, ModuleType
from typing import Any

__all__ = [
    "MOVED",
    "MOVED_METHODS",
    "MOVED_NAMES",
    "face_of",
    "install",
    "move_method",
    "moved_method",
    "moved_name",
]

REMOVED_IN = "0.2"

MOVED: dict[str, str | tuple[str, ...]] = {
    # BEGIN private line: written by scripts/private_line.py, one row per renamed module
    "langchain_jev.calibration.figures": "langchain_jev.calibration._figures",
    "langchain_jev.calibration.labels": "langchain_jev.calibration._labels",
    "langchain_jev.calibration.measure": "langchain_jev.calibration._measure",
    "langchain_jev.calibration.metrics": "langchain_jev.calibration._metrics",
    "langchain_jev.calibration.panel": "langchain_jev.calibration._panel",
    "langchain_jev.calibration.rewrite": "langchain_jev.calibration._rewrite",
    "langchain_jev.calibration.study": "langchain_jev.calibration._study",
    "langchain_jev.calibration.suggest": "langchain_jev.calibration._suggest",
    "langchain_jev.calibration.sweep": "langchain_jev.calibration._sweep",
    "langchain_jev.calibration.tables": "langchain_jev.calibration._tables",
    "langchain_jev.cli.app": "langchain_jev.cli._app",
    "langchain_jev.cli.arguments": "langchain_jev.cli._arguments",
    "langchain_jev.cli.calibrate": "langchain_jev.cli._calibrate",
    "langchain_jev.cli.compare": "langchain_jev.cli._compare",
    "langchain_jev.cli.deploy": "langchain_jev.cli._deploy",
    "langchain_jev.cli.guardrail_eval": "langchain_jev.cli._guardrail_eval",
    "langchain_jev.cli.judge": "langchain_jev.cli._judge",
    "langchain_jev.cli.judges": "langchain_jev.cli._judges",
    "langchain_jev.cli.monitor": "langchain_jev.cli._monitor",
    "langchain_jev.cli.rejudge": "langchain_jev.cli._rejudge",
    "langchain_jev.cli.simulate": "langchain_jev.cli._simulate",
    "langchain_jev.cli.validate": "langchain_jev.cli._validate",
    "langchain_jev.compare.answers": "langchain_jev.compare._answers",
    "langchain_jev.compare.comparison": "langchain_jev.compare._comparison",
    "langchain_jev.compare.head_to_head": "langchain_jev.compare._head_to_head",
    "langchain_jev.compare.join": "langchain_jev.compare._join",
    "langchain_jev.compare.stats": "langchain_jev.compare._stats",
    "langchain_jev.conversation": "langchain_jev._conversation",
    "langchain_jev.criteria": "langchain_jev._criteria",
    "langchain_jev.datasets.collector": "langchain_jev.datasets._collector",
    "langchain_jev.datasets.exit_codes": "langchain_jev.datasets._exit_codes",
    "langchain_jev.datasets.fingerprint": "langchain_jev.datasets._fingerprint",
    "langchain_jev.datasets.header": "langchain_jev.datasets._header",
    "langchain_jev.datasets.local": "langchain_jev.datasets._local",
    "langchain_jev.datasets.local.pool": "langchain_jev.datasets._local.pool",
    "langchain_jev.datasets.local.progress": "langchain_jev.datasets._local.progress",
    "langchain_jev.datasets.local.run": "langchain_jev.datasets._local.run",
    "langchain_jev.datasets.local.session": "langchain_jev.datasets._local.session",
    "langchain_jev.datasets.local.worker": "langchain_jev.datasets._local.worker",
    "langchain_jev.datasets.lock": "langchain_jev.datasets._lock",
    "langchain_jev.datasets.model": "langchain_jev.datasets._model",
    "langchain_jev.datasets.options": "langchain_jev.datasets._options",
    "langchain_jev.datasets.pacing": "langchain_jev.datasets._pacing",
    "langchain_jev.datasets.paths": "langchain_jev.datasets._paths",
    "langchain_jev.datasets.readers": "langchain_jev.datasets._readers",
    "langchain_jev.datasets.reading": "langchain_jev.datasets._reading",
    "langchain_jev.datasets.redecide": "langchain_jev.datasets._redecide",
    "langchain_jev.datasets.rows": "langchain_jev.datasets._rows",
    "langchain_jev.datasets.states": "langchain_jev.datasets._states",
    "langchain_jev.datasets.stored": "langchain_jev.datasets._stored",
    "langchain_jev.datasets.strict_json": "langchain_jev.datasets._strict_json",
    "langchain_jev.datasets.tally": "langchain_jev.datasets._tally",
    "langchain_jev.datasets.transport": "langchain_jev.datasets._transport",
    "langchain_jev.datasets.writing": "langchain_jev.datasets._writing",
    "langchain_jev.errors": "langchain_jev._errors",
    "langchain_jev.feedback": "langchain_jev._feedback",
    "langchain_jev.graph.builder": "langchain_jev.graph._builder",
    "langchain_jev.graph.guarded_model": "langchain_jev.graph._guarded_model",
    "langchain_jev.graph.guardrail": "langchain_jev.graph._guardrail",
    "langchain_jev.graph.self_refine": "langchain_jev.graph._self_refine",
    "langchain_jev.graph.wiring": "langchain_jev.graph._wiring",
    "langchain_jev.guardrails._subjects": "langchain_jev.guardrails._judged",
    "langchain_jev.guardrails.battery": "langchain_jev.guardrails._battery",
    "langchain_jev.guardrails.calls": "langchain_jev.guardrails._calls",
    "langchain_jev.guardrails.catalog": "langchain_jev.guardrails._catalog",
    "langchain_jev.guardrails.chunks": "langchain_jev.guardrails._chunks",
    "langchain_jev.guardrails.door": "langchain_jev.guardrails._door",
    "langchain_jev.guardrails.draft": "langchain_jev.guardrails._draft",
    "langchain_jev.guardrails.drive": "langchain_jev.guardrails._drive",
    "langchain_jev.guardrails.early": "langchain_jev.guardrails._early",
    "langchain_jev.guardrails.hidden": "langchain_jev.guardrails._hidden",
    "langchain_jev.guardrails.ledger": "langchain_jev.guardrails._ledger",
    "langchain_jev.guardrails.lookalike": "langchain_jev.guardrails._lookalike",
    "langchain_jev.guardrails.policy": "langchain_jev.guardrails._policy",
    "langchain_jev.guardrails.protocol": "langchain_jev.guardrails._protocol",
    "langchain_jev.guardrails.quality.evaluate": "langchain_jev.guardrails.quality._evaluate",
    "langchain_jev.guardrails.quality.judging": "langchain_jev.guardrails.quality._judging",
    "langchain_jev.guardrails.quality.labels": "langchain_jev.guardrails.quality._labels",
    "langchain_jev.guardrails.quality.metrics": "langchain_jev.guardrails.quality._metrics",
    "langchain_jev.guardrails.quality.shadow": "langchain_jev.guardrails.quality._shadow",
    "langchain_jev.guardrails.quality.summary": "langchain_jev.guardrails.quality._summary",
    "langchain_jev.guardrails.quality.tables": "langchain_jev.guardrails.quality._tables",
    "langchain_jev.guardrails.quality.thresholds": "langchain_jev.guardrails.quality._thresholds",
    "langchain_jev.guardrails.rail": "langchain_jev.guardrails._rail",
    "langchain_jev.guardrails.refusal_block": "langchain_jev.guardrails._refusal_block",
    "langchain_jev.guardrails.release": "langchain_jev.guardrails._release",
    "langchain_jev.guardrails.review": "langchain_jev.guardrails._review",
    "langchain_jev.guardrails.settings": "langchain_jev.guardrails._settings",
    "langchain_jev.guardrails.spellings": "langchain_jev.guardrails._spellings",
    "langchain_jev.guardrails.subjects": "langchain_jev.guardrails._judged",
    "langchain_jev.guardrails.text": "langchain_jev.guardrails._text",
    "langchain_jev.guardrails.tools": "langchain_jev.guardrails._tools",
    "langchain_jev.guardrails.windows": "langchain_jev.guardrails._windows",
    "langchain_jev.input": "langchain_jev._input",
    "langchain_jev.judge": "langchain_jev._judge",
    "langchain_jev.judges.build": "langchain_jev.judges._build",
    "langchain_jev.judges.catalog": "langchain_jev.judges._catalog",
    "langchain_jev.judges.checks": "langchain_jev.judges._checks",
    "langchain_jev.judges.checks.bounded": "langchain_jev.judges._checks.bounded",
    "langchain_jev.judges.checks.json_keys": "langchain_jev.judges._checks.json_keys",
    "langchain_jev.judges.checks.json_values": "langchain_jev.judges._checks.json_values",
    "langchain_jev.judges.checks.schema": "langchain_jev.judges._checks.schema",
    "langchain_jev.judges.checks.sensitive": "langchain_jev.judges._checks.sensitive",
    "langchain_jev.judges.checks.similarity": "langchain_jev.judges._checks.similarity",
    "langchain_jev.judges.checks.static_code": "langchain_jev.judges._checks.static_code",
    "langchain_jev.judges.checks.tool_calls": "langchain_jev.judges._checks.tool_calls",
    "langchain_jev.judges.code": "langchain_jev.judges._code",
    "langchain_jev.judges.json_match": "langchain_jev.judges._json_match",
    "langchain_jev.judges.sensitive_data": "langchain_jev.judges._sensitive_data",
    "langchain_jev.judges.threads": "langchain_jev.judges._threads",
    "langchain_jev.judges.trajectory": "langchain_jev.judges._trajectory",
    "langchain_jev.judges.turns": "langchain_jev.judges._turns",
    "langchain_jev.middleware.guardrail": "langchain_jev.middleware._guardrail",
    "langchain_jev.middleware.self_refine": "langchain_jev.middleware._self_refine",
    "langchain_jev.models.cache": "langchain_jev.models._cache",
    "langchain_jev.models.cache._identity": "langchain_jev.models._cache._identity",
    "langchain_jev.models.cache._keys": "langchain_jev.models._cache._keys",
    "langchain_jev.models.cache._memory": "langchain_jev.models._cache._memory",
    "langchain_jev.models.cache._model": "langchain_jev.models._cache._model",
    "langchain_jev.models.cache._protocol": "langchain_jev.models._cache._protocol",
    "langchain_jev.models.cache._sqlite": "langchain_jev.models._cache._sqlite",
    "langchain_jev.models.chat": "langchain_jev.models._chat",
    "langchain_jev.models.chat.answers": "langchain_jev.models._chat.answers",
    "langchain_jev.models.chat.errors": "langchain_jev.models._chat.errors",
    "langchain_jev.models.chat.loading": "langchain_jev.models._chat.loading",
    "langchain_jev.models.chat.logprobs": "langchain_jev.models._chat.logprobs",
    "langchain_jev.models.chat.model": "langchain_jev.models._chat.model",
    "langchain_jev.models.chat.parse": "langchain_jev.models._chat.parse",
    "langchain_jev.models.chat.prompt": "langchain_jev.models._chat.prompt",
    "langchain_jev.models.chat.schema": "langchain_jev.models._chat.schema",
    "langchain_jev.models.jev": "langchain_jev.models._jev",
    "langchain_jev.models.jury": "langchain_jev.models._jury",
    "langchain_jev.models.member_calls": "langchain_jev.models._member_calls",
    "langchain_jev.models.openai_decisions": "langchain_jev.models._openai_decisions",
    "langchain_jev.models.resolve": "langchain_jev.models._resolve",
    "langchain_jev.models.response": "langchain_jev.models._response",
    "langchain_jev.models.secrets": "langchain_jev.models._secrets",
    "langchain_jev.models.shared_cache": "langchain_jev.models._shared_cache",
    "langchain_jev.models.transport": "langchain_jev.models._transport",
    "langchain_jev.models.typesafe_classifier": "langchain_jev.models._typesafe_classifier",
    "langchain_jev.models.unique_json": "langchain_jev.models._unique_json",
    "langchain_jev.models.wire": "langchain_jev.models._wire",
    "langchain_jev.online.deployment": "langchain_jev.online._deployment",
    "langchain_jev.online.provider": "langchain_jev.online._provider",
    "langchain_jev.online.rule": "langchain_jev.online._rule",
    "langchain_jev.outcomes": "langchain_jev._outcomes",
    "langchain_jev.pairwise.build": "langchain_jev.pairwise._build",
    "langchain_jev.pairwise.judge": "langchain_jev.pairwise._judge",
    "langchain_jev.pairwise.langsmith": "langchain_jev.pairwise._langsmith",
    "langchain_jev.pairwise.questions": "langchain_jev.pairwise._questions",
    "langchain_jev.pairwise.verdict": "langchain_jev.pairwise._verdict",
    "langchain_jev.ray.actor": "langchain_jev.ray._actor",
    "langchain_jev.ray.dataset": "langchain_jev.ray._dataset",
    "langchain_jev.ray.reading": "langchain_jev.ray._reading",
    "langchain_jev.ray.run": "langchain_jev.ray._run",
    "langchain_jev.ray.source": "langchain_jev.ray._source",
    "langchain_jev.refine": "langchain_jev._refine",
    "langchain_jev.report.calibration_view": "langchain_jev.report._calibration_view",
    "langchain_jev.report.charts": "langchain_jev.report._charts",
    "langchain_jev.report.compare_page": "langchain_jev.report._compare_page",
    "langchain_jev.report.data": "langchain_jev.report._data",
    "langchain_jev.report.guardrail_page": "langchain_jev.report._guardrail_page",
    "langchain_jev.report.head_to_head_page": "langchain_jev.report._head_to_head_page",
    "langchain_jev.report.layout": "langchain_jev.report._layout",
    "langchain_jev.report.page": "langchain_jev.report._page",
    "langchain_jev.report.provenance": "langchain_jev.report._provenance",
    "langchain_jev.report.run_report": "langchain_jev.report._run_report",
    "langchain_jev.report.script": "langchain_jev.report._script",
    "langchain_jev.runs": "langchain_jev._runs",
    "langchain_jev.simulation.dataset": "langchain_jev.simulation._dataset",
    "langchain_jev.simulation.experiment": "langchain_jev.simulation._experiment",
    "langchain_jev.simulation.result": "langchain_jev.simulation._result",
    "langchain_jev.simulation.rows": "langchain_jev.simulation._rows",
    "langchain_jev.simulation.run": "langchain_jev.simulation._run",
    "langchain_jev.simulation.user": "langchain_jev.simulation._user",
    "langchain_jev.spec.builtins": "langchain_jev.spec._builtins",
    "langchain_jev.spec.code": "langchain_jev.spec._code",
    "langchain_jev.spec.conditions": "langchain_jev.spec._conditions",
    "langchain_jev.spec.errors": "langchain_jev.spec._errors",
    "langchain_jev.spec.judge_model": "langchain_jev.spec._judge_model",
    "langchain_jev.spec.kinds": "langchain_jev.spec._kinds",
    "langchain_jev.spec.model": "langchain_jev.spec._model",
    "langchain_jev.spec.reading": "langchain_jev.spec._reading",
    "langchain_jev.spec.reference": "langchain_jev.spec._reference",
    "langchain_jev.statements": "langchain_jev._statements",
    "langchain_jev.testing.assertions": "langchain_jev.testing._assertions",
    "langchain_jev.testing.chat": "langchain_jev.testing._chat",
    "langchain_jev.testing.scripted": "langchain_jev.testing._scripted",
    "langchain_jev.verdict": "langchain_jev._verdict",
    # END private line
    # the local engine left the command line for the home of a dataset run
    **{
        f"langchain_jev.cli.{part}": f"langchain_jev.datasets._local.{part}"
        for part in ("pool", "progress", "run", "session", "worker")
    },
    # a results file read back, re-decided and its rows' states: the results file's own home
    "langchain_jev.calibration.replay": "langchain_jev.datasets._redecide",
    "langchain_jev.report.states": "langchain_jev.datasets._states",
    # the Ray run is the Ray engine's; its command is the judge command's, with the other commands
    "langchain_jev.ray.command": ("langchain_jev.ray._run", "langchain_jev.cli._judge"),
    # a prebuilt judge with no option of its own is made by the one factory over the judge files
    **{
        f"langchain_jev.judges.{name}": "langchain_jev.judges._factories"
        for name in (
            "conversation",
            "conversation_labels",
            "correctness",
            "image",
            "quality",
            "rag",
            "safety",
            "security",
            "summary",
            "voice",
        )
    },
    # the checks' modules are named after what they check, not after the judge they serve
    "langchain_jev.judges.checks.code": "langchain_jev.judges._checks.static_code",
    "langchain_jev.judges.checks.json_match": "langchain_jev.judges._checks.json_keys",
    "langchain_jev.judges.checks.trajectory": "langchain_jev.judges._checks.tool_calls",
}
"""Old module path -> the module, or the modules in order, now holding its names."""

_GUARDRAIL_ERRORS = ("GuardrailCheckError", "GuardrailRefusedError", "GuardrailUndecidedError")
_HAZARDS = ("HAZARDS", "Hazard", "HazardAssessment", "HazardBattery", "STRICTNESS_PRESETS")
_GUARDRAIL_CORE = ("GuardrailReport", "GuardrailSettings", *_HAZARDS, "review_token")
_DECISION_MODELS = ("DecisionResponse", "JevDecisionModel", "JuryDecisionModel")
_CACHES = ("CachedDecisionModel", "DecisionCache", "InMemoryCache", "SQLiteCache")

MOVED_NAMES: dict[str, dict[str, str]] = {
    "langchain_jev.models._jev": {"share_cache": "langchain_jev.models._shared_cache"},  # Jev knows no cache
    # one face per public name: errors on the root, the guardrail core on guardrails, builders on graph;
    # a spoke's names on the spoke's face (decision models, LangSmith, judge files, pairwise judges)
    "langchain_jev": {
        "GuardrailSettings": "langchain_jev.guardrails",
        "HazardBattery": "langchain_jev.guardrails",
        "add_guardrail": "langchain_jev.graph",
        "create_guardrail_node": "langchain_jev.graph",
        "create_self_refine_graph": "langchain_jev.graph",
        **dict.fromkeys((*_DECISION_MODELS, *_CACHES), "langchain_jev.models"),
        **dict.fromkeys(("JevRunEvaluator", "jev_summary_evaluator"), "langchain_jev.langsmith"),
        **dict.fromkeys(("JudgeSpec", "judge_schema", "load_judge"), "langchain_jev.spec"),
        **dict.fromkeys(("PairwiseJudge", "pairwise_judge"), "langchain_jev.pairwise"),
    },
    "langchain_jev.graph": {
        **dict.fromkeys(_GUARDRAIL_ERRORS, "langchain_jev"),
        **dict.fromkeys(_GUARDRAIL_CORE, "langchain_jev.guardrails"),
    },
    "langchain_jev.guardrails": dict.fromkeys(_GUARDRAIL_ERRORS, "langchain_jev"),
    "langchain_jev.spec": {"JudgeSpecError": "langchain_jev"},
    "langchain_jev.testing": dict.fromkeys(
        ("JevServer", "scripted_server_reason"), "langchain_jev.testing.server"
    ),
}
"""Old face -> {name that left it: the face exporting it now}."""

MOVED_METHODS: dict[str, tuple[str, Callable[..., Any]]] = {}
"""Old method (``Class.method``) -> (the call to make now, the callable making it); the face fills it."""


def face_of(module: str) -> str:
    """The public face of ``module``: its path up to its first private (``_``) part."""
    parts = module.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and index:
            return ".".join(parts[:index])
    return module


def _targets(old: str) -> tuple[str, ...]:
    target = MOVED[old]
    return (target,) if isinstance(target, str) else target


def _faces(targets: Sequence[str]) -> str:
    return " or ".join(dict.fromkeys(face_of(target) for target in targets))


def _stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the code doing the import, past the import machinery.

    Level 1 is `_warn` itself; each frame of this module, of `langchain_jev._lazy` or of
    ``importlib.import_module`` adds one; `warnings` itself steps over ``importlib._bootstrap``.
    """
    here = (__file__, importlib.__file__, os.path.join(os.path.dirname(__file__), "_lazy.py"))
    frame: FrameType | None = sys._getframe(2)  # the caller of `_warn`
    level = 2
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename in here:
            level += 1
        elif not ("importlib" in filename and "_bootstrap" in filename):
            break
        frame = frame.f_back
    return level


def _warn(message: str) -> None:
    warnings.warn(message, DeprecationWarning, stacklevel=_stacklevel())


def moved_name(face: str, name: str) -> Any:
    """The object ``name`` that left ``face``, from the face exporting it now (warns); else AttributeError."""
    new_face = MOVED_NAMES.get(face, {}).get(name)
    if new_face is None:
        raise AttributeError(f"module {face!r} has no attribute {name!r}")
    _warn(f"{face}.{name} moved: import it from {new_face} (the old path is removed in {REMOVED_IN})")
    return getattr(importlib.import_module(new_face), name)


def move_method(old: str, new: str, call: Callable[..., Any]) -> None:
    """Have the old method ``old`` run ``call``, warning to use ``new`` (the face wires a spoke so)."""
    MOVED_METHODS[old] = (new, call)


def moved_method(old: str, *args: Any, **kwargs: Any) -> Any:
    """Run the method ``old`` whose work moved to a spoke, with a `DeprecationWarning` naming the new call.

    The warning points at the caller of the old method. Raises RuntimeError when the
    face did not wire it (the package face always does, as it loads before any module).
    """
    if old not in MOVED_METHODS:
        raise RuntimeError(f"{old}() has no new home wired: import langchain_jev, whose face wires it")
    new, call = MOVED_METHODS[old]
    warnings.warn(
        f"{old}() is deprecated: use {new} (removed in {REMOVED_IN})", DeprecationWarning, stacklevel=3
    )
    return call(*args, **kwargs)


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The meta-path finder and loader of the old module paths in `MOVED`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        # an old package keeps its old children importable beneath it
        is_package = any(old.startswith(fullname + ".") for old in MOVED)
        return ModuleSpec(fullname, self, is_package=is_package)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        old = module.__name__
        targets = _targets(old)
        _warn(f"{old} moved: import from {_faces(targets)} (the old path is removed in {REMOVED_IN})")
        loaded = [importlib.import_module(target) for target in targets]

        def __getattr__(name: str) -> Any:
            if name == "__all__":
                return sorted({item for new in loaded for item in _public(new)})
            for new in loaded:
                if hasattr(new, name):
                    return getattr(new, name)
            raise AttributeError(f"module {old!r} has no attribute {name!r}")

        def __dir__() -> list[str]:
            return sorted({item for new in loaded for item in dir(new)})

        vars(module).update(
            __getattr__=__getattr__,
            __dir__=__dir__,
            __doc__=f"Moved: import from {_faces(targets)}. This old path is removed in {REMOVED_IN}.",
        )


def _public(module: ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in vars(module) if not name.startswith("_")]
    return list(names)


def install() -> None:
    """Put the finder of the old module paths on ``sys.meta_path`` (once; after every real finder)."""
    if not any(type(finder).__name__ == _MovedModules.__name__ for finder in sys.meta_path):
        sys.meta_path.append(_MovedModules())
