r"""Text spelt so a model or a reader reads it, but a judge matching characters does not.

Readings of `text.readings` (each judged *beside* the raw string, never instead
of it), for spellings that are no byte encoding: what they hide is read by a
standard, keyless rule, as a model asked to read it (or a screen showing it)
does.

- ``marks removed``: combining marks on ASCII letters stripped (Zalgo text,
  ``n\u0336e\u0336r\u0336v\u0336e\u0336``), a mark on a letter of another script kept;
- ``digits``: decimal digits of any script read as ASCII digits (Arabic-Indic ``\u0667``);
- ``blanks``: what shows as a blank (Ogham space, Hangul fillers, the Braille blank,
  line and paragraph separators, control characters) read as a space;
- ``letter names``: letters Unicode names after a Latin letter and nothing more (small
  capitals ``\u0274``, regional indicators) read as that letter;
- ``as displayed``: text under a right-to-left override, in the order a screen shows it;
- ``invisible removed``: what a screen shows as nothing (every default-ignorable code point and
  format character, `_characters.invisible`) removed, wherever it stands;
- ``markup removed``: markup touching a letter, inside a word or at its edge (``a**g**ent``,
  ``ner*ve*``, ``ner_ve_``, ``a<b></b>gent``, an HTML comment, an ANSI escape)
  removed, a highlight (``ner==ve==``) and a Markdown link read as their text;
- ``controls removed``: control characters removed, as a screen shows them (``ner\x00ve``);
- ``joined literals``: string literals joined in code (``"ner" + "ve"``, ``'ner' 've'``,
  ``.concat(..)``, ``''.join([..])``) read joined;
- ``spaced letters``: letters written apart (``n e r v e``, ``n-e-r-v-e``, one per line) joined;
- ``braille``, ``morse``, ``NATO alphabet``: letters in those alphabets read as ASCII;
- ``base32``, ``base85``: runs of those alphabets decoded, at every alignment of their unit
  (base32 in RFC 4648's standard and extended-hex alphabets, and wrapped over lines, joined);
- ``escaped line``: a line with one or two percent, HTML, backslash or quoted-printable
  escapes, decoded (`text` decodes a whole text once it holds three).

Pure functions, no I/O. Every pattern is a run of one character class, so each
scan is linear in the text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import quopri
import re
import unicodedata
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator

from langchain_jev.guardrails._characters import invisible

__all__ = ["BACKSLASH", "HTML_REFERENCE", "SPELLINGS", "unescape_backslashes", "wrapped"]

HTML_REFERENCE = re.compile(
    r"&(?:#0{0,32}[0-9]{1,7}|#[xX]0{0,32}[0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
    r"|&#[xX]?[0-9A-Fa-f]{1,7}(?![0-9A-Fa-f;])"
)
"""An HTML character reference as a browser reads it: named or numeric, leading zeros and all,
a numeric one without its semicolon too (``&#x6e&#x65``)."""

_ASCII_MARKED = re.compile(r"[\x20-\x7e][\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
"""An ASCII sign carrying combining marks (the blocks of combining diacritics)."""


def _marks_removed(text: str) -> str:
    return _ASCII_MARKED.sub(lambda match: match.group(0)[0], text) if not text.isascii() else text


def _digits(text: str) -> str:
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if not c.isascii() and c.isdecimal() else c for c in text)


_BLANK = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x85\u1680\u2028\u2029\u2800\u3164\u115f\u1160\uffa0]")
"""What shows as a blank, or as nothing between two words, and no normalisation makes a space."""


def _blanks(text: str) -> str:
    return _BLANK.sub(" ", text)


_LETTER_NAME = re.compile(
    r"(?:LATIN|REGIONAL INDICATOR SYMBOL|(?:NEGATIVE )?(?:SQUARED|CIRCLED|PARENTHESIZED) LATIN)"
    r" (?:SMALL |CAPITAL )?LETTER (?:SMALL CAPITAL )?([A-Z])"
)
"""A name that says a Latin letter and nothing more (no accent: ``... WITH ACUTE`` does not match)."""


