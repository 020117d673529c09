r"""The text a battery is sent: every string as it is, and what it hides read beside it.

Pure functions, no I/O. Nothing here deletes, replaces or cuts what is judged:
an interpretation only **adds** a reading beside the raw string.

- `sendable`: a string as it can be sent as UTF-8: a lone surrogate becomes its
  escape (``\ud83d``), so nothing is lost and nothing is replaced;
- `readings`: what a string hides, each as text: its lines with invisible
  characters removed, Unicode tag characters read as the ASCII they hide and
  NFKC applied; words spelt with look-alike letters read as the ASCII they
  imitate (`lookalike`); text as a screen shows it, letters written apart or in
  Braille, Morse or the NATO alphabet, base32 and base85 (`spellings`); bytes
  hidden in variation selectors ("emoji smuggling") and in zero-width or
  whitespace bit strings; ``data:`` URLs, base64, hex, percent escapes, HTML
  character references, backslash escapes, bit groups and lists of character
  codes (octal too), decoded (hex and base32 wrapped over lines and base64 in
  groups read joined), a run of base64, hex or bits at every alignment of its unit (a window
  that begins inside a run reads it as a reader of the whole run does);
  decoded bytes are read as text in every encoding a reader may read them as
  (UTF-8, what a byte order mark says, UTF-16/32, a single-byte code page).
  Each reading is read again, to the bottom of any nesting; the readings of
  one string are bounded by their total size (`reading_budget`), past which it
  refuses (`GuardrailBudgetError`): a bound never cuts, and no depth of nesting
  refuses ordinary text;
- `reveal`: a string with its readings appended, labelled; `reveal` of a revealed
  text adds nothing more (every leaf of a value: `langchain_jev.guardrails._values`);
- media, read in the typed media fields of media blocks, is
  `langchain_jev.guardrails._media`'s.

Every pattern is a run of one character class (no nested quantifiers), so each
scan is linear in the text; the text itself is bounded by the battery's budget.
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterator

from langchain_jev._errors import GuardrailBudgetError
from langchain_jev.guardrails._bytes import ASCII_WORD, as_text, printable
from langchain_jev.guardrails._characters import invisible, is_text_code
from langchain_jev.guardrails._lookalike import lookalike_lines
from langchain_jev.guardrails._spellings import BACKSLASH as _ESCAPE
from langchain_jev.guardrails._spellings import HTML_REFERENCE as _REFERENCE
from langchain_jev.guardrails._spellings import SPELLINGS, unescape_backslashes, wrapped
from langchain_jev.models._secrets import redact as redact_known

__all__ = [
    "readings",
    "redact",
    "reveal",
    "sendable",
]

READING_FLOOR = 65_536
"""The characters every string's readings may total, however short the string (`reading_budget`)."""

