"""Settings for the whole suite."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# A property holds or it does not, however busy the machine: no example is failed for taking long
# (Hypothesis' default 200 ms deadline failed examples on a loaded 2-core machine).
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")