def _letter(char: str) -> str | None:
    match = _LETTER_NAME.fullmatch(unicodedata.name(char, ""))
    if match is None:
        return None
    letter = match.group(1)
    return letter.lower() if "SMALL" in unicodedata.name(char) else letter


def _letter_names(text: str) -> str:
    return text if text.isascii() else "".join((_letter(c) or c) if not c.isascii() else c for c in text)


_OVERRIDDEN = re.compile("\u202e([^\u202c\u202d\n]*)\u202c?")
"""A run under a right-to-left override, to its pop (or another override, or the line's end)."""


def _as_displayed(text: str) -> str:
    return _OVERRIDDEN.sub(lambda match: match.group(1)[::-1], text) if "\u202e" in text else text


_MARK = r"(?:[*~`]|<!--[^>]{0,200}-->|</?[A-Za-z][^<>]{0,200}>|\x1b\[[0-9;?]{0,32}[A-Za-z])"
"""One mark of markup: emphasis, code or strike sign, an HTML tag or comment, an ANSI escape (each
begins with a sign none other begins with, so a run of marks splits one way only)."""
_IN_WORD = re.compile(rf"(?<=[^\W_]){_MARK}+|(?<![*~`>]){_MARK}+(?=[^\W_])")
"""Markup touching a letter on either side: inside a word, or opening or closing at its edge (``ner*ve*``).
A run looked for before a letter begins where no mark ends (a sign, a tag's ``>``), so a long run of signs is
scanned once."""


_EDGE_UNDERSCORE = re.compile(r"(?<!\w)_+(?=[^\W_])|(?<=[^\W_])_+(?!\w)")
"""An underscore at a word's edge (``_nerve``, ``nerve_``), emphasis opening or closing. Underscores inside
a word (``tool_call_id``) are no emphasis to Markdown (CommonMark), which shows them as they are."""
_TOUCHING_UNDERSCORE = re.compile(r"(?<=[^\W_])_+|(?<!_)_+(?=[^\W_])")


def _underscores_removed(text: str) -> str:
    """``text`` with underscores of emphasis removed (``ner_ve_``, ``n_erve agent_``, ``n_erve agent*``).

    When an underscore stands at a word's edge, or other markup touches a
    letter, every underscore touching a letter is removed (an emphasis may open inside one word
    and close at the edge of another, with either mark); one underscore inside a word in text
    with no markup (``blk_7``, ``request_id=``) is an identifier's, and stays.
    """
    if "_" in text and (_EDGE_UNDERSCORE.search(text) or _IN_WORD.search(text)):
        return _TOUCHING_UNDERSCORE.sub("", text)
    return text


_LINK = re.compile(r"!?\[([^\[\]\n]{1,200})\]\([^()\s]{0,2000}\)")


_HIGHLIGHT = re.compile(r"==([^\s=](?:[^=\n]{0,200}[^\s=])?)==")
"""A highlight, ``==text==``: opened before a sign and closed after one, so base64's padding is none."""
_TOUCHING_EQUALS = re.compile(r"(?<=[^\W_])={2,}|(?<!=)={2,}(?=[^\W_])")
"""The marks of a highlight where they touch a letter, read away once the text holds a highlight."""


def _markup_removed(text: str) -> str:
    marked = _IN_WORD.search(text) is not None
    read = _IN_WORD.sub("", _underscores_removed(text)) if marked or "_" in text else text
    # a highlight may open inside one word and close at another's edge, or pair with other markup
    if "==" in read and (marked or _HIGHLIGHT.search(read)):
        read = _HIGHLIGHT.sub(lambda match: match.group(1), _TOUCHING_EQUALS.sub("", read))
    return _LINK.sub(lambda match: match.group(1), read)


def _invisible_removed(text: str) -> str:
    return invisible().sub("", text)


_SHOWN = (_marks_removed, _digits, _letter_names, _as_displayed, _markup_removed, _blanks, _invisible_removed)
_SHOWN_PASSES = 3
"""How often the display spellings are undone in one reading (ordinary text settles in two)."""