READING_FACTOR = 16
"""How many times its own length a long string's readings may total (`reading_budget`)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_TAGS = re.compile("[\U000e0020-\U000e007e]")
"""Unicode tag characters, which spell ASCII invisibly."""
_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}")
"""Runs of variation selectors: one byte each (the "emoji smuggling" encoding)."""
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060-\u2064\ufeff\u180e\u034f]{8,}")
_WHITESPACE_BITS = re.compile("[ \t]{16,}")
_DATA_URL = re.compile(
    r"data:([a-z0-9.+\-]{1,64}/[a-z0-9.+\-]{1,64})?((?:;[a-z0-9.+\-]{1,64}(?:=[^;,\s]{0,100})?){0,8}),"
    r"([^\s\"'<>\\]*)",
    re.IGNORECASE,
)
_BASE64 = re.compile(r"[A-Za-z0-9+/_\-\r\n]{8,}={0,2}")
"""A run of base64: one stretch of both alphabets (a sign never cuts it), wrapped over lines or not."""
_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}[ :]?){8,}[0-9A-Fa-f]?")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_CODES = re.compile(r"\d{1,7}(?:[ \t]*[,;][ \t]*\d{1,7}|[ \t]+\d{1,7}){3,}")
_BITS = re.compile(r"[01]{7,8}(?:[ ,][01]{7,8}){2,}")
_REFERENCES_AT_LEAST = 3
"""How many percent escapes, character references or backslash escapes make a text worth decoding."""


def sendable(text: str) -> str:
    r"""``text`` as it can be sent as UTF-8: each lone surrogate written as its escape, nothing else touched.

    Example:
        >>> sendable("cut \ud83d") == "cut \\ud83d", sendable("\ud83d\ude00") == "😀"
        (True, True)

    """
    if text.isascii():
        return text
    joined = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")  # pairs join
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group(0)):04x}", joined)


def _b64(value: str) -> bytes | None:
    """The bytes base64 ``value`` spells whole (one character past its last quad dropped), or None."""
    cuts = _b64_cuts(value)
    return cuts[0] if cuts else None


def _b64_cuts(value: str) -> list[bytes]:
    r"""The bytes base64 ``value`` spells, as a lenient decoder reads them: whole, then to its last quad.

    A run may end in a stray character or where a window's cut left it: one character past a quad
    spells no byte, so a strict decoder reads nothing of the run; it is dropped, as GNU
    ``base64 -di`` or a model drops it. Two or three past a quad spell one or two bytes, which may be
    a stray's noise: the bytes of the whole quads alone come second, for a reader to take when the
    whole does not read. The cut is a slice of the bytes decoded: no run is decoded twice.

    Example:
        >>> _b64_cuts("bmVydmUgYWdl" + "Q")
        [b'nerve age']
        >>> _b64_cuts("bmVydmUgYWdlbnQ")
        [b'nerve agent', b'nerve age']

    """
    compact = "".join(value.split()).rstrip("=")
    over = len(compact) % 4
    if over == 1:  # one character past the last quad spells no byte: it is dropped
        compact, over = compact[:-1], 0
    padded = compact + "=" * (-over % 4)
    try:
        if "-" in compact or "_" in compact:
            data = base64.urlsafe_b64decode(padded)
        else:
            data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return []
    whole = len(compact) // 4 * 3  # the bytes of the whole quads: the tail's one or two bytes cut
    return [data, data[:whole]] if over and whole else [data]


def _normalised(text: str) -> Iterator[str]:
    """The lines of ``text`` that read otherwise without invisible characters (tags decoded or not), NFKC."""
    for line in text.splitlines():
        if line.isascii():
            continue
        decoded = _TAGS.sub(lambda match: chr(ord(match.group(0)) - 0xE0000), line)
        # a tag may spell hidden text, or stand alone, shown as nothing: both are read
        for read in dict.fromkeys([decoded, line] if decoded != line else [line]):
            read = unicodedata.normalize("NFKC", invisible().sub("", read))
            if read != line and read.strip():
                yield read


def _selector_bytes(text: str) -> Iterator[str]:
    for match in _SELECTORS.finditer(text):
        data = bytes(ord(c) - 0xFE00 if ord(c) <= 0xFE0F else ord(c) - 0xE0100 + 16 for c in match.group(0))
        read = as_text(data)
        if read is not None:
            yield read


def _bit_strings(run: str) -> Iterator[str]:
    """The texts a run of two (or three, one a separator) invisible symbols spells in bits."""
    symbols = sorted(set(run))
    if not 2 <= len(symbols) <= 3:
        return
    for separator in [None, *symbols] if len(symbols) == 3 else [None]:
        pair = [s for s in symbols if s != separator]
        if len(pair) != 2:
            continue
        for zero, one in (pair, pair[::-1]):
            bits = run.translate({ord(zero): "0", ord(one): "1"})
            groups = bits.split(separator) if separator is not None else [bits]
            if separator is not None and all(0 < len(g) <= 21 for g in groups if g):
                codes = [int(g, 2) for g in groups if g]
                if all(0 < code < 0x110000 and not 0xD800 <= code <= 0xDFFF for code in codes):
                    read = "".join(chr(code) for code in codes)
                    if printable(read):
                        yield read
                        continue
            flat = "".join(groups)
            for start in range(8):  # a window may begin inside a byte: every alignment is read
                spelled = as_text(_bits_to_bytes(flat[start:]))
                if spelled is not None:
                    yield spelled


def _bits_to_bytes(bits: str) -> bytes:
    return bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - len(bits) % 8, 8))


def _hidden_bits(text: str) -> Iterator[str]:
    for pattern in (_ZERO_WIDTH, _WHITESPACE_BITS):
        for match in pattern.finditer(text):
            yield from _bit_strings(match.group(0))


def _data_urls(text: str) -> Iterator[str]:
    for match in _DATA_URL.finditer(text):
        params = [p.strip().lower() for p in match.group(2).split(";")]
        body = match.group(3)
        decoded = _b64_cuts(body) if "base64" in params else [urllib.parse.unquote_to_bytes(body)]
        read = next((read for data in decoded if data and (read := as_text(data)) is not None), None)
        if read is not None:
            yield read


_ENCODED = re.compile(r"[0-9+/=_\-]|[a-z][A-Z]")
"""What tells a short run of base64 from a word: a digit, a sign or padding, or a capital inside it."""


def _words(text: str) -> bool:
    """True for text mostly of letters (any script), digits and spaces, or holding a word among signs.

    What a short run must spell: ``.. nerve agent ..`` does, an identifier's noise does not.
    """
    text = invisible().sub("", text)  # a mark that changes how a word shows is not noise beside it
    spelled = sum(c.isalnum() or c == " " for c in text) >= 0.8 * len(text)
    return spelled or ASCII_WORD.search(text) is not None


_HEX_ONLY = re.compile(r"[0-9A-Fa-f\s]+")
"""A run of hex digits alone (hashes, dumps), which the hex reader reads; as base64 its bytes are noise."""
_SNAKE_CASE = re.compile(r"[a-z]+(?:_[a-z0-9]+)+")
"""An identifier by its shape (``get_weather``): as base64 its bytes are noise a word among noise reads."""


def _base64_runs(text: str) -> Iterator[str]:
    for match in _BASE64.finditer(text):
        run = "".join(match.group(0).split())
        if len(run) < 16 and _ENCODED.search(run) is None:  # a word ("Question"), not an encoding
            continue
        yield from _b64_reads(run, guess=True, spelt=len(run) < 32)  # a short run spells words


def _b64_reads(run: str, *, guess: bool, spelt: bool) -> Iterator[str]:
    """What base64 ``run`` reads as at each alignment, as words alone when ``spelt``."""
    # base64 spelt in hex digits or as an identifier is still read, as UTF-8: a guess at its noise
    # would read a list of hashes as pages of accented text (read again until the budget refused)
    # and a tool's name as a word among noise ("get_weather" as "zyaz")
    guess = guess and _HEX_ONLY.fullmatch(run) is None and _SNAKE_CASE.fullmatch(run) is None
    for start in range(4):  # the run may begin inside a word or a window: every alignment is read
        for data in _b64_cuts(run[start:]):  # ... and end anywhere: whole, else its whole quads
            read = as_text(data, guess=guess) if data else None
            if read is not None and (not spelt or _words(read)):
                yield read
                break


_GROUP = "[A-Za-z0-9+/_{}]+={{0,2}}"
_GROUP_JOINTS = (("\\-", "[ \t\u00a0\u2007\u2009\u202f\u3000.:]"), ("", "-"))
"""Base64 in groups (``bmVy dmUg``), each apart from the next by one sign (or a line break): a dash is
inside a group (url-safe) or between groups, one pattern each."""
_GROUPED = tuple(
    (
        re.compile(
            rf"(?<![A-Za-z0-9+/_=\-]){_GROUP.format(dash)}(?:(?:{joint}|\r?\n){_GROUP.format(dash)})+"
        ),
        re.compile(rf"(\r?\n|{joint})"),
    )
    for dash, joint in _GROUP_JOINTS
)
"""Each pattern of groups, with its separators. A run of groups of one class between separators of
another, so each scan is linear."""
_WORD = re.compile("[A-Z]?[a-z]+|[A-Z]+")
"""A group shaped as a word of prose (lower case, capitalised or in capitals), not as base64's noise."""
_GROUPED_AT_LEAST = 16
"""The fewest characters the groups of one length join to, read as base64."""


