"""Where a report's results came from: dataset, judge, model, package, date, command, counts.

Pure: `provenance_of` reads a results file's header (its ``judge``, ``fingerprint``
and, for files written since the header gained it, its ``run``: what the command
knew when it started) and the records themselves (rows, requests answered,
cache hits), and lets the caller fill in or override any field. Only the host of
a server's address is kept (never a path, query or credentials), and every text
is passed through the package's key redaction once more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from langchain_jev.models._secrets import redact

__all__ = ["Provenance", "host_of", "provenance_of", "redacted_command", "run_description"]


def host_of(url: str | None) -> str | None:
    """The host (and port) of a server address: no scheme's credentials, path or query.

    Example:
        >>> host_of("https://user:secret@jev.example.com:8443/v1?key=abc")
        'jev.example.com:8443'
        >>> host_of(None) is None, host_of("not a url")
        (True, None)

    """
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host:
        return None
    return f"{host}:{port}" if port else host


def redacted_command(argv: Sequence[str]) -> list[str]:
    """A command line as a report may show it: known keys redacted, addresses cut to their host.

    Example:
        >>> redacted_command(["langchain-jev", "judge", "--base-url", "https://me:pw@jev.example.com/v1?k=1"])
        ['langchain-jev', 'judge', '--base-url', 'https://jev.example.com']

    """
    shown = []
    for part in argv:
        text = str(part)
        if "://" in text:
            scheme = text.split("://", 1)[0]
            host = host_of(text)
            text = f"{scheme}://{host}" if host else "[an address]"
        shown.append(redact(text))
    return shown


def run_description(
    *,
    dataset: str,
    fmt: str | None = None,
    fields: Mapping[str, Any] | None = None,
    judge_file: str | None = None,
    base_url: str | None = None,
    argv: Sequence[str] | None = None,
    fail_under: float | None = None,
) -> dict[str, Any]:
    """What a run knows of itself when it starts, as a results file's header keeps it (under ``run``).

    ``base_url`` is kept as its host alone, the command line redacted (`redacted_command`).
    The dataset is kept as given and as an absolute path, so a report drawn later finds it.

    Example:
        >>> described = run_description(dataset="rows.jsonl", base_url="https://me:pw@jev.example.com/v1")
        >>> described["base_url"], described["dataset"], sorted(described)[:3]
        ('jev.example.com', 'rows.jsonl', ['base_url', 'dataset', 'dataset_path'])

    """
    import datetime
    import os

    from langchain_jev import __version__

    described: dict[str, Any] = {
        "dataset": dataset,
        "dataset_path": os.path.abspath(dataset),
        "format": fmt,
        "fields": dict(fields) if fields is not None else None,
        "judge_file": judge_file,
        "base_url": host_of(base_url),
        "version": __version__,
        "started": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": redacted_command(argv) if argv is not None else None,
        "fail_under": fail_under,
    }
    return {k: v for k, v in described.items() if v is not None}


@dataclass(frozen=True)
class Provenance:
    """What a report says of the run behind it (None: not known, left off the page).

    Example:
        >>> Provenance(dataset="rows.jsonl", rows=3).items()
        [('dataset', 'rows.jsonl'), ('rows', '3')]

    """

    dataset: str | None = None
    results: str | None = None
    judge_file: str | None = None
    fingerprint: str | None = None
    model: str | None = None
    server: str | None = None
    """The host (and port) of the decision model's server."""
    version: str | None = None
    """The langchain-jev version that wrote the results."""
    started: str | None = None
    command: str | None = None
    """The command line (keys redacted)."""
    rows: int | None = None
    """Rows recorded (judged, or recorded as not judged)."""
    passed: int | None = None
    not_judged: int | None = None
    bad_rows: int | None = None
    """Rows of the dataset that could not be read or mapped (not in the results)."""
    requests: int | None = None
    """Rows answered by a request to the model (not from the cache)."""
    cache_hits: int | None = None
    extra: Sequence[tuple[str, str]] = field(default_factory=tuple)
    """More lines, as (label, value)."""

    def items(self) -> list[tuple[str, str]]:
        """The known facts as (label, text) in reading order."""
        labels = (
            ("dataset", self.dataset),
            ("results", self.results),
            ("judge file", self.judge_file),
            ("judge fingerprint", self.fingerprint),
            ("model", self.model),
            ("server", self.server),
            ("langchain-jev", self.version),
            ("started", self.started),
            ("command", self.command),
            ("rows", self.rows),
            ("passed", self.passed),
            ("not judged", self.not_judged),
            ("bad rows skipped", self.bad_rows),
            ("answered by the model", self.requests),
            ("answered from the cache", self.cache_hits),
        )
        shown = [(label, redact(str(value))) for label, value in labels if value is not None]
        shown.extend((redact(str(label)), redact(str(value))) for label, value in self.extra)
        return shown


def provenance_of(
    header: Mapping[str, Any] | None,
    records: Sequence[Mapping[str, Any]],
    **given: Any,
) -> Provenance:
    """The provenance of ``records`` (a results file's rows) under ``header``; ``given`` fields win.

    Example:
        >>> header = {"fingerprint": "sha256:ab", "judge": {"model": "jev-latest"},
        ...     "run": {"dataset": "rows.jsonl", "base_url": "http://127.0.0.1:9/", "version": "0.1.0"}}
        >>> records = [{"row": 1, "passed": True, "model": "jev-latest", "findings": []},
        ...     {"row": 2, "passed": True, "model": "jev-latest", "cache_hit": True, "findings": []}]
        >>> p = provenance_of(header, records, results="out.jsonl")
        >>> p.dataset, p.server, p.requests, p.cache_hits, p.results
        ('rows.jsonl', '127.0.0.1:9', 1, 1, 'out.jsonl')

    """
    header = header or {}
    run: Mapping[str, Any] = header["run"] if isinstance(header.get("run"), Mapping) else {}
    judge: Mapping[str, Any] = header["judge"] if isinstance(header.get("judge"), Mapping) else {}
    command = run.get("command")
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    bad = run.get("bad_rows")
    answered = sum(1 for r in records if isinstance(r.get("model"), str) and r.get("cache_hit") is not True)
    hits = sum(1 for r in records if r.get("cache_hit") is True)
    found = Provenance(
        dataset=_text(run.get("dataset")),
        judge_file=_text(run.get("judge_file")),
        fingerprint=_text(header.get("fingerprint")),
        model=_text(judge.get("model")) or next((str(r["model"]) for r in records if "model" in r), None),
        server=host_of(_text(run.get("base_url"))),
        version=_text(run.get("version")),
        started=_text(run.get("started")),
        command=_text(command),
        rows=len(records),
        passed=sum(1 for r in records if r.get("passed") is True),
        not_judged=sum(1 for r in records if "error" in r),
        bad_rows=bad if isinstance(bad, int) else None,
        requests=answered,
        cache_hits=hits,
    )
    known = {k: v for k, v in given.items() if v is not None}
    if "server" in known:
        known["server"] = host_of(str(known["server"])) or None
    return replace(found, **known)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