def _as_shown(text: str) -> Iterator[str]:
    """``text`` as a screen shows it and a model reads it: every display spelling above undone at once.

    One reading for all of them (not one each), so a text carrying several is one reading deep.
    Undoing one may leave another to undo (a reversed run shows markup inside a word), so they
    are undone again to a fixed point, `_SHOWN_PASSES` at most: a reading still not at its
    fixed point is read again by `text.readings`, one level deeper, within its reading budget;
    nothing is cut. NFKC is the ``normalised`` reading's, read again in turn.
    """
    read = text
    for _ in range(_SHOWN_PASSES):
        before = read
        for undo in _SHOWN:
            read = undo(read)
        if read == before:
            break
    if read != text:
        yield read


_LITERALS_JOINED = re.compile(r"""["'`](?:[\s+,()\[\]{};&|]|\.{2}|\.concat\(|\.join\(){0,24}["'`]""")
"""Where one string literal ends and the next begins, with what joins them in code between: ``+``,
blanks (implicit concatenation), ``..``, ``||``, ``&``, ``.concat(``, ``.join([``, commas and brackets."""


def _joined_literals(text: str) -> Iterator[str]:
    """``text`` with string literals that stand one after another in code joined, as the code joins them.

    ``"ner" + "ve"``, ``'ner' 've'``, ``'ner'.concat('ve')``, ``''.join(['ner', 've'])`` read as
    ``"nerve"``: each closing quote, joiner and opening quote is removed where it stands (no pairing of
    quotes from the start, which an apostrophe before would shift).
    """
    joined = _LITERALS_JOINED.sub("", text)
    if joined != text:
        yield joined


_SPACED = re.compile(r"(?<!\w)\w(?:[\s\-.,/|*+~\u00b7\u2022]{1,3}\w(?!\w)){3,}")
"""Four or more single letters (or digits), each apart from the next by one to three signs."""


def _spaced_letters(text: str) -> Iterator[str]:
    for match in _SPACED.finditer(text):
        run = match.group(0)
        letters = re.findall(r"\w", run)
        gaps = re.findall(r"[^\w]+", run)
        apart = Counter(gaps).most_common(1)[0][0]  # the separator of letters; any other parts words
        pairs = zip(letters, [*gaps, apart], strict=True)
        yield "".join(letter + ("" if gap == apart else " ") for letter, gap in pairs)


_BRAILLE = dict(
    zip(
        "\u2801\u2803\u2809\u2819\u2811\u280b\u281b\u2813\u280a\u281a\u2805\u2807\u280d\u281d\u2815\u280f"
        "\u281f\u2817\u280e\u281e\u2825\u2827\u283a\u282d\u283d\u2835",
        "abcdefghijklmnopqrstuvwxyz",
        strict=True,
    )
)
"""English Braille, grade 1: the cells of the letters (the capital sign is dropped, the blank a space)."""


def _braille(text: str) -> Iterator[str]:
    if any(c in _BRAILLE for c in text):
        yield "".join(_BRAILLE.get(c, " " if c == "\u2800" else "" if c == "\u2820" else c) for c in text)


_MORSE_SIGNS = (
    ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- "
    ".-- -..- -.-- --.. ----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----."
)
_MORSE_CODE = dict(
    zip(
        str.split(_MORSE_SIGNS),
        "abcdefghijklmnopqrstuvwxyz0123456789",
        strict=True,
    )
)
_MORSE = re.compile(r"[.\-]{1,6}(?:[ /|]{1,7}[.\-]{1,6}){3,}")


_MORSE_SIGN = str.maketrans("\u00b7\u2022\u2219\u22c5\u2212\u2013\u2014_", "....----")
"""Dots and dashes written with other signs (a middle dot, a bullet, a minus, an en or em dash, ``_``)."""
_MORSE_SIGNED = "-._\u00b7\u2022\u2219\u22c5\u2212\u2013\u2014"


def _morse(text: str) -> Iterator[str]:
    for match in _MORSE.finditer(text.translate(_MORSE_SIGN)):
        words = re.split(r"\s*[/|]\s*| {2,}", match.group(0))
        yield " ".join("".join(_MORSE_CODE.get(sign, "?") for sign in word.split()) for word in words)


