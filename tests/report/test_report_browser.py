"""The HTML report opened in a real headless Chromium: it loads from disk with no console error,
makes no request off the file, and its screenshot is not blank."""

from __future__ import annotations

from pathlib import Path

import pytest

from langchain_jev.calibration import NoRequestModel, calibrate
from langchain_jev.report import write_report
from tests.calibration.helpers import WEATHER_SPEC, build, records_of, scripted
from tests.cli.helpers import expected_weather_verdicts, weather_rows
from tests.report.browser import blank_share, find_chromium, open_page

pytestmark = pytest.mark.slow  # a browser process

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on this machine (.ci/run installs Debian's chromium; "
    "locally: apt-get install -y chromium)",
)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return reports(tmp_path_factory.mktemp("report"))


def reports(folder: Path) -> dict[str, Path]:
    expected = expected_weather_verdicts()
    rows = [
        {**row, "human": expected[row["id"]], "details_ok": row["id"] != "why-rain"} for row in weather_rows()
    ]
    judge = build(WEATHER_SPEC, NoRequestModel())
    records = records_of(build(WEATHER_SPEC, scripted()))
    calibration = calibrate(
        build(WEATHER_SPEC, scripted()), rows, {"has_details": "details_ok"}, overall="human", repeat=2
    )
    suggestion = calibration.suggest(max_false_pass=0.0)
    paths = {"judge": folder / "judge.html", "calibrate": folder / "calibrate.html"}
    write_report(paths["judge"], judge, records, title="judge <weather>")
    write_report(
        paths["calibrate"],
        judge,
        [r.record for r in calibration.rows],
        title="calibrate weather",
        calibration=calibration,
        suggestion=suggestion,
    )
    return paths


@needs_chromium
@pytest.mark.parametrize("kind", ["judge", "calibrate"])
def test_the_report_loads_from_disk_with_no_error_no_request_and_something_to_see(
    kind: str, pages: dict[str, Path]
) -> None:
    path = pages[kind]
    visit = open_page(str(CHROMIUM), path)
    assert visit.console_errors == []
    assert visit.exceptions == []
    assert visit.requests == [path.resolve().as_uri()]  # the file itself, nothing else
    assert visit.title == ("judge <weather>" if kind == "judge" else "calibrate weather")
    assert visit.svg_count >= (
        5 if kind == "judge" else 13
    )  # pass rates, 4 distributions (+ 4 reliability, 4 curves)
    assert visit.text_length > 500
    assert visit.screenshot.startswith(b"\x89PNG")
    assert blank_share(visit.screenshot) < 0.97  # white background, but charts and tables on it
    path.with_suffix(".png").write_bytes(visit.screenshot)


@needs_chromium
def test_a_page_that_asks_the_network_is_caught(tmp_path: Path) -> None:
    """The check above can fail: a page with a remote image and a script error is reported."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><title>bad</title></head><body><p>bad</p>"
        '<img src="http://127.0.0.1:9/pixel.png"><script>console.error("boom"); undefined_call();</script>'
        "</body></html>",
        encoding="utf-8",
    )
    visit = open_page(str(CHROMIUM), page)
    assert any(url.startswith("http://127.0.0.1:9/") for url in visit.requests)
    assert any("boom" in message for message in visit.console_errors)
    assert visit.exceptions
    assert blank_share(visit.screenshot) > 0.9
