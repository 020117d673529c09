"""Bytes read as text: in which encodings a reader may read them, and the text runs inside binary.

Pure functions, no I/O, for `langchain_jev.guardrails._text` and `_media`:

- `as_text`: decoded bytes as text when, in UTF-8 (with stray bytes cut from its
  edges), what a byte order mark says, UTF-16/32 or a single-byte code page, they
  read as text; otherwise the runs of text inside them (words between NULs or any
  binary padding), so padding never hides words;
- `printable`: whether a decoding reads as text (invisible format characters count);
- `ASCII_WORD`: a word of ASCII letters. What a screen shows as nothing and what a character
  of text is are `langchain_jev.guardrails._characters`' (``INVISIBLE`` and ``SHOWN_AS_NOTHING``
  are still read here, built on first use).
"""

from __future__ import annotations

import contextlib
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator

from langchain_jev.guardrails._characters import invisible, not_text_class, shown_as_nothing

__all__ = ["ASCII_WORD", "as_text", "printable"]


def __getattr__(name: str) -> object:
    """`SHOWN_AS_NOTHING` and `INVISIBLE`, built on first use (`_characters`), not at import."""
    if name == "SHOWN_AS_NOTHING":
        return shown_as_nothing()
    if name == "INVISIBLE":
        return invisible()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _no_text() -> re.Pattern[str]:
    """A run of what is no character of text (`is_text`), the pattern built from its one definition."""
    return re.compile(f"[{not_text_class()}]+")


@functools.cache
def _separators() -> re.Pattern[str]:
    """What separates the text runs of binary data: what is no text (`is_text`), or an undecodable byte."""
    return re.compile(f"[{not_text_class()}\ufffd]+")


@functools.cache
def _split_word() -> re.Pattern[str]:
    """A letter, what is no text, a letter: where removing what is no text may join a word."""
    return re.compile(f"[^\\W\\d_][{not_text_class()}\ufffd]+[^\\W\\d_]")


def printable(text: str) -> bool:
    """True for text a reader could read: mostly characters of text, not empty, with a letter or digit.

    A character of text is what `_characters.is_text` says (any but a control other than tab and
    line breaks, a surrogate, a private-use or an unassigned code point): spaces of every width and
    invisible format characters (zero-width, bidi controls, tags) count, as they are how text hides
    inside text.
    """
    if not text.strip():
        return False
    textual = len(text) - sum(map(len, _no_text().findall(text)))
    return textual >= 0.9 * len(text) and any(c.isalnum() for c in text)


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
"""Byte order marks, longest first, with the encoding each declares."""


_NOT_BESIDE_A_WORD = r"[^\x00-@\[-`{-\x7f\U00010000-\U0010ffff]"
"""What may not stand beside a word of ASCII letters: an ASCII letter or a BMP code point past ASCII,
written as the complement of what may (ASCII signs and spaces, code points past the BMP). Written
directly (``[A-Za-z\x80-\uffff]``) the pattern made Python build a table of the BMP, 5 ms an import;
so it compiles in half a millisecond, and matches alike at every code point (`test_characters`)."""

ASCII_WORD = re.compile(rf"(?<!{_NOT_BESIDE_A_WORD})[A-Za-z]{{3,}}(?!{_NOT_BESIDE_A_WORD})")
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
            width = 1 if codec == "utf-8" else 2 if "16" in codec else 4
            yield _wide(data[len(mark) :], codec, width, 0)
            break
    if 3 * data.count(0) >= len(data):  # ASCII text in UTF-16 or UTF-32, without a mark
        yield from _wide_decodings(data)
    if declared or _western(data):
        yield data.decode("cp1252", errors="replace")  # Latin-1 or Windows text, however accented


def _wide(data: bytes, codec: str, width: int, shift: int) -> str:
    r"""``data`` in ``codec`` (``width`` bytes a unit) read ``shift`` bytes into its first unit.

    The bytes a cut unit misses, before the first byte or after the last, read as NULs: no whole
    character is lost to a byte count that is no multiple of the width (``"t\0"`` cut to ``"t"``).
    """
    head = b"\x00" * shift
    return (head + data + b"\x00" * (-(shift + len(data)) % width)).decode(codec, errors="replace")


def _wide_decodings(data: bytes) -> list[str]:
    """``data`` read as UTF-16 and UTF-32, both byte orders, at every alignment of the unit.

    Most ASCII first (a wrong alignment or order reads ASCII as other scripts), so the reading a
    reader of wide text makes comes before the others; none is left out.

    Example:
        >>> _wide_decodings("nerve".encode("utf-16-le")[:-1])[0]
        'nerve'

    """
    found = [
        _wide(data, f"utf-{width * 8}-{order}", width, shift)
        for width in (2, 4)
        for order in ("le", "be")
        for shift in range(width)
    ]
    return sorted(found, key=lambda text: -sum(" " <= c <= "~" or c in "\t\n\r" for c in text))


