"""Write `langchain_jev/guardrails/_unicode_ranges.py`, the readers' character tables, from unicodedata.

The tables (what a screen shows as nothing, what is no character of text) are built by
`langchain_jev.guardrails._characters.build_ranges` over all of Unicode, which takes about half a
second: written ahead of time, a reader's import costs nothing. The module records the Unicode
version of the Python that wrote it; under another version the readers build their own tables
(`_characters`), and ``tests/guardrails/test_characters.py`` checks the file is what this script writes.

Usage::

    python scripts/build_unicode_ranges.py          # write the module
    python scripts/build_unicode_ranges.py --check  # exit 1 when the module is not what it would write
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "langchain_jev" / "guardrails" / "_unicode_ranges.py"
WIDTH = 100


def _table(name: str, doc: str, ranges: tuple[tuple[int, int], ...]) -> list[str]:
    """``ranges`` as a string of hex ranges (``AD 600-605``), a line at a time.

    A string compiles in no time, where a tuple of 700 pairs took 10-20 ms to compile wherever no
    bytecode cache is written.
    """
    words = [f"{a:X}" if a == b else f"{a:X}-{b:X}" for a, b in ranges]
    lines, line = [], ""
    for word in words:
        if line and len(line) + len(word) + 1 > WIDTH:
            lines.append(line)
            line = ""
        line += f"{word} "
    lines.append(line)
    return [f"{name} = (", *(f'    "{line}"' for line in lines), ")", f'"""{doc}"""', ""]


def render() -> str:
    """The text of the module, built from this Python's unicodedata."""
    sys.path.insert(0, str(ROOT))
    from langchain_jev.guardrails._characters import build_ranges

    shown, not_text = build_ranges()
    version = unicodedata.unidata_version
    lines = [
        f'"""Character tables of Unicode {version}, written by scripts/build_unicode_ranges.py: do not edit.',
        "",
        "Read by `langchain_jev.guardrails._characters` when the running Python's unicodedata is of",
        "`UNICODE_VERSION` (under another version it builds its own): each table is its ranges of code",
        "points in hex, ``start-end`` or one code point alone, apart by spaces.",
        '"""',
        "",
        f'UNICODE_VERSION = "{unicodedata.unidata_version}"',
        '"""The version of the Unicode Character Database these tables were built from."""',
        "",
        "# fmt: off",
        *_table("SHOWN_AS_NOTHING", "Default-ignorable code points and format characters (Cf).", shown),
        *_table(
            "NOT_TEXT",
            "Controls (but tab, line breaks), surrogates, private use, unassigned code points.",
            not_text,
        ),
        "# fmt: on",
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    """Write the module, or with ``--check`` say whether it is what would be written."""
    text = render()
    if "--check" in argv:
        same = TARGET.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{TARGET} is not what this Python's unicodedata gives: run me")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} (Unicode {unicodedata.unidata_version})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
