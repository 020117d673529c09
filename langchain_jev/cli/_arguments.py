"""The command line's argument plumbing: a command's parser, argparse ``type=`` readers, the exit codes' help.

`add_command` adds one command's parser, the command it runs kept on it (``args.run``), so
``main`` dispatches with no list of its own; `preflight` is the check every command writing
files makes before it reads a row (no output over an input, an HTML report that can be drawn).

Each reader turns one option's text into its value or raises
``argparse.ArgumentTypeError`` with a message naming what was wrong.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from langchain_jev._extras import install_hint
from langchain_jev.datasets._exit_codes import EXIT_CODES
from langchain_jev.datasets._paths import clash

__all__ = [
    "add_allow_code",
    "add_command",
    "add_concurrency_option",
    "add_fail_under_option",
    "add_format_option",
    "add_html_option",
    "add_json_option",
    "add_judge_option",
    "add_model_options",
    "add_out_option",
    "add_pacing_options",
    "add_quiet_option",
    "add_repeatable",
    "add_resume_option",
    "add_strict_option",
    "base_url",
    "exit_codes_epilog",
    "html_unavailable",
    "int_at_least",
    "invalid_judge_file",
    "non_negative_int",
    "positive_float",
    "positive_int",
    "preflight",
    "rate",
    "workers",
]


def rate(text: str) -> float:
    """``--fail-under``: a fraction (0 to 1), or a percentage (``80%``, or a number above 1: ``80``).

    A number from 0 to 1 is a fraction, so ``1`` is 100% and ``0.5`` is 50%; 1%
    is written ``1%`` (or ``0.01``).

    Example:
        >>> rate("80"), rate("0.8"), rate("80%"), rate("1"), rate("1%")
        (0.8, 0.8, 0.8, 1.0, 0.01)

    """
    stripped = text.strip()
    percent = stripped.endswith("%")
    try:
        number = float(stripped.rstrip("%").strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(number) or not 0 <= number <= 100:
        raise argparse.ArgumentTypeError(
            f"must be a fraction from 0 to 1 or a percentage from 0 to 100, got {text}"
        )
    return number / 100 if percent or number > 1 else number


def base_url(text: str) -> str:
    """``--base-url``: an http(s) URL with a host.

    Example:
        >>> base_url("http://localhost:8000")
        'http://localhost:8000'

    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a server address: give the scheme and the host, "
            "e.g. http://localhost:8000 or https://jev.example.com"
        )
    return text.strip()


def int_at_least(minimum: int, wording: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum`` (``wording`` says the bound)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {wording}, got {value}")
        return value

    return parse


positive_int = int_at_least(1, "at least 1")
non_negative_int = int_at_least(0, "0 or more")


def workers(text: str) -> int | None:
    """``--workers``: ``auto`` (None: chosen from the run) or a whole number of at least 1."""
    if text.strip().lower() == "auto":
        return None
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be 'auto' or a whole number of at least 1, got {text!r}"
        ) from None


def positive_float(text: str) -> float:
    """A finite number above 0 (``--timeout``, ``--rate-limit``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def exit_codes_epilog() -> str:
    """The help's list of exit codes and what each means (from `EXIT_CODES`)."""
    import textwrap

    lines = ["exit codes:"]
    for code, meaning in EXIT_CODES.items():
        lines.extend(textwrap.wrap(meaning, 78, initial_indent=f"  {code:<4}", subsequent_indent=" " * 6))
    return "\n".join(lines)


def add_command(
    commands: Any, name: str, run: Callable[..., int], *, with_parser: bool = False, **options: Any
) -> argparse.ArgumentParser:
    """Add the command ``name`` to the subparsers and return its parser; ``main`` calls ``run``.

    ``run`` takes the parsed arguments (and the whole parser when ``with_parser``, to print its
    usage). The help keeps its own line breaks and lists the exit codes, unless ``options``
    (what ``add_parser`` takes) say otherwise.
    """
    options.setdefault("epilog", exit_codes_epilog())
    options.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
    parser: argparse.ArgumentParser = commands.add_parser(name, **options)
    parser.set_defaults(run=run, with_parser=with_parser)
    return parser


def preflight(inputs: list[Any], outputs: list[Any], html: str | None) -> str | None:
    """What stops a command before it reads a row: an output over an input, or HTML it cannot draw."""
    return clash(inputs, outputs) or html_unavailable(html)


def add_judge_option(
    parser: Any, help: str = "the judge file (YAML or JSON), or a prebuilt judge's name"
) -> None:
    """Add the required ``--judge SPEC`` (``help`` says what it may name) to ``parser``."""
    parser.add_argument("--judge", required=True, metavar="SPEC", help=help)


def add_format_option(parser: Any) -> None:
    """Add ``--format`` (DATA's format, by its extension when not given) to ``parser``."""
    parser.add_argument(
        "--format", choices=("jsonl", "json", "csv"), help="DATA's format (default: by extension)"
    )


def invalid_judge_file(error: Any) -> str:
    """What a command says of a judge file it refuses (a ``JudgeSpecError``): each problem on a line."""
    return "the judge file is invalid:\n  " + "\n  ".join(error.messages())