_WITHIN_AT_LEAST = 12
"""The fewest bytes left after a cut for `_utf8_within` to read them: shorter noise, cut to fit, reads as
UTF-8 too often (twelve random bytes read as printable UTF-8 about once in ten thousand cuts)."""


def _utf8_within(data: bytes, first_error: int | None = None) -> Iterator[str]:
    """``data`` as UTF-8 with up to three stray bytes cut from either end, when that reads.

    A run's edge may take in a byte of what stands beside it (a hex digit pair or base64
    group of the next word, a window's edge); the text inside is still UTF-8. The cut bytes
    stay in the raw string, which is judged as it is.

    The cuts are tried in one order (fewest head bytes first, then fewest tail bytes) and the
    first that reads is the reading; the decoding of the whole (``first_error``, `_first_error`)
    tells without decoding which cuts cannot read (they keep its first error) and which must
    (they cut only inside what read, at the starts of characters); only the others are decoded.
    """
    size = len(data)
    if size < _WITHIN_AT_LEAST + 2:
        return
    first = _first_error(data) if first_error is None else first_error
    if not _may_be_utf8_within(data, first):
        return
    for head in range(4):
        for tail in range(4):
            end = size - tail
            if not head + tail or end - head < _WITHIN_AT_LEAST or head <= first < end:
                continue  # no cut, too short to read, or it keeps the first error: it cannot read
            inside = end <= first  # within what read: it reads when it cuts at the starts of characters
            if inside and not (
                _starts_character(data, head) and (end == first or _starts_character(data, end))
            ):
                continue
            with contextlib.suppress(UnicodeDecodeError):
                yield data[head:end].decode("utf-8")
                return


def _starts_character(data: bytes, at: int) -> bool:
    """True when a character of UTF-8 may start at byte ``at`` (no continuation byte; the end counts)."""
    return at >= len(data) or not 0x80 <= data[at] <= 0xBF


def _first_error(data: bytes) -> int:
    """Where decoding ``data`` as UTF-8 first fails (its length when it reads whole)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return len(data)


def _may_be_utf8_within(data: bytes, first_error: int | None = None) -> bool:
    """False when no cut of up to three bytes from either end of ``data`` decodes as UTF-8.

    The decoding of the whole fails first at ``first_error`` (`_first_error`); everything before
    it reads. A cut that keeps that byte cannot read (from a start of a character it decodes as the
    whole did, up to the same error; from inside a character it fails at once), so an error past
    the first three bytes and before the last three rules out every cut, with no decoding more.
    An error in the first three bytes leaves the cuts past it; were one UTF-8, so would the middle
    be (``data`` without three bytes at each end, but for a character cut at its edges): one decoding
    of the middle rules them out, not sixteen.
    """
    first = _first_error(data) if first_error is None else first_error
    if 3 <= first < len(data) - 3:
        return False
    if first >= 3:  # reads whole, or fails in its last three bytes: a cut before them may read
        return True
    middle = data[3 : len(data) - 3]
    start = 0
    while start < 3 and start < len(middle) and 0x80 <= middle[start] <= 0xBF:
        start += 1
    try:
        middle[start:].decode("utf-8")
    except UnicodeDecodeError as error:
        return error.reason == "unexpected end of data"
    return True


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
    if not within or not guess:
        return read
    if read is None:
        return _text_runs(data)
    ignored = _undecodable_removed(data)
    return f"{read}\n{ignored}" if ignored is not None and ignored != read else read


def _undecodable_removed(data: bytes) -> str | None:
    r"""``data`` as UTF-8 with the bytes it cannot decode dropped (``errors="ignore"``), and controls too.

    A reader of UTF-8 that drops what it cannot decode reads ``n\x80erve`` as ``nerve``, where a
    code page reads a sign in the word: both readings are kept (`as_text`).
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        ignored = _separators().sub(
            "", data.decode("utf-8", errors="replace")
        )  # nor the controls a screen hides
        return ignored if printable(ignored) else None
    return None