_NATO_WORDS = str.split(
    "alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike november "
    "oscar papa quebec romeo sierra tango uniform victor whiskey whisky xray x-ray yankee zulu"
)
_NATO = re.compile(
    r"(?i)\b(?:(?:" + "|".join(_NATO_WORDS) + r"|space|stop)\b[\s,.;/|-]{0,3}){4,}",
)


def _nato(text: str) -> Iterator[str]:
    for match in _NATO.finditer(text):
        words = re.findall(r"[A-Za-z-]+", match.group(0))
        yield "".join(" " if w.lower() in ("space", "stop") else w[0].lower() for w in words)


_BASE32 = re.compile(r"[A-Z2-7]{16,}={0,6}|[a-z2-7]{16,}={0,6}")
_BASE32HEX = re.compile(r"[0-9A-V]{16,}={0,6}|[0-9a-v]{16,}={0,6}")
"""Runs of base32 in RFC 4648's alphabets: the standard one (section 6) and the extended hex (section 7)."""
_FROM_HEX_ALPHABET = str.maketrans("0123456789ABCDEFGHIJKLMNOPQRSTUV", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
_BASE32_LINE = re.compile(r"[A-Z2-7]+=*|[a-z2-7]+=*|[0-9A-V]+=*|[0-9a-v]+=*")


def wrapped(text: str, line: re.Pattern[str]) -> Iterator[str]:
    r"""Each block of two or more consecutive lines of ``text`` that are wholly ``line``, joined.

    An encoding wrapped at a width (``xxd -p``, ``base32 -w``) is read as the whole it wraps, as its
    decoder reads it; its lines are read one by one too.

    Example:
        >>> list(wrapped("hex:\n6e6572\n766520\nend", re.compile("[0-9a-f]+")))
        ['6e6572766520']

    """
    block: list[str] = []
    for raw in [*text.splitlines(), ""]:
        stripped = raw.strip()
        if stripped and line.fullmatch(stripped):
            block.append(stripped)
            continue
        if len(block) >= 2:
            yield "".join(block)
        block = []


def _base32(text: str) -> Iterator[str]:
    runs = [match.group(0) for match in _BASE32.finditer(text)]
    hexed = [match.group(0) for match in _BASE32HEX.finditer(text)]
    if "\n" in text:
        for block in wrapped(text, _BASE32_LINE):
            runs += [match.group(0) for match in _BASE32.finditer(block)]
            hexed += [match.group(0) for match in _BASE32HEX.finditer(block)]
    for run in [*runs, *(run.upper().translate(_FROM_HEX_ALPHABET) for run in hexed)]:
        yield from _base32_run(run)


def _base32_run(run: str) -> Iterator[str]:
    run = run.rstrip("=").upper()
    for start in range(8):  # a window may begin inside a unit of eight
        body = run[start:]
        body = body[: len(body) - len(body) % 8] if len(body) % 8 in (1, 3, 6) else body
        try:
            data = base64.b32decode(body + "=" * (-len(body) % 8))
        except (binascii.Error, ValueError):
            continue
        read = _words(data)
        if read is not None:
            yield read


_BASE85 = re.compile(r"<~[!-u\s]{5,}~>|[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{20,}|[!-u]{20,}")
"""Ascii85 between its delimiters, a run of RFC 1924's base85 alphabet, or of Ascii85's."""
_ASCII85 = re.compile(r"[!-uz]+")
_RFC1924 = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]+")


def _base85(text: str) -> Iterator[str]:
    for match in _BASE85.finditer(text):
        run = match.group(0)
        framed = run.startswith("<~")
        # each alphabet's decoder only: a character outside it fails the decoding, after decoding up to it
        decoders: list[Callable[[str], bytes]] = [base64.a85decode] if _ASCII85.fullmatch(run) else []
        decoders += [base64.b85decode] if _RFC1924.fullmatch(run) else []
        if framed:  # Adobe's frame, taken off: its groups are read as plain Ascii85 (a head check reads them)
            run, decoders = run[2:-2], [base64.a85decode]
        for decode in decoders:
            for start in range(1 if framed else 5):
                if not _head_may_read(decode, run[start:]):
                    continue
                try:
                    data = decode(run[start:])
                except (binascii.Error, ValueError):
                    continue
                read = _words(data)
                if read is not None:
                    yield read