def _grouped_base64(text: str) -> Iterator[str]:
    """Base64 printed in groups of one length (a multiple of four), joined as a lenient decoder reads it.

    Groups of one length, apart by one sign repeated (or a line break), the first and last maybe
    shorter (a window's cut, the tail), are read joined at each alignment (`_b64_cuts`). The reading
    must spell words (`_words`): ``this that with from`` is prose of one length, not base64.
    """
    for pattern, joints_of in _GROUPED:
        for match in pattern.finditer(text):
            parts = joints_of.split(match.group(0))
            groups, joints = parts[::2], parts[1::2]
            for first, last in _equal_groups(groups, joints):
                # groups that are each a word (``this that with from``) are prose of one length: read as
                # UTF-8 only, as a hex or identifier run is (a code page reads their bytes as text)
                worded = all(_WORD.fullmatch(group) for group in groups[first:last])
                yield from _b64_reads("".join(groups[first:last]), guess=not worded, spelt=True)


def _equal_groups(groups: list[str], joints: list[str]) -> Iterator[tuple[int, int]]:
    """The spans ``[first, last)`` of ``groups`` of one length (a multiple of four) joined by one sign."""
    start = 0
    while start < len(groups):
        size, end, joint = len(groups[start]), start + 1, None
        while end < len(groups) and len(groups[end]) == size:
            sign = joints[end - 1] if "\n" not in joints[end - 1] else None
            if sign is not None and joint not in (None, sign):
                break
            joint = joint or sign
            end += 1
        head = start - 1 if start and len(groups[start - 1]) < size else start
        tail = end + 1 if end < len(groups) and len(groups[end]) < size else end
        if size % 4 == 0 and tail - head >= 2 and sum(map(len, groups[head:tail])) >= _GROUPED_AT_LEAST:
            yield head, tail
        start = max(end, start + 1)


