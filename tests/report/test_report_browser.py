"""The HTML report opened in a real headless Chromium: it loads from disk with no console error,
makes no request off the file, and its screenshot is not blank; a person can open a row, filter,
search and sort; the one script its policy allows is the only one that runs (payloads in the data
never do)."""

from __future__ import annotations

from pathlib import Path

import pytest

from langchain_jev import JevJudge
from langchain_jev.calibration import NoRequestModel, calibrate
from langchain_jev.compare import AnswerPair, HeadToHead, HeadToHeadRow, RowPair, compare_results
from langchain_jev.datasets._rows import FieldMap, map_row
from langchain_jev.pairwise import PairwiseFinding, PairwiseVerdict, Preference
from langchain_jev.report import write_report
from langchain_jev.report._compare_page import write_comparison
from langchain_jev.report._head_to_head_page import write_head_to_head_page
from tests.calibration.helpers import WEATHER_SPEC, build, records_of, scripted, spec_with
from tests.calibration.jury_helpers import DOWN_ON, HELPFUL, POLITE, jury_judge, labelled_rows
from tests.cli.helpers import expected_weather_verdicts, weather_rows
from tests.report.browser import PageVisit, blank_share, find_chromium, open_pages
from tests.report.test_page import PAYLOADS, judge_named, record

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


def visible_ids() -> str:
    """A probe: the ids of the rows the viewer shows now, in the order shown."""
    return (
        "[...document.querySelectorAll('#rows-body tr.row')].filter(t => !t.hidden)"
        ".map(t => t.children[1].textContent)"
    )


def choose(criterion: int, outcome: str, text: str = "", order: str = "row") -> str:
    """A probe: set the viewer's controls as a person would, then list the rows shown."""
    return (
        "(() => { const set = (id, v, e) => { const c = document.getElementById(id); c.value = v; "
        "c.dispatchEvent(new Event(e)); };"
        f" set('f-criterion', '{criterion}', 'change'); set('f-outcome', '{outcome}', 'change');"
        f" set('f-sort', '{order}', 'change'); set('f-search', {text!r}, 'input');"
        f" return JSON.stringify({visible_ids()}); }})()"
    )


def open_row(row_id: str) -> str:
    """A probe: click the row's open button; what its detail shows."""
    return (
        "(() => { const tr = [...document.querySelectorAll('#rows-body tr.row')]"
        f".find(t => t.children[1].textContent === {row_id!r}); tr.querySelector('button.open').click();"
        " const d = tr.nextElementSibling; return JSON.stringify({hidden: d.hidden, text: d.innerText,"
        " expanded: tr.querySelector('button').getAttribute('aria-expanded')}); })()"
    )


PWNED = "JSON.stringify([window.__pwned === undefined, document.scripts.length])"
OPEN_ALL = (
    "(() => { document.querySelectorAll('#rows-body button.open').forEach(b => b.click());"
    " return JSON.stringify(document.getElementById('rows-body').innerText); })()"
)


def states_of(rows: list[dict]) -> dict[int, dict]:
    required = build(WEATHER_SPEC, NoRequestModel())
    del required
    return {
        number: map_row(row, FieldMap(), ()).input.to_state()  # type: ignore[union-attr]
        for number, row in enumerate(rows, 1)
    }