_HEAD = 40
"""The characters of a base85 run `_head_may_read` decodes first: eight groups of five."""


def _head_may_read(decode: Callable[[str], bytes], run: str) -> bool:
    """False when the first groups of ``run`` already rule out a reading (`_words`): not base85, or not UTF-8.

    Each group of five characters is four bytes of its own, so the bytes of the first groups are the
    first bytes of the whole (the last group decoded is left out: a ``z`` may have moved it off its
    boundary, where it is padded); bytes that are no UTF-8 there are none in the whole. Noise (an
    identifier, a path, a URL) is rejected in eight groups, not decoded whole at every alignment.
    """
    if len(run) <= _HEAD:
        return True
    try:
        head = decode(run[:_HEAD])[:-4]
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
        return False
    return True


def _words(data: bytes) -> str | None:
    """``data`` as UTF-8 text when it reads as words (mostly letters and spaces), else None."""
    try:
        read = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    spelled = sum(c.isalpha() or c == " " for c in read)
    return read if len(read) >= 4 and spelled >= 0.8 * len(read) else None


BACKSLASH = re.compile(
    r"\\(?:u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|[0-7]{2,3}|N\{[A-Za-z0-9 \-]{1,88}\})"
)
r"""A backslash escape of a code point: ``\u``, ``\U``, ``\x``, octal of two or three digits
(``\40``; one digit is left, so ``\1`` that NFKC makes of ``\¹`` is no escape) or by name (``\N{..}``)."""

_LINE_ESCAPES: tuple[tuple[re.Pattern[str], Callable[[str], str]], ...] = (
    (re.compile(r"%(?:u[0-9A-Fa-f]{4}|[0-9A-Fa-f]{2})"), lambda line: _percent(line)),
    (HTML_REFERENCE, html.unescape),
    (BACKSLASH, lambda line: unescape_backslashes(line)),
    (
        re.compile(r"=[0-9A-F]{2}"),
        lambda line: quopri.decodestring(line.encode("utf-8")).decode("utf-8", errors="replace"),
    ),
)
"""Each escape a line may hold, with how the line reads decoded."""


def _percent(line: str) -> str:
    """A line percent-decoded, ``%u006e`` (JavaScript's ``escape``) too."""
    wide = re.sub(r"%u([0-9A-Fa-f]{4})", lambda match: _code_point(int(match.group(1), 16), match), line)
    return urllib.parse.unquote(wide, errors="replace")


def unescape_backslashes(text: str) -> str:
    r"""``text`` with every `BACKSLASH` escape read as the character it names.

    Example:
        >>> print(unescape_backslashes(r"\156\x65\u0072ve\40\N{LATIN SMALL LETTER A}gent"))
        nerve agent

    """
    return BACKSLASH.sub(_backslashed, text)


def _backslashed(match: re.Match[str]) -> str:
    escape = match.group(0)[1:]
    if escape.startswith("N{"):  # a named escape (Python's \N{LATIN SMALL LETTER N})
        try:
            return unicodedata.lookup(escape[2:-1])
        except KeyError:
            return match.group(0)
    code = int(escape[1:], 16) if escape[0] in "uUx" else int(escape, 8)
    return _code_point(code, match)


def _code_point(code: int, match: re.Match[str]) -> str:
    return chr(code) if code < 0x110000 and not 0xD800 <= code <= 0xDFFF else match.group(0)


_CONTINUED = re.compile(r"(?<=\w)[=\-\\]\r?\n[ \t]{0,8}(?=\w)")
"""A word continued on the next line: a quoted-printable soft break, a hyphen, a backslash."""


