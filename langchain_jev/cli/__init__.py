"""The ``langchain-jev`` command line: commands and argument parsing only; every run is an engine's.

Where a row goes: ``langchain-jev judge DATA`` is parsed here and handed to an engine, the
local one (`langchain_jev.datasets._local`: the rows read, judged here or in worker processes,
written to the results file) or, with ``--engine ray``, the Ray one (`langchain_jev.ray._run`).
The results file it leaves is what the other commands read back, each through
`langchain_jev.datasets`: ``rejudge`` decides its answers again, ``calibrate`` measures them
against human labels (`langchain_jev.calibration`), ``compare`` sets two side by side
(`langchain_jev.compare`), and ``--html`` draws them (`langchain_jev.report`).

Modules, one job each:

- `app`: ``main`` and the parser; it only dispatches, and nothing but the entry points imports it;
- `arguments`: the argument types the commands share (``--fail-under``, ``--base-url``, ...);
- `judge`: the ``judge`` command on either engine (`judge_on_ray` for ``--engine ray``), its ``--html``;
- `rejudge`, `calibrate`: decide stored answers again; measure a judge against human labels;
- `compare`: two results files side by side, or each row's two answers judged head to head;
- `monitor`: the ``monitor`` command, judging a LangSmith project's new runs once each;
- `simulate`: the ``simulate`` command, a simulated conversation per row (`langchain_jev.simulation`);
- `judges`: the ``judges`` command, listing the prebuilt judges and printing their files;
- `validate`: the ``schema`` and ``validate`` commands;
- `deploy`: the ``deploy`` command, a judge file as a LangSmith online evaluator.

No engine lives here: no class, and none of the libraries an engine runs on (Ray, processes,
threads; ``tests/test_layout.py`` pins it). The exit codes are
`langchain_jev.datasets._exit_codes`, re-exported by this face (its stub, ``__init__.pyi``).

Example:
    langchain-jev judge rows.jsonl --judge judge.yaml --out results.jsonl --fail-under 0.8

"""

from __future__ import annotations

from langchain_jev._lazy import lazy_exports_from_stub

__getattr__, __dir__, __all__ = lazy_exports_from_stub(__name__, __file__)
