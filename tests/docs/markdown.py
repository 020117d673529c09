"""Reading the documentation: every markdown file's fenced blocks, the section each is in, and its output.

The files are the README and every page under ``docs/``. A ``text`` block right
after another block (only blank lines between) is that block's output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_FENCE = re.compile(r"^```(\S*)\s*$")


def doc_files() -> list[str]:
    """The documentation's markdown files, as paths from the repository root: the README, then the pages."""
    pages = sorted(path.relative_to(ROOT).as_posix() for path in DOCS.rglob("*.md"))
    return ["README.md", *pages]


@dataclass(frozen=True)
class Block:
    """One fenced block of a markdown file."""

    lang: str
    """The fence's language (``python``, ``bash``, ``text``...)."""
    code: str
    """The block's text."""
    line: int
    """The file's line of the block's first line of code (from 1)."""
    section: str
    """The heading the block is under."""
    output: str | None = None
    """The ``text`` block right after it (only blank lines between): what it prints."""
    source: str = "README.md"
    """The file, from the repository root."""

    @property
    def name(self) -> str:
        """A test id: the file, the section and the line."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.section.lower()).strip("-")
        page = re.sub(r"[^a-z0-9]+", "-", self.source.lower().removesuffix(".md")).strip("-")
        return f"{page}-{slug}-line{self.line}"

    @property
    def where(self) -> str:
        """``file:line``, for messages."""
        return f"{self.source}:{self.line}"

    @property
    def file_name(self) -> str | None:
        """The file a block stands for, when its first line is a comment naming it (``# test_x.py``)."""
        first = self.code.splitlines()[0] if self.code else ""
        match = re.fullmatch(r"#\s*(\S+\.py)\s*", first)
        return match.group(1) if match else None


def blocks(text: str, source: str = "README.md") -> list[Block]:
    """Every fenced block but the output blocks, which are attached to the block before them."""
    lines = text.splitlines()
    found: list[Block] = []
    section = ""
    index = 0
    last_end: int | None = None  # index of the closing fence of the last block
    while index < len(lines):
        heading = _HEADING.match(lines[index])
        fence = _FENCE.match(lines[index])
        if heading:
            section = heading.group(2)
        if not fence:
            index += 1
            continue
        lang = fence.group(1)
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        if end == len(lines):
            raise ValueError(f"{source}:{index + 1}: the fenced block is not closed")
        code = "\n".join(lines[index + 1 : end]) + "\n"
        follows = last_end is not None and all(not line.strip() for line in lines[last_end + 1 : index])
        if lang == "text" and follows and found and found[-1].output is None:
            previous = found[-1]
            found[-1] = Block(previous.lang, previous.code, previous.line, previous.section, code, source)
        else:
            found.append(Block(lang, code, index + 2, section, source=source))
        last_end = end
        index = end + 1
    return found


def file_blocks(source: str) -> list[Block]:
    """The blocks of one documentation file (a path from the repository root)."""
    return blocks((ROOT / source).read_text(encoding="utf-8"), source)


def readme_blocks() -> list[Block]:
    """The README's blocks."""
    return file_blocks("README.md")


def paragraphs(text: str) -> list[tuple[int, str]]:
    """The prose of a markdown file, code blocks left out: each paragraph, list item and table row.

    Each comes with the file's line it starts on (from 1) and its words joined by single spaces.
    """
    found: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    in_fence = False

    def flush() -> None:
        words = " ".join(" ".join(current).split()).strip("|-* ")
        if words:
            found.append((start, words))
        current.clear()

    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not line.strip() or line.lstrip().startswith(("#", "<!--", ":::")):
            flush()
            continue
        if re.match(r"^\s*(?:[-*]|\d+\.)\s+", line) or line.startswith("|"):
            flush()  # a list item or a table row starts a paragraph of its own
        if not current:
            start = number
        current.append(line)
    flush()
    return found


def code_lines(text: str) -> list[tuple[int, str]]:
    """Every line inside a fenced block (outputs too), with the file's line number (from 1)."""
    found: list[tuple[int, str]] = []
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_fence = not in_fence
        elif in_fence:
            found.append((number, line))
    return found


def matches(expected: str, actual: str) -> bool:
    """Whether printed text matches the shown output; ``...`` in a line stands for any text.

    Trailing spaces and trailing blank lines are ignored.
    """

    def lines(text: str) -> list[str]:
        out = [line.rstrip() for line in text.splitlines()]
        while out and not out[-1]:
            out.pop()
        return out

    want, got = lines(expected), lines(actual)
    if len(want) != len(got):
        return False
    for pattern, line in zip(want, got, strict=True):
        regex = ".*".join(re.escape(part) for part in pattern.split("..."))
        if not re.fullmatch(regex, line):
            return False
    return True
