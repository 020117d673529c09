"""Throughput of `langchain_jev.monitor.monitor` against the scripted LangSmith API, by concurrency.

A project of traced runs is served by the fake LangSmith API of the tests
(`tests.support.fake_langsmith.FakeProject`, 2 ms per request), read and
written through the real ``langsmith.Client``; the judge asks a scripted
decision model that takes 20 ms per request. Each run costs one model request
and three feedback requests (two criteria and the verdict), one after the
other, plus its share of the reads.

The rows are runs judged per second at concurrency 4 and 16 over the rate at
concurrency 1 (ideal 4 and 16: every run waits on its own requests only); the
rates themselves are printed for information. Ratios, not times: the machine
and the other processes on it move the rates, much less their ratios.

Run: ``python benchmarks/monitor_throughput.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Row, load_row, print_table, row

from langchain_jev import JevJudge
from langchain_jev.monitor import monitor
from langchain_jev.testing import ScriptedDecisionModel
from tests.support.fake_langsmith import FakeProject, fake_project
from tests.support.monitoring import T0, UNTIL, add_runs, client_for, criteria

MODEL_DELAY = 0.02
API_DELAY = 0.002
RUNS = {1: 60, 4: 240, 16: 480}
GOALS = {4: 2.5, 16: 5.0}


def rate(concurrency: int) -> float:
    """Runs judged per second by one pass at ``concurrency``."""
    with fake_project(FakeProject(delay=API_DELAY)) as project:
        add_runs(project, RUNS[concurrency])
        judge = JevJudge(
            criteria(), model=ScriptedDecisionModel({"polite": 0.9, "helpful": 2.6}, delay=MODEL_DELAY)
        )
        started = time.perf_counter()
        summary = monitor(judge, project=project.name, since=T0, until=UNTIL, concurrency=concurrency,
                          client=client_for(project), cursor=None)  # fmt: skip
        seconds = time.perf_counter() - started
        assert summary.judged == RUNS[concurrency] and not summary.failed, summary.lines()
    return summary.judged / seconds


def run() -> list[Row]:
    """The benchmark's rows."""
    rates = {concurrency: rate(concurrency) for concurrency in RUNS}
    rows = [load_row()]
    for concurrency, runs_per_second in rates.items():
        rows.append(row(f"monitor: runs judged per second at concurrency {concurrency}", runs_per_second,
                        "(info)", True, "runs/s"))  # fmt: skip
    for concurrency, goal in GOALS.items():
        ratio = rates[concurrency] / rates[1]
        rows.append(row(f"monitor: runs/s at concurrency {concurrency} / at 1 (ideal {concurrency})", ratio,
                        f">= {goal}", ratio >= goal))  # fmt: skip
    return rows


if __name__ == "__main__":
    print_table("monitor throughput (scripted LangSmith API and decision model)", run())
