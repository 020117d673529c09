"""`write_report` takes `render_report`'s options, as one ``TypedDict``, and refuses any other name."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from langchain_jev.report import render_report, write_report
from langchain_jev.report._page import ReportOptions
from tests.support.options import keywords_of, not_options, option_names

EXPLICIT = {"path", "judge", "records"}


def test_every_option_is_a_keyword_of_render_report_and_back() -> None:
    assert option_names(ReportOptions) == keywords_of(render_report)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=not_options(option_names(ReportOptions) | EXPLICIT))
def test_a_name_that_is_no_option_is_refused_and_nothing_is_written(name: str, tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    with pytest.raises(TypeError, match=name):
        write_report(path, None, [], **{name: 1})  # type: ignore[arg-type]
    assert not path.exists()