def head_to_head() -> HeadToHead:
    """Three rows compared on two criteria (one named with a payload), answers carrying payloads."""
    names = ["helpful", PAYLOADS[0]]
    B, A = Preference.B, Preference.A

    def row(n: int, answers: tuple[str, str], findings: tuple[PairwiseFinding, ...] | None) -> HeadToHeadRow:
        record = {"row": n, "key": f"k{n}", "id": f"q{n}"}
        pair = AnswerPair(RowPair(f"k{n}#1", record, record), {"user_question": f"Rain in town {n}?"}, answers)
        if findings is None:
            return HeadToHeadRow(pair, None, "TypeSafeAPIConnectionError: refused")
        return HeadToHeadRow(pair, PairwiseVerdict(findings, None))

    jury = {"jev": B, "gpt": B, PAYLOADS[3]: A}  # who said what, a member named with a payload
    won = [PairwiseFinding(name, B, (B, B), {"A": 0.1, "B": 0.85, "TIE": 0.05}, f"{name}: B is better", None, jury)
           for name in names]
    biased = [PairwiseFinding(name, Preference.INCONCLUSIVE, (A, B), None, f"{name}: position bias")
              for name in names]
    return HeadToHead(("A", "B"), names, [
        row(1, (PAYLOADS[1], "Rain from 9am, 8 mm."), tuple(won)),
        row(2, ("Maybe.", PAYLOADS[2]), tuple(biased)),
        row(3, ("x", "y"), None),
    ])


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
    write_report(
        paths["judge"], judge, records[::-1], title="judge <weather>", states=states_of(weather_rows())
    )
    write_report(
        paths["calibrate"],
        judge,
        [r.record for r in calibration.rows],
        title="calibrate weather",
        calibration=calibration,
        suggestion=calibration.suggest(max_false_pass=0.0),
    )
    paths["bad"].write_text(BAD_PAGE, encoding="utf-8")
    names = [f"c{i} {payload}" for i, payload in enumerate(PAYLOADS)]
    hostile = []
    for row, payload in enumerate(PAYLOADS, 1):
        item = record(row, 0.2, names[row - 1], id=f"p{row}", feedback=payload, error=None)
        del item["error"]
        item["findings"][0]["detail"] = payload
        hostile.append(item)
    paths["payloads"] = folder / "payloads.html"
    write_report(
        paths["payloads"],
        judge_named(*names),
        hostile,
        title=PAYLOADS[0],
        states={n: {"assistant_answer": p, p: p} for n, p in enumerate(PAYLOADS, 1)},
    )
    # the example judge (A) against a stricter one (B): rows that passed fail now
    strict = spec_with(criteria={"has_details": {"minimum": 0.95}})
    before, after = records_of(build(WEATHER_SPEC, scripted())), records_of(build(strict, scripted()))
    paths["compare"] = folder / "compare.html"
    write_comparison(
        paths["compare"],
        compare_results(before, after[::-1]),
        build(strict, NoRequestModel()),
        states=(states_of(weather_rows()), states_of(weather_rows())),
    )
    # a jury's calibration: the members beside the jury, and who said what in an opened row
    jury = calibrate(jury_judge(), labelled_rows(), "ok")
    paths["jury"] = folder / "jury.html"
    write_report(
        paths["jury"],
        JevJudge([POLITE, HELPFUL], NoRequestModel()),
        [r.record for r in jury.rows],
        title="jury",
        calibration=jury,
    )
    # two runs' answers head to head: row 1 B better, row 2 undecided (position bias), row 3 not compared
    paths["pairwise"] = folder / "pairwise.html"
    write_head_to_head_page(paths["pairwise"], head_to_head(), title="head to head <weather>", judged_by="judge.yaml")
    # the judge's page with one more inline script that the policy does not name
    page = paths["judge"].read_text(encoding="utf-8")
    paths["injected"] = folder / "injected.html"
    paths["injected"].write_text(
        page.replace("</body>", "<script>window.__pwned = 'injected';</script></body>"), encoding="utf-8"
    )
    return paths