def _utf8(data: bytes) -> Iterator[str]:
    """``data`` as UTF-8: whole when it reads, then with stray edge bytes cut (`_utf8_within`).

    One decoding of the whole serves both: its text, or where it fails, which tells the cuts
    that cannot read from those that may.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        first_error = error.start
    else:
        first_error = len(data)
        yield text
    yield from _utf8_within(data, first_error)


_LETTERS = re.compile(r"[^\W\d_]{5,}")
"""Five letters of any script in a row: a run that spells a word, not noise (three when ASCII)."""


def _spells(run: str) -> bool:
    """A run of text in binary data: four characters with a word, or eight mostly ASCII letters and digits.

    The eight are an encoding's run (hex or base64, say), read again in turn.
    """
    shown = unicodedata.normalize("NFKC", invisible().sub("", run))  # marks composed onto their letters
    worded = len(run) >= 4 and (ASCII_WORD.search(shown) is not None or _LETTERS.search(shown) is not None)
    encoded = len(run) >= 8 and sum(c.isascii() and c.isalnum() for c in run) >= 0.8 * len(run)
    return worded or encoded


def _invisible_mark(c: str) -> bool:
    return unicodedata.category(c) == "Cf"


def _text_runs(data: bytes) -> str | None:
    r"""The runs of text in binary ``data`` (`_spells`), joined by spaces, then what a screen shows of it.

    Read as UTF-8 and, when NULs space it, as UTF-16 and UTF-32 at every alignment (`_wide_decodings`);
    the reading with the most ASCII letters and digits (then the most text) is kept.

    A screen shows a control character or an undecodable byte as nothing, so pieces of a word between
    such bytes read as the word (``ner\x00ve`` as ``nerve``), however short each piece: the stretches of
    the bytes with what is no text removed (`_joined`) are added on a line of their own.

    Example:
        >>> _text_runs(b"ner\x00ve \x01ag\x02ent")
        'nerve agent'

    """
    decoded = [data.decode("utf-8", errors="replace")]
    if data.count(0) * 4 >= len(data):
        decoded += _wide_decodings(data)
    best, most = "", (0, 0)
    for text in decoded:
        runs = [run.strip() for run in _separators().split(text)]
        # a run too short to spell keeps its invisible marks: a bidi override still turns what follows
        kept = [run if _spells(run) else "".join(filter(_invisible_mark, run)) for run in runs]
        parts = [" ".join(run for run in kept if run)] if any(map(_spells, runs)) else []
        parts += [joined] if (joined := _joined(text, runs)) else []
        read = "\n".join(parts)
        score = (sum(c.isascii() and c.isalnum() for c in read), len(read))
        if score > most:
            best, most = read, score
    return best or None


_PROSE = re.compile(r"[\w\s'\u2019,.:;!?\-]+")
"""A stretch of words: letters, digits, spaces and the signs between words in prose."""


def _words_in(text: str) -> set[str]:
    shown = unicodedata.normalize("NFKC", invisible().sub("", text))
    return {match.group(0) for pattern in (ASCII_WORD, _LETTERS) for match in pattern.finditer(shown)}


def _joined(text: str, runs: list[str]) -> str:
    """The stretches of ``text`` with what is no text removed that read as words no run spelt alone.

    A stretch (letters, digits, spaces and the signs of prose, `_PROSE`) is kept when it is mostly
    letters and spaces (four in five), with no capital after a small letter and no letter making
    half of eight or more, and holds a word (`ASCII_WORD`, or five letters of any script)
    that no run held: pieces of a phrase joined are words; the pieces of random binary joined are
    mostly letters, digits and signs mixed, and rarely make a word none of them held. Only those
    stretches, joined by spaces, so random binary adds a few short words at most, not a page of noise.
    """
    if _split_word().search(text) is None:  # no letters on both sides of what is removed: no word joins
        return ""
    stretches = [match.group(0).strip() for match in _PROSE.finditer(_separators().sub("", text))]
    worded = [(stretch, words) for stretch in stretches if _worded(stretch) and (words := _words_in(stretch))]
    if not worded:
        return ""
    alone = set().union(*map(_words_in, runs))
    return " ".join(stretch for stretch, words in worded if words - alone)


_MIXED_CASE = re.compile("[a-z][A-Z]")
"""A capital after a small letter: noise (or an encoding), not a word as prose writes it."""


def _worded(stretch: str) -> bool:
    spelled = sum(c.isalpha() or c == " " for c in stretch) >= 0.8 * len(stretch)
    letters = [c.lower() for c in stretch if c.isalpha()]
    # a run of one letter in base64 is bytes one in three of which is "i": joined, "iiii..." is no phrase
    repeated = len(letters) >= 8 and 2 * Counter(letters).most_common(1)[0][1] > len(letters)
    return spelled and not repeated and _MIXED_CASE.search(stretch) is None