_HEX_LINE = re.compile(r"(?:[0-9A-Fa-f]{2}[ :]?)*[0-9A-Fa-f]{1,2}")
"""A line of hex digits alone (``xxd -p``, a dump wrapped at a width, a hash)."""
_WRAPPED_HEX_AT_LEAST = 16
"""The fewest hex digits a block of wrapped lines holds to be read joined."""


def _wrapped_hex(text: str) -> Iterator[str]:
    """Hex wrapped over lines, read as the whole it wraps, at both alignments of a byte.

    Read as UTF-8 only (whole, or with stray edge bytes cut), or as wide text when NULs space it:
    a list of hashes one a line, joined, is noise a code page would read as text at any length.
    """
    for block in wrapped(text, _HEX_LINE):
        digits = re.sub("[ :]", "", block)
        if len(digits) < _WRAPPED_HEX_AT_LEAST:
            continue
        for start in range(2):
            pairs = digits[start:]
            data = bytes.fromhex(pairs[: len(pairs) - len(pairs) % 2])
            read = as_text(data, guess=3 * data.count(0) >= len(data))
            if read is not None:
                yield read


def _hex_runs(text: str) -> Iterator[str]:
    if "\n" in text:
        yield from _wrapped_hex(text)
    for match in _HEX.finditer(text):
        run = match.group(0)
        # a run spaced in pieces may have taken in the next word ("... 74 aaaa"): each long piece is read too
        pieces = [run] + [piece for piece in re.split("[ :]", run) if len(piece) >= 16] * (" " in run.strip())
        for piece in pieces:
            digits = re.sub("[ :]", "", piece)
            for start in range(2):  # the run may begin inside a byte (a window's edge): both alignments
                pairs = digits[start:]
                read = as_text(bytes.fromhex(pairs[: len(pairs) - len(pairs) % 2]))
                if read is not None:
                    yield read


_HEX_BYTE = re.compile(
    r"(?:(?<![0-9A-Za-z])|(?<=[xX$#])|(?<=[0-9A-Fa-f][hH]))[0-9A-Fa-f]{2}(?=[hH]|(?![0-9A-Za-z])|0?[xX][0-9A-Fa-f]{2})"
)
"""A byte in two hex digits, marked off from what stands beside it: by a sign or the ends, by a prefix
(``0x``, ``\\x``, ``x``, ``$``, ``#``) or an ``h`` suffix, so ``0x6e0x65`` and ``6eh65h`` are bytes too."""
_HEX_GAP = re.compile(r"[hH]?[^0-9A-Za-z]{0,4}(?:0[xX]|[xX])?")
"""What stands between two bytes of a run: a suffix, any separator (up to four signs, any mix), a prefix."""
_BIT_BYTE = re.compile(r"(?:(?<![0-9A-Za-z])|(?<=[bB]))[01]{7,8}(?=[bB]|(?![0-9A-Za-z])|0[bB])")
"""A byte in seven or eight bits, marked off by a sign or the ends, a ``0b`` or ``b`` prefix, ``b`` after."""
_BIT_GAP = re.compile(r"[bB]?[^0-9A-Za-z]{0,4}(?:0[bB]|[bB])?")
_BYTES_AT_LEAST = 4
"""How many bytes make a run of hex or bits; a run shorter than eight bytes must spell words (`_words`)."""


