"""Options several commands take are declared once, in `langchain_jev.cli._arguments`.

Invariant: a flag in `SHARED` is added by no command module itself (only through its
``add_*_option`` helper), so two commands cannot drift apart in its type, metavar, default
or action; and wherever two commands give a flag the same help, every other attribute of
the two declarations is the same too.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from langchain_jev.cli import _arguments
from langchain_jev.cli._app import _parser

SHARED = ("--out", "--resume", "--strict", "--quiet", "--html", "--json", "--fail-under", "--concurrency")
CLI = Path(_arguments.__file__).parent


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = _parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(subparsers.choices)


def _shape(action: argparse.Action) -> tuple[object, ...]:
    return (type(action), action.type, action.default, action.metavar, action.choices, action.nargs)


def test_shared_flags_are_declared_only_by_their_helpers() -> None:
    for module in sorted(CLI.glob("*.py")):
        if module.name == "_arguments.py":
            continue
        text = module.read_text(encoding="utf-8")
        for flag in SHARED:
            assert not re.search(rf"add_argument\(\s*\"{flag}\"", text), (module.name, flag)


def test_a_flag_with_the_same_help_is_the_same_declaration() -> None:
    seen: dict[tuple[str, str | None], tuple[str, tuple[object, ...]]] = {}
    for name, command in _commands().items():
        for action in command._actions:
            for flag in action.option_strings:
                key = (flag, action.help)
                first = seen.setdefault(key, (name, _shape(action)))
                assert first[1] == _shape(action), (flag, first[0], name)


@given(help=st.text(alphabet=st.characters(blacklist_characters="%"), min_size=1, max_size=40))
def test_the_helpers_keep_everything_but_the_help(help: str) -> None:
    for add, flag in (
        (_arguments.add_out_option, "--out"),
        (_arguments.add_resume_option, "--resume"),
        (_arguments.add_quiet_option, "--quiet"),
        (_arguments.add_html_option, "--html"),
        (_arguments.add_json_option, "--json"),
        (_arguments.add_fail_under_option, "--fail-under"),
    ):
        default, given_help = argparse.ArgumentParser(), argparse.ArgumentParser()
        add(default)
        add(given_help, help)
        (one,) = [a for a in default._actions if flag in a.option_strings]
        (two,) = [a for a in given_help._actions if flag in a.option_strings]
        assert two.help == help
        assert _shape(one) == _shape(two)


@given(
    what=st.text(alphabet=st.characters(blacklist_characters="%"), max_size=20), default=st.integers(1, 64)
)
def test_concurrency_says_its_default(what: str, default: int) -> None:
    parser = argparse.ArgumentParser()
    _arguments.add_concurrency_option(parser, what, default)
    assert parser.parse_args([]).concurrency == default
    assert parser.parse_args(["--concurrency", "3"]).concurrency == 3
    (action,) = [a for a in parser._actions if "--concurrency" in a.option_strings]
    assert action.help == f"{what} ({default})"


def test_repeatable_options_collect_a_list() -> None:
    parser = argparse.ArgumentParser()
    _arguments.add_repeatable(parser, "--map", "VAR=FIELD", "repeatable")
    assert parser.parse_args([]).map == []
    assert parser.parse_args(["--map", "a=b", "--map", "c=d"]).map == ["a=b", "c=d"]
