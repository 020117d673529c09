"""Fixtures of the tests of the commands that read results files (see `tests.cli.stored`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_jev.testing.server import JevServer
from tests.cli.stored import KEY, judged_runs, server_answers


@pytest.fixture(scope="module")
def stored_server() -> Iterator[JevServer]:
    """A loopback server answering the weather questions (and comparisons, the answer shown first)."""
    with JevServer(server_answers()) as running:
        yield running


@pytest.fixture(scope="module")
def stored_runs(stored_server: JevServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two judged runs of the labelled weather rows (`tests.cli.stored.judged_runs`), one set per test module."""
    return judged_runs(tmp_path_factory.mktemp("stored"), stored_server)


@pytest.fixture
def stored_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The API key the stored runs' server is asked with."""
    monkeypatch.setenv("TYPESAFE_API_KEY", KEY)