def _byte_runs(text: str, byte: re.Pattern[str], gap: re.Pattern[str]) -> Iterator[list[str]]:
    """Runs of bytes of ``byte`` (at least `_BYTES_AT_LEAST`), each apart from the next by a ``gap``."""
    run: list[re.Match[str]] = []
    for token in byte.finditer(text):
        if run and gap.fullmatch(text, run[-1].end(), token.start()) is None:
            if len(run) >= _BYTES_AT_LEAST:
                yield [t.group(0) for t in run]
            run = []
        run.append(token)
    if len(run) >= _BYTES_AT_LEAST:
        yield [t.group(0) for t in run]


def _spelt_bytes(text: str) -> Iterator[str]:
    """Bytes written in hex or bits, one by one, with any usual prefix or suffix and any separators.

    ``0x6e 0x65``, ``0x6e0x65``, ``6eh 65h``, ``6e,65;72``, ``0b01101110 0b01100101``, bits one per
    line: each byte marked off from the next, read as the bytes they are (`as_text`).
    """
    for pattern, gap, base in ((_HEX_BYTE, _HEX_GAP, 16), (_BIT_BYTE, _BIT_GAP, 2)):
        for run in _byte_runs(text, pattern, gap):
            read = as_text(bytes(int(token, base) for token in run))
            if read is not None and (len(run) >= 8 or _words(read)):
                yield read


def _escaped(text: str) -> Iterator[str]:
    if len(_PERCENT.findall(text)) >= _REFERENCES_AT_LEAST:
        yield urllib.parse.unquote(text, errors="replace")
    if "&" in text and len(_REFERENCE.findall(text)) >= _REFERENCES_AT_LEAST:
        yield html.unescape(text)
    if "\\" in text and len(_ESCAPE.findall(text)) >= _REFERENCES_AT_LEAST:
        yield unescape_backslashes(text)


def character_codes(codes: list[int]) -> str | None:
    """The text a list of character codes spells, when it reads as text (at least four characters).

    A code that is no character of text (`_characters.is_text`: a control, a surrogate, a private-use
    or unassigned code point) or past Unicode reads as a space: one bad code beside the others never
    hides what they spell.

    Example:
        >>> character_codes([110, 101, 114, 118, 101]), character_codes([1, 2])
        ('nerve', None)
        >>> character_codes([110, 101, 114, 118, 101, 0])
        'nerve '

    """
    read = "".join(chr(code) if is_text_code(code) else " " for code in codes)
    return read if sum(map(is_text_code, codes)) >= 4 and printable(read) else None


_OCTAL_BYTE = re.compile("0{0,2}[0-3]?[0-7]{1,2}")
"""A byte in octal: up to three digits of 0 to 7 (``156``, ``040``, ``40``), up to 377."""


def _code_runs(text: str) -> Iterator[str]:
    for match in _CODES.finditer(text):
        numbers = re.findall(r"\d+", match.group(0))
        read = character_codes([int(n) for n in numbers])
        if read is not None:
            yield read
        if all(_OCTAL_BYTE.fullmatch(n) for n in numbers):  # bytes in octal (``od -b``, ``\156`` unslashed)
            spelled = as_text(bytes(int(n, 8) for n in numbers))
            if spelled is not None and _words(spelled):
                yield spelled
    for match in _BITS.finditer(text):
        read = character_codes([int(group, 2) for group in re.findall("[01]+", match.group(0))])
        if read is not None:
            yield read


_READERS = (
    ("normalised", _normalised),
    ("look-alike letters", lookalike_lines),
    ("variation selectors", _selector_bytes),
    ("bit string", _hidden_bits),
    ("data URL", _data_urls),
    ("base64", _base64_runs),
    ("base64 in groups", _grouped_base64),
    ("hex", _hex_runs),
    ("bytes spelt", _spelt_bytes),
    ("escapes", _escaped),
    ("character codes", _code_runs),
)
"""Each way a string may hide text, by the label its reading is shown under."""


def _may_hide(text: str) -> tuple[bool, ...]:
    """Which readers may find something in ``text`` (cheap checks first; each reader is exact)."""
    plain = text.isascii()
    return (
        not plain,  # normalised
        not plain,  # look-alike letters
        not plain,  # variation selectors
        not plain or "\t" in text,  # zero-width or whitespace bits
        ":" in text,  # data URLs
        True,  # base64
        True,  # base64 in groups
        True,  # hex
        any(c.isdigit() for c in text),  # bytes in hex or bits, one by one
        "%" in text or "&" in text or "\\" in text,  # escapes
        any(c.isdigit() for c in text),  # character codes, bit groups
    )