def _continued(text: str) -> Iterator[str]:
    if _CONTINUED.search(text):
        joined = _CONTINUED.sub("", text)
        yield (
            quopri.decodestring(joined.encode("utf-8")).decode("utf-8", "replace") if "=" in text else joined
        )
        yield joined


_BIT_RUN = re.compile(r"[01]{32,}")


def _bit_runs(text: str) -> Iterator[str]:
    """A run of bits written with no separator, read as bytes at each of the eight alignments."""
    for match in _BIT_RUN.finditer(text):
        for start in range(8):
            bits = match.group(0)[start:]
            data = bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits) - len(bits) % 8, 8))
            read = _words(data)
            if read is not None:
                yield read


def _escaped_lines(text: str) -> Iterator[str]:
    for pattern, decode in _LINE_ESCAPES:
        for line in text.splitlines():
            if pattern.search(line):
                yield decode(line)


_NUMBER = re.compile(r"(?:0[xX]|[uU]\+)[0-9A-Fa-f]{1,6}|\d{1,7}")
_PAIR = re.compile(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{2}(?![0-9A-Za-z])")


def _runs(text: str, pattern: re.Pattern[str]) -> Iterator[list[str]]:
    """Runs of four or more tokens of ``pattern``, each apart from the next by one separator repeated."""
    run: list[re.Match[str]] = []
    apart: str | None = None
    for token in pattern.finditer(text):
        if run:
            gap = text[run[-1].end() : token.start()]
            if 0 < len(gap) <= 12 and apart in (None, gap):
                apart = gap
                run.append(token)
                continue
            if len(run) >= 4:
                yield [t.group(0) for t in run]
        run, apart = [token], None
    if len(run) >= 4:
        yield [t.group(0) for t in run]


def _separated_codes(text: str) -> Iterator[str]:
    """Character codes (decimal, ``0x`` or ``U+``) or hex bytes apart by any one separator repeated."""
    for run in _runs(text, _NUMBER):
        codes = [int(token, 10) if token.isdigit() else int(token[2:], 16) for token in run]
        if all(9 <= code < 0x110000 and not 0xD800 <= code <= 0xDFFF for code in codes):
            read = "".join(chr(code) for code in codes)
            if read.isprintable():
                yield read
    for run in _runs(text, _PAIR):
        spelled = _words(bytes.fromhex("".join(run)))
        if spelled is not None:
            yield spelled


_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]+")
"""Control characters (but tab and line breaks): a screen shows them as nothing."""


def _controls_removed(text: str) -> Iterator[str]:
    """``text`` as a screen shows it when a control character stands inside a word: not there at all."""
    yield _CONTROLS.sub("", text)


def _non_ascii(text: str) -> bool:
    return not text.isascii()


_SHOWN_SIGNS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f*~`<\]_]|==")
"""An ASCII text may hide a display spelling only when it holds a control character or markup."""


SPELLINGS: tuple[tuple[str, Callable[[str], Iterator[str]], Callable[[str], bool]], ...] = (
    ("as shown", _as_shown, lambda text: not text.isascii() or _SHOWN_SIGNS.search(text) is not None),
    ("controls removed", _controls_removed, lambda text: _CONTROLS.search(text) is not None),
    ("joined literals", _joined_literals, lambda text: sum(text.count(quote) for quote in "\"'`") >= 2),
    ("spaced letters", _spaced_letters, lambda text: True),
    ("braille", _braille, _non_ascii),
    (
        "morse",
        _morse,
        lambda text: any(sign in text for sign in "-._\u00b7\u2022\u2219\u22c5\u2212\u2013\u2014"),
    ),
    ("NATO alphabet", _nato, lambda text: True),
    ("base32", _base32, lambda text: True),
    ("base85", _base85, lambda text: True),
    ("escaped line", _escaped_lines, lambda text: any(sign in text for sign in "%&\\=")),
    ("separated codes", _separated_codes, lambda text: any(c.isdigit() for c in text)),
    ("continued lines", _continued, lambda text: "\n" in text),
    ("bits", _bit_runs, lambda text: "0" in text and "1" in text),
)
"""Each spelling a string may hide text in, by label, with a cheap test of whether it may (each reader is
exact)."""
