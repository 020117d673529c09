"""Bytes read as text: in which encodings a reader may read them, and the text runs inside binary.

Pure functions, no I/O, for `langchain_jev.guardrails._text` and `_media`:

- `as_text`: decoded bytes as text when, in UTF-8 (with stray bytes cut from its
  edges), what a byte order mark says, UTF-16/32 or a single-byte code page, they
  read as text; otherwise the runs of text inside them (words between NULs or any
  binary padding), so padding never hides words;
- `printable`: whether a decoding reads as text (invisible format characters count);
- `INVISIBLE`, `ASCII_WORD`: the invisible characters, and a word of ASCII letters.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Iterator

__all__ = ["ASCII_WORD", "INVISIBLE", "as_text", "printable"]

INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0001\U000e007f\U000e0100-\U000e01ef]"
)
"""Zero-width, joiner, bidi control, filler, invisible operator, BOM and variation-selector characters."""


def printable(text: str) -> bool:
    """True for text a reader could read: mostly characters of text, not empty, with a letter or digit.

    A character of text is any but a control (other than tab and line breaks), a surrogate, a
    private-use or an unassigned code point: spaces of every width and invisible format
    characters (zero-width, bidi controls, tags) count, as they are how text hides inside text.
    """
    if not text.strip():
        return False
    textual = sum(1 for c in text if c in "\n\r\t" or unicodedata.category(c) not in _NOT_TEXT_CATEGORIES)
    return textual >= 0.9 * len(text) and any(c.isalnum() for c in text)


_NOT_TEXT_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn"})


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
"""Byte order marks, longest first, with the encoding each declares."""


ASCII_WORD = re.compile(r"(?<![A-Za-z\x80-\uffff])[A-Za-z]{3,}(?![A-Za-z\x80-\uffff])")
"""A word of three or more ASCII letters between ASCII signs, spaces or the ends: prose, not noise."""


def _western(data: bytes) -> bool:
    """True when ``data`` may be text in a Western code page: mostly ASCII, or with a word in it."""
    ascii_text = sum(1 for byte in data if 0x20 <= byte < 0x7F or byte in b"\t\n\r")
    return 5 * ascii_text >= 4 * len(data) or ASCII_WORD.search(data.decode("latin-1")) is not None


def _decodings(data: bytes, *, declared: bool = False) -> Iterator[str]:
    """``data`` read as each encoding a reader may read it as.

    UTF-8, what a byte order mark declares, UTF-16 or UTF-32 when it is spaced
    with NULs, and a single-byte code page (Windows-1252, which reads any bytes)
    when the bytes were ``declared`` a payload or may be Western text (`_western`):
    a guess at a short run in prose must not read every identifier as text.
    """
    yield from _utf8(data)
    for mark, codec in _BOMS:
        if data.startswith(mark):
            yield data[len(mark) :].decode(codec, errors="replace")
            break
    if 3 * data.count(0) >= len(data):  # ASCII text in UTF-16 or UTF-32, without a mark
        little = data[1::2].count(0) >= data[0::2].count(0)  # "a\0": the low byte first
        for width in ("16", "32"):
            for order in ("le", "be") if little else ("be", "le"):
                yield data.decode(f"utf-{width}-{order}", errors="replace")
    if declared or _western(data):
        yield data.decode("cp1252", errors="replace")  # Latin-1 or Windows text, however accented


_WITHIN_AT_LEAST = 12
"""The fewest bytes left after a cut for `_utf8_within` to read them: shorter noise, cut to fit, reads as
UTF-8 too often (twelve random bytes read as printable UTF-8 about once in ten thousand cuts)."""


def _utf8_within(data: bytes) -> Iterator[str]:
    """``data`` as UTF-8 with up to three stray bytes cut from either end, when that reads.

    A run's edge may take in a byte of what stands beside it (a hex digit pair or base64
    group of the next word, a window's edge); the text inside is still UTF-8. The cut bytes
    stay in the raw string, which is judged as it is.
    """
    for head in range(4):
        for tail in range(4):
            if head + tail and len(data) - head - tail >= _WITHIN_AT_LEAST:
                with contextlib.suppress(UnicodeDecodeError):
                    yield data[head : len(data) - tail].decode("utf-8")
                    return


def as_text(data: bytes, *, declared: bool = False, within: bool = True, guess: bool = True) -> str | None:
    """``data`` as text when, in some encoding a reader may read it as (`_decodings`), it reads as text.

    Bytes that are not text as a whole may still carry it (words between NULs or any binary
    padding): unless ``within`` is False (a media file, which a model sees, not reads), what
    they spell is read as the text runs in them (`_text_runs`), so padding never hides words.
    With ``guess`` False the bytes are read as UTF-8 only (whole, or with stray edge bytes
    cut): for a run that is some other encoding's by its shape, whose bytes as base64 are
    noise that a code page or a word among noise would read as text at any length.
    """
    if not data:
        return None
    decodings = _decodings(data, declared=declared) if guess else _utf8(data)
    read = next((text for text in decodings if printable(text)), None)
    return read if read is not None or not within or not guess else _text_runs(data)


def _utf8(data: bytes) -> Iterator[str]:
    with contextlib.suppress(UnicodeDecodeError):
        yield data.decode("utf-8")
    yield from _utf8_within(data)


_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]+")
"""Control characters and undecodable bytes: what separates the text runs of binary data."""
_LETTERS = re.compile(r"[^\W\d_]{5,}")
"""Five letters of any script in a row: a run that spells a word, not noise (three when ASCII)."""


def _spells(run: str) -> bool:
    """A run of text in binary data: four characters with a word, or eight mostly ASCII letters and digits.

    The eight are an encoding's run (hex or base64, say), read again in turn.
    """
    shown = unicodedata.normalize("NFKC", INVISIBLE.sub("", run))  # marks composed onto their letters
    worded = len(run) >= 4 and (ASCII_WORD.search(shown) is not None or _LETTERS.search(shown) is not None)
    encoded = len(run) >= 8 and sum(c.isascii() and c.isalnum() for c in run) >= 0.8 * len(run)
    return worded or encoded


def _invisible_mark(c: str) -> bool:
    return unicodedata.category(c) == "Cf"


def _text_runs(data: bytes) -> str | None:
    """The runs of text in binary ``data`` (`_spells`), joined by spaces.

    Read as UTF-8 and, when NULs space it, as UTF-16; the reading with the most text is kept.
    """
    codecs = ["utf-8"] + (["utf-16-le", "utf-16-be"] if data.count(0) * 4 >= len(data) else [])
    best = ""
    for codec in codecs:
        runs = [run.strip() for run in _NOT_TEXT.split(data.decode(codec, errors="replace"))]
        # a run too short to spell keeps its invisible marks: a bidi override still turns what follows
        kept = [run if _spells(run) else "".join(filter(_invisible_mark, run)) for run in runs]
        read = " ".join(run for run in kept if run)
        if any(map(_spells, runs)) and len(read) > len(best):
            best = read
    return best or None