def add_model_options(parser: argparse.ArgumentParser) -> Any:
    """Add the decision model's options to ``parser`` as a group; return the group.

    ``--model``, ``--base-url``, ``--timeout``, ``--max-retries`` and ``--cache``, read by
    `langchain_jev.datasets._options.model_settings` (with ``--concurrency``).
    """
    model = parser.add_argument_group("decision model")
    model.add_argument(
        "--model",
        metavar="MODEL",
        help="a Jev model name (default: TYPESAFE_DEFAULT_MODEL or jev-latest), or provider:model "
        "for a chat model (e.g. openai:gpt-4o-mini; needs langchain-jev[chat] and the provider's package), "
        "or openai-decisions:NAME for the OpenAI Decisions API (needs langchain-openai, OPENAI_API_KEY)",
    )
    model.add_argument(
        "--base-url",
        type=base_url,
        metavar="URL",
        help="a Jev-compatible server, http(s)://host[:port] (default: TYPESAFE_BASE_URL)",
    )
    model.add_argument("--timeout", type=positive_float, metavar="SECONDS", help="per HTTP operation")
    model.add_argument("--max-retries", type=non_negative_int, metavar="N", help="retries per request")
    model.add_argument("--cache", metavar="PATH", help="answer repeated requests from this SQLite file")
    return model


def add_concurrency_option(group: Any, what: str = "rows judged at once", default: int = 8) -> None:
    """Add ``--concurrency N`` (``what``, ``default`` when not given) to an argument group."""
    group.add_argument(
        "--concurrency", type=positive_int, default=default, metavar="N", help=f"{what} ({default})"
    )


def add_pacing_options(group: Any, what: str = "rows judged at once") -> None:
    """Add ``--concurrency`` (``what``, 8 by default) and ``--rate-limit`` to an argument group."""
    add_concurrency_option(group, what)
    group.add_argument(
        "--rate-limit", type=positive_float, metavar="PER_SECOND", help="requests per second at most"
    )


_ROWS_OUT = "write one JSON line per row here ('-': stdout)"
"""``--out``'s help where it is the results file of rows judged (judge, rejudge, calibrate)."""

_FAIL_UNDER = (
    "exit 1 when the overall pass rate is under RATE: a fraction from 0 to 1 or a "
    "percentage (80 and 0.8 both mean 80%%; 1 means 100%%, write 1%% for one percent)"
)
"""``--fail-under``'s help where the command judges rows (judge, calibrate)."""


def add_out_option(group: Any, help: str = _ROWS_OUT) -> None:
    """Add ``--out PATH`` (``help`` says what is written there) to a parser or argument group."""
    group.add_argument("--out", metavar="PATH", help=help)


def add_resume_option(group: Any, help: str = "keep the rows already in --out, judge the rest") -> None:
    """Add the ``--resume`` flag (``help`` says what it keeps) to a parser or argument group."""
    group.add_argument("--resume", action="store_true", help=help)


def add_fail_under_option(group: Any, help: str = _FAIL_UNDER) -> None:
    """Add ``--fail-under RATE`` (read by `rate`) to a parser or argument group."""
    group.add_argument("--fail-under", type=rate, metavar="RATE", help=help)


def add_strict_option(group: Any) -> None:
    """Add the ``--strict`` flag (stop at the first bad row) to a parser or argument group."""
    group.add_argument("--strict", action="store_true", help="stop at the first bad row")


def add_quiet_option(group: Any, help: str = "no progress display") -> None:
    """Add the ``--quiet`` flag (no progress display) to a parser or argument group."""
    group.add_argument("--quiet", action="store_true", help=help)


def add_html_option(
    group: Any, help: str = "write a self-contained HTML report here", metavar: str = "REPORT"
) -> None:
    """Add ``--html REPORT`` (``help`` says what is drawn there) to a parser or argument group."""
    group.add_argument("--html", metavar=metavar, help=help)


def add_json_option(group: Any, help: str = "write every figure here as JSON", metavar: str = "OUT") -> None:
    """Add ``--json OUT`` (every figure, as JSON) to a parser or argument group."""
    group.add_argument("--json", metavar=metavar, help=help)


def add_repeatable(group: Any, flag: str, metavar: str, help: str) -> None:
    """Add ``flag``, an option given again and again: its values a list ([] when never given)."""
    group.add_argument(flag, metavar=metavar, action="append", default=[], help=help)


def add_allow_code(parser: Any, what: str) -> None:
    """Add ``--allow-code [MODULE]`` (read by `langchain_jev.datasets._options.allow_code`); ``what`` runs."""
    parser.add_argument(
        "--allow-code",
        metavar="MODULE",
        nargs="?",
        const="",
        action="append",
        help=f"{what}: alone, any module; with MODULE, only that module and those below it (repeatable)",
    )


def html_unavailable(html: str | None) -> str | None:
    """Why ``--html`` cannot be drawn here (the ``report`` extra is missing), or None.

    Commands ask before any row is judged, so a run never spends its requests on a
    report it cannot write.
    """
    if not html:
        return None
    try:
        import matplotlib  # noqa: F401  (the report's charts need it)
    except ImportError:
        return (
            f"--html needs matplotlib, which is not installed: {install_hint('report')}; nothing was "
            "judged. Once it is installed, `langchain-jev rejudge RESULTS.jsonl --judge SPEC --html "
            "REPORT.html` draws the report of a results file again, asking the model nothing"
        )
    return None
