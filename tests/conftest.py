"""Settings for the whole suite."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from tests.support.signals import sigint_at_start  # noqa: F401  (a fixture every test may ask for)

# A property holds or it does not, however busy the machine: no example is failed for taking long
# (Hypothesis' default 200 ms deadline failed examples on a loaded 2-core machine).
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep each test file on one xdist worker (its module fixtures start once), and every Ray test on one.

    With ``--dist loadgroup`` the two workers take whole files, and one Ray cluster serves the Ray tests
    (two clusters at once would share the machine's cores with each other and the other worker).
    """
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group("ray" if path.startswith("tests/ray/") else path))
    # The longest group first: started last, the Ray tests ran alone on one worker at the end of the run.
    items.sort(key=lambda item: not item.nodeid.startswith("tests/ray/"))