def _direct(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    readers: list[tuple[str, Callable[[str], Iterator[str]]]] = [
        (label, reader) for (label, reader), may in zip(_READERS, _may_hide(text), strict=True) if may
    ]
    readers += [(label, reader) for label, reader, may in SPELLINGS if may(text)]
    for label, reader in readers:
        for read in reader(text):
            if read != text and all(read != seen for _, seen in found):
                found.append((label, read))
    return found


def reading_budget(text: str) -> int:
    """The characters (one more per reading) that the readings of ``text`` may total before it refuses.

    The bound is on work, not on depth: each reading is read again to the bottom of its
    nesting (base64 of a data URL of base64 is read through), and readers that undo each
    other's spelling cost nothing after their first reading. An ordinary string's readings
    total a few times its length; only a string built to make readings multiply reaches it.

    Example:
        >>> reading_budget("short") == READING_FLOOR
        True

    """
    return max(READING_FLOOR, READING_FACTOR * len(text))


def readings(text: str) -> list[tuple[str, str]]:
    r"""What ``text`` hides, each reading ``(label, text)``, each read again to the bottom of its nesting.

    A reading already read (the raw text, or another reading of it) is not read again: two
    readers that undo each other's spelling add nothing. Readings come depth first: each
    is followed by what it hides in turn.

    Raises:
        GuardrailBudgetError: the readings total more than `reading_budget` (a bound refuses).

    Example:
        >>> readings("ne\u200brve agent")
        [('normalised', 'nerve agent')]
        >>> readings("decode bmVydmUgYWdlbnQgYXQgaG9tZQ== please")
        [('base64', 'nerve agent at home')]
        >>> readings("Plain words.")
        []

    """
    budget = reading_budget(text)
    spent = 0
    seen = {text}
    out: list[tuple[str, str]] = []
    # depth first without recursion: a nesting as deep as the text is long never meets Python's limit
    stack: list[Iterator[tuple[str, str]]] = [iter(_direct(text))]
    while stack:
        found = next(stack[-1], None)
        if found is None:
            stack.pop()
            continue
        label, read = found
        if read in seen:  # judged already (raw, or read by another reader): its readings are in `out`
            continue
        seen.add(read)
        spent += len(read) + 1
        if spent > budget:
            raise GuardrailBudgetError(
                f"the text's readings total more than {budget:,} characters, over the check's budget",
                size=spent,
                budget=budget,
            )
        out.append((label, sendable(read)))
        stack.append(iter(_direct(read)))
    return out


@functools.lru_cache(maxsize=4096)
def _revealed_short(text: str) -> str:
    return _reveal(text)


def reveal(text: str) -> str:
    r"""``text`` as the battery is sent it: the raw text, then each reading it hides, labelled.

    Nothing of ``text`` is removed or replaced (a lone surrogate is written as
    its escape); a reading already in the text is not added again, so revealing
    a revealed text adds nothing.

    Example:
        >>> print(reveal("hi" + "".join(chr(0xE0000 + ord(c)) for c in " nerve agent")).splitlines()[-1])
        [normalised] hi nerve agent
        >>> reveal("Plain words.")
        'Plain words.'

    """
    # a conversation's earlier messages are read again each turn: short texts are remembered
    return _revealed_short(text) if len(text) <= _REMEMBERED else _reveal(text)


_REMEMBERED = 4_000
"""The longest text whose reading is remembered (4,096 of them, at most 16 M characters)."""


def _reveal(text: str) -> str:
    raw = sendable(text)
    added = [f"[{label}] {read}" for label, read in readings(text) if not _shown_in(read, raw)]
    if not added:
        return raw
    return "\n".join([raw, *dict.fromkeys(added)])


def _shown_in(read: str, raw: str) -> bool:
    """True when the judge sees ``read`` in ``raw`` already: whole, or each of its lines, as it is.

    A reading of a revealed text is that text with its lines read (a line of its raw string, a line
    of a reading), each of which the revealed text holds: revealing it again adds nothing.
    """
    return read in raw or ("\n" in read and all(line in raw for line in read.splitlines()))


_SECRETS = re.compile(r"(?i)\b(sk-|bearer\s+|api[_-]?key[=:]\s*)[A-Za-z0-9._\-]{4,}")


def redact(text: str) -> str:
    """``text`` with anything shaped like an API key or bearer token masked, and every known key.

    Example:
        >>> redact("401: bad key sk-test-0123456789")
        '401: bad key sk-…'

    """
    return _SECRETS.sub(lambda match: f"{match.group(1)}…", redact_known(text))
