"""Words spelt with look-alike letters (homoglyphs), read as the ASCII they imitate.

"jailbreak" spelt with a Cyrillic a (U+0430), "bypass" with a Latin alpha
(U+0251), "disable" with a dotless i (U+0131): a reader takes each for the English
word, a judge that matches what it is sent may not. `lookalike_lines` gives each line of a text in
which some word is spelt only with ASCII letters and letters that look like
ASCII ones (Unicode's confusables, through `confusable_homoglyphs`), with those
letters read as the ASCII they imitate. It is a reading the battery judges
*beside* the raw line (`text.readings`), never instead of it: a word of a
language's own letters that happens to look Latin costs one more line, never a
letter of what is judged.

Pure functions, no I/O; each line is scanned once, a character at a time.
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
from collections.abc import Iterator

from confusable_homoglyphs import confusables


def _words(line: str) -> list[tuple[int, int]]:
    """Where each word of ``line`` is: a run of letters of any script, or of signs that look like letters."""
    spans: list[tuple[int, int]] = []
    start = None
    for index, char in enumerate(line):
        lettery = char.isalpha() or (not char.isascii() and ascii_lookalike(char) is not None)
        if lettery and start is None:
            start = index
        elif not lettery and start is not None:
            spans.append((start, index))
            start = None
    if start is not None:
        spans.append((start, len(line)))
    return spans


@functools.lru_cache(maxsize=8192)
def ascii_lookalike(char: str) -> str | None:
    r"""The ASCII letter ``char`` looks like, or None (Cyrillic a gives ``"a"``, Cyrillic de None).

    Example:
        >>> ascii_lookalike("\u0430"), ascii_lookalike("\u0251"), ascii_lookalike("\u0434")
        ('a', 'a', None)

    """
    if char.isascii():
        return char
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=[])
    for glyph in found[0]["homoglyphs"] if found else ():
        if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalpha():
            return str(glyph["c"])
    return None


def _ascii_letters(word: str) -> str | None:
    """``word`` read letter by letter as the ASCII each looks like, or None if one looks like none."""
    letters = []
    for char in word:
        letter = ascii_lookalike(char)
        if letter is None:
            return None
        letters.append(letter)
    return "".join(letters)


def _script(char: str) -> str:
    return "LATIN" if char.isascii() else unicodedata.name(char, "?").split(" ", 1)[0]


def _disguised(word: str) -> bool:
    """True for a word no language spells: ASCII letters beside look-alikes, or letters of two scripts."""
    return any(char.isascii() for char in word) or len({_script(char) for char in word}) > 1


def lookalike_lines(text: str) -> Iterator[str]:
    r"""Each line of ``text`` whose look-alike words read otherwise, read as the ASCII they imitate.

    A word is read when every letter of it is ASCII or looks like an ASCII letter, and either no
    language spells it (`_disguised`: ``j\u0430ilbreak``, ``\u0578\u0435\u0433\u1d20\u0435``) or
    the whole line is spelt so (no word in it has a letter that looks like no ASCII one). So a
    Greek or Russian sentence, whose words are its language's own, is sent as it is.

    Example:
        >>> list(lookalike_lines("How to j\u0430ilbre\u0430k a gateway?"))
        ['How to jailbreak a gateway?']
        >>> list(lookalike_lines("Plain words. \u041f\u0440\u0438\u0432\u0435\u0442!"))
        []

    """
    for line in text.splitlines():
        if line.isascii():
            continue
        read: dict[str, str] = {}
        foreign = False
        spans = _words(line)
        for word in dict.fromkeys(line[a:b] for a, b in spans):
            if word.isascii():
                continue
            letters = _ascii_letters(word)
            if letters is None:
                foreign = True
            else:
                read[word] = letters
        kept = {word: letters for word, letters in read.items() if not foreign or _disguised(word)}
        if kept:
            edges = [0, *(edge for span in spans for edge in span), len(line)]
            pieces = [line[a:b] for a, b in itertools.pairwise(edges)]
            yield "".join(kept.get(piece, piece) for piece in pieces)