PROBES: dict[str, list[str]] = {
    "judge": [
        open_row("tokyo-ungrounded"),
        choose(1, "failing"),
        choose(-1, "failing"),
        choose(-1, "any", "oslo"),
        choose(-1, "any", "", "closeness"),
        "(() => { document.querySelector('a[data-criterion=\"1\"]').click(); return JSON.stringify("
        "[document.getElementById('f-criterion').value, document.getElementById('f-outcome').value, "
        + visible_ids()
        + "]); })()",
        "JSON.stringify(document.getElementById('f-count').textContent)",
        PWNED,
    ],
    "calibrate": [
        "(() => { const a = document.querySelector('#disagreement-table a[data-row]'); a.click();"
        " const tr = document.getElementById('row-' + a.dataset.row);"
        " return JSON.stringify([tr.classList.contains('opened'), !tr.nextElementSibling.hidden,"
        " a.textContent, tr.children[0].textContent]); })()",
    ],
    "payloads": [OPEN_ALL, PWNED],
    "compare": [
        "JSON.stringify([...document.querySelectorAll('#rows-body tr.row')].map(t => "
        "[t.children[1].textContent, t.classList.contains('regression'), t.children[2].textContent]))",
        open_row("dublin-umbrella"),
        "JSON.stringify([...document.querySelectorAll('#rows-body tr.opened + tr.detail .side')].map(s => "
        "[s.querySelector('h4').textContent, s.querySelectorAll('tr.changed').length]))",
        "JSON.stringify([...document.querySelectorAll('#compare-table tr')].map(t => t.innerText))",
        PWNED,
    ],
    "injected": [PWNED, "JSON.stringify(document.body.dataset.viewer)"],
    "pairwise": [
        "JSON.stringify([...document.querySelectorAll('#rows-body tr.row')].map(t => t.innerText))",
        open_row("q1"),
        "JSON.stringify([...document.querySelectorAll('tr.opened + tr.detail .side.answer')].map(s => s.innerText))",
        "JSON.stringify([...document.querySelectorAll('tr.opened + tr.detail table.findings tr')].map(t => t.innerText))",
        choose(-1, "INCONCLUSIVE"),
        choose(1, "B"),
        choose(-1, "ERROR"),
        "JSON.stringify([...document.querySelectorAll('#pairwise-table tr')].map(t => t.innerText))",
        OPEN_ALL,
        PWNED,
    ],
    "jury": [
        open_row(f"r{DOWN_ON}"),
        "JSON.stringify([...document.querySelectorAll('tr.opened + tr.detail table.jury tr')].map(t => t.innerText))",
        "JSON.stringify([...document.querySelectorAll('#members-table tr')].map(t => t.innerText))",
    ],
}


@pytest.fixture(scope="module")
def visits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, PageVisit]]:
    """Every page opened once, each in a tab of its own of one Chromium (it starts slowly)."""
    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine")
    paths = reports(tmp_path_factory.mktemp("report"))
    seen = open_pages(CHROMIUM, list(paths.values()), probes={paths[k]: v for k, v in PROBES.items()})
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


@needs_chromium
def test_a_row_opens_to_its_judged_state_and_its_findings(visits: dict[str, tuple[Path, PageVisit]]) -> None:
    opened = visits["judge"][1].probes[0]
    assert opened["hidden"] is False and opened["expanded"] == "true"
    text = opened["text"]
    for shown in (
        "Heavy snow",  # its answer, from the judged state
        "user_question",
        "supporting_context",
        "is_grounded",
        "FAILED",
        "0.100",  # is_grounded's probability of yes
        "probability of yes >= 0.7",  # its threshold
        "tool_calls",
    ):
        assert shown in text, shown


@needs_chromium
def test_filters_search_sort_and_criterion_links_show_the_rows_they_should(
    visits: dict[str, tuple[Path, PageVisit]],
) -> None:
    probes = visits["judge"][1].probes
    expected = expected_weather_verdicts()
    in_order = [row["id"] for row in weather_rows()]
    assert probes[1] == ["tokyo-ungrounded"]  # is_grounded fails this row alone
    assert probes[2] == [i for i in in_order if not expected[i]]  # every failing row, in row order
    assert probes[3] == ["oslo-no-search"]
    assert sorted(probes[4]) == sorted(in_order) and probes[4] != in_order  # all rows, nearest first
    assert probes[5] == ["1", "failing", ["tokyo-ungrounded"]]  # the criterion's name opened its failures
    assert probes[6] == f"1 of {len(in_order)} rows shown"


@needs_chromium
def test_a_disagreement_opens_its_row(visits: dict[str, tuple[Path, PageVisit]]) -> None:
    opened, shown, link, row = visits["calibrate"][1].probes[0]
    assert opened and shown and link == row


@needs_chromium
def test_payloads_in_the_data_never_run_and_are_shown_as_written(
    visits: dict[str, tuple[Path, PageVisit]],
) -> None:
    path, visit = visits["payloads"]
    text, (untouched, scripts) = visit.probes
    assert untouched and scripts == 2  # the island and the viewer: no payload made a script
    assert visit.console_errors == [] and visit.exceptions == []
    assert visit.requests == [path.resolve().as_uri()]  # an <img src=x> would have asked for x
    for payload in PAYLOADS:
        assert payload.replace("\u2028", "\n").replace("\u2029", "\n").split("\n")[-1] in text, payload


