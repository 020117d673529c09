"""One local Ray cluster (2 CPUs) for the Ray tests of a session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

API_KEY = "sk-ray-test-0123456789"


@pytest.fixture(scope="session")
def cluster() -> Iterator[None]:
    """A local Ray cluster; the actors read the API key from the environment it starts with."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    os.environ["TYPESAFE_API_KEY"] = API_KEY
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    try:
        yield
    finally:
        ray.shutdown()
