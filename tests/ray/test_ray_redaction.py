"""On Ray, a server that echoes the key gets it into no column, no results line and no worker log."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from langchain_jev.cli import main  # noqa: E402
from tests.ray.conftest import API_KEY  # noqa: E402
from tests.support.hostile_server import HostileServer  # noqa: E402

pytestmark = pytest.mark.slow

JUDGE = {
    "criteria": [
        {"kind": "noul", "name": "polite", "instructions": "Is `assistant_answer` polite?", "minimum": 0.7},
        {"kind": "choice", "name": "tone", "instructions": "Tone?", "options": {"calm": "", "angry": ""}, "accepted": ["calm"]},
    ]
}


@ray.remote
def _child_logger_record() -> str:
    """What a worker's own child logger makes of a record carrying the key, after an actor started there."""
    from langchain_jev.models._secrets import install_log_filter

    install_log_filter()  # as JudgeActor does when it starts
    record = logging.getLogger("httpcore2.http11").makeRecord(
        "httpcore2.http11", logging.DEBUG, __file__, 1, "headers=%s", ([(b"x-echo", API_KEY.encode())],), None
    )
    return record.getMessage()


def test_echoed_keys_reach_no_column_results_line_or_worker_log(cluster: None, tmp_path: Path) -> None:
    judge = tmp_path / "judge.json"
    judge.write_text(json.dumps(JUDGE), encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"question": f"Q{i}?", "answer": "A."}) + "\n" for i in range(6)), "utf-8")
    out = tmp_path / "results.jsonl"
    with HostileServer() as server:
        command = ["judge", str(rows), "--judge", str(judge), "--engine", "ray", "--base-url", server.url("echo")]
        code = main([*command, "--out", str(out), "--quiet", "--max-retries", "0"])
    assert code in (0, 1, 3), code  # judged (the echoed answers fail, or error: exit 3), not a crash (70)
    written = out.read_text(encoding="utf-8")
    assert API_KEY not in written and "[redacted]" in written
    assert len(written.splitlines()) == 7  # the header and every row
    logs = Path(ray._private.worker._global_node.get_logs_dir_path())
    for log in logs.glob("worker-*"):
        assert API_KEY not in log.read_text(encoding="utf-8", errors="replace"), log.name
    assert ray.get(_child_logger_record.remote()) == "headers=[(b'x-echo', b'[redacted]')]"
