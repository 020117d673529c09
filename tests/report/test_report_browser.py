"""The HTML report opened in a real headless Chromium: it loads from disk with no console error,
makes no request off the file, and its screenshot is not blank."""

from __future__ import annotations

from pathlib import Path

import pytest

from langchain_jev.calibration import NoRequestModel, calibrate
from langchain_jev.report import write_report
from tests.calibration.helpers import WEATHER_SPEC, build, records_of, scripted
from tests.cli.helpers import expected_weather_verdicts, weather_rows
from tests.report.browser import PageVisit, blank_share, find_chromium, open_pages

pytestmark = pytest.mark.slow  # a browser process

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on this machine (.ci/run installs Debian's chromium; locally: apt-get install -y chromium)",
)
BAD_PAGE = (
    "<!DOCTYPE html><html><head><title>bad</title></head><body><p>bad</p>"
    '<img src="http://127.0.0.1:9/pixel.png"><script>console.error("boom"); undefined_call();</script>'
    "</body></html>"
)


def reports(folder: Path) -> dict[str, Path]:
    """A judge run's report and a calibration's report of the weather rows, and a page that misbehaves."""
    expected = expected_weather_verdicts()
    rows = [
        {**row, "human": expected[row["id"]], "details_ok": row["id"] != "why-rain"} for row in weather_rows()
    ]
    judge = build(WEATHER_SPEC, NoRequestModel())
    records = records_of(build(WEATHER_SPEC, scripted()))
    calibration = calibrate(
        build(WEATHER_SPEC, scripted()), rows, {"has_details": "details_ok"}, overall="human", repeat=2
    )
    paths = {
        "judge": folder / "judge.html",
        "calibrate": folder / "calibrate.html",
        "bad": folder / "bad.html",
    }
    write_report(paths["judge"], judge, records, title="judge <weather>")
    write_report(
        paths["calibrate"],
        judge,
        [r.record for r in calibration.rows],
        title="calibrate weather",
        calibration=calibration,
        suggestion=calibration.suggest(max_false_pass=0.0),
    )
    paths["bad"].write_text(BAD_PAGE, encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def visits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, PageVisit]]:
    """Every page opened once, each in a tab of its own of one Chromium (it starts slowly)."""
    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine")
    paths = reports(tmp_path_factory.mktemp("report"))
    seen = open_pages(CHROMIUM, list(paths.values()))
    return {kind: (path, visit) for (kind, path), visit in zip(paths.items(), seen, strict=True)}


@needs_chromium
@pytest.mark.parametrize("kind", ["judge", "calibrate"])
def test_the_report_loads_from_disk_with_no_error_no_request_and_something_to_see(
    kind: str, visits: dict[str, tuple[Path, PageVisit]]
) -> None:
    path, visit = visits[kind]
    assert visit.console_errors == []
    assert visit.exceptions == []
    assert visit.requests == [path.resolve().as_uri()]  # the file itself, nothing else
    assert visit.title == ("judge <weather>" if kind == "judge" else "calibrate weather")
    # pass rates and 4 distributions; a calibration adds 4 reliability diagrams and 4 threshold curves
    assert visit.svg_count >= (5 if kind == "judge" else 13)
    assert visit.text_length > 500
    assert visit.screenshot.startswith(b"\x89PNG")
    assert blank_share(visit.screenshot) < 0.97  # a white background, with charts and tables on it
    path.with_suffix(".png").write_bytes(visit.screenshot)


@needs_chromium
def test_a_page_that_asks_the_network_or_fails_is_caught(visits: dict[str, tuple[Path, PageVisit]]) -> None:
    """The checks above can fail: a page with a remote image and a script error is reported as such."""
    _, visit = visits["bad"]
    assert any(url.startswith("http://127.0.0.1:9/") for url in visit.requests)
    assert any("boom" in message for message in visit.console_errors)
    assert visit.exceptions
    assert blank_share(visit.screenshot) > 0.9