@needs_chromium
def test_a_script_the_policy_does_not_name_does_not_run(visits: dict[str, tuple[Path, PageVisit]]) -> None:
    """The check above can fail: an inline script added to a page is refused, and the refusal is seen."""
    _, visit = visits["injected"]
    (untouched, _), ready = visit.probes
    assert untouched and ready == "ready"  # the viewer ran; the added script did not
    assert any("Content Security Policy" in message for message in visit.console_errors)


@needs_chromium
def test_compare_highlights_the_flipped_rows_and_opens_both_runs_side_by_side(
    visits: dict[str, tuple[Path, PageVisit]],
) -> None:
    path, visit = visits["compare"]
    assert visit.console_errors == [] and visit.exceptions == []
    assert visit.requests == [path.resolve().as_uri()]
    rows, opened, sides, table, (untouched, _) = visit.probes
    # has_details needs 0.95 now: the rows that passed at 0.90 regress, each marked
    # (verdict flips first, in row order, then rows that failed already and whose has_details regressed)
    held = "regression (a criterion; the verdict held)"
    assert rows == [
        ["dublin-umbrella", True, "regression"],
        ["paris-sun", True, "regression"],
        ["why-rain", True, "regression"],
        ["tokyo-ungrounded", True, held],
        ["needless-search", True, held],
    ]
    assert (
        opened["hidden"] is False
        and "0.900" in opened["text"]
        and "probability of yes >= 0.95" in opened["text"]
    )
    assert sides == [["A", 1], ["B", 1]]  # both runs, the flipped finding marked on each
    assert any(line.startswith("has_details") and "more than noise" not in line for line in table)
    assert untouched


@needs_chromium
def test_an_opened_row_of_a_jury_shows_who_said_what_and_the_members_stand_beside_the_jury(
    visits: dict[str, tuple[Path, PageVisit]],
) -> None:
    path, visit = visits["jury"]
    assert visit.console_errors == [] and visit.exceptions == []
    assert visit.requests == [path.resolve().as_uri()]
    opened, said, members = visit.probes
    assert opened["hidden"] is False and "the jury (mean): who said what" in opened["text"]
    assert said[0].split("\t") == ["criterion", "member", "answer", "pass probability"]
    assert said[1].split("\t") == ["polite", "sharp", "yes 0.900", "0.900"]
    assert said[2].split("\t")[1:] == ["lenient", "yes 0.800", "0.800"]
    assert said[-1].split("\t")[1:3] == ["flaky", "failed: ConnectionError: flaky is down"]
    assert [line.split("\t")[:3] for line in members[1:5]] == [
        ["polite", "jury", "12"], ["", "sharp", "12"], ["", "lenient", "12"], ["", "flaky", "11"]
    ]


@needs_chromium
def test_answers_head_to_head_open_side_by_side_and_filter_by_preference(
    visits: dict[str, tuple[Path, PageVisit]],
) -> None:
    path, visit = visits["pairwise"]
    assert visit.console_errors == [] and visit.exceptions == []
    assert visit.requests == [path.resolve().as_uri()]
    rows, opened, answers, findings, undecided, b_better, errors, table, everything, untouched = visit.probes
    assert [line.split("\t")[:3] for line in rows] == [
        ["1", "q1", "B better"], ["2", "q2", "undecided"], ["3", "q3", "not compared"]
    ]
    assert opened["hidden"] is False and "what both answer" in opened["text"] and "Rain in town 1?" in opened["text"]
    assert [a.split("\n", 1)[0] for a in answers] == ["A's answer", "B's answer"]
    assert [a.split("\n", 1)[1].strip() for a in answers] == [PAYLOADS[1], "Rain from 9am, 8 mm."]  # as written
    assert findings[0].split("\t") == ["criterion", "preference", "A shown first", "B shown first", "probabilities",
                                        "detail"]
    assert findings[1].split("\t")[:4] == ["helpful", "B better", "B better", "B better"]
    assert "B better: 0.850" in findings[1]
    assert f"the jury: jev B better, gpt B better, {PAYLOADS[3]} A better" in findings[1]  # who said what
    assert undecided == ["q2"] and b_better == ["q1"] and errors == ["q3"]
    assert table[1].split("\t")[:7] == ["helpful", "0", "1", "0", "1", "1", "1"]
    assert PAYLOADS[2] in everything and "TypeSafeAPIConnectionError: refused" in everything
    assert untouched == [True, 2]
