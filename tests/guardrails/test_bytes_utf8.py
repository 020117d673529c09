"""Reading bytes as UTF-8, whole and with stray edge bytes cut, shares one decoding and reads as before.

Invariant: `_bytes._utf8` yields exactly what the three separate decodings did (the whole, then the
first cut of up to three bytes from either end that reads, in the same order), and the quick check
(`_may_be_utf8_within`) never rules out bytes a cut reads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hypothesis import example, given, settings
from hypothesis import strategies as st

from langchain_jev.guardrails._bytes import _first_error, _may_be_utf8_within, _utf8, _utf8_within

_AT_LEAST = 12


def _cuts(data: bytes) -> Iterator[str]:
    """Every cut in order, decoded by itself: the reading as it was first written, one decoding a cut."""
    for head in range(4):
        for tail in range(4):
            if head + tail and len(data) - head - tail >= _AT_LEAST:
                with contextlib.suppress(UnicodeDecodeError):
                    yield data[head : len(data) - tail].decode("utf-8")


def _first_cut(data: bytes) -> list[str]:
    return [] if len(data) < _AT_LEAST + 2 else [*_cuts(data)][:1]


def _reference(data: bytes) -> list[str]:
    whole = []
    with contextlib.suppress(UnicodeDecodeError):
        whole.append(data.decode("utf-8"))
    return whole + _first_cut(data)


_stray = st.binary(max_size=3)
_text = st.text(min_size=0, max_size=40).map(lambda text: text.encode("utf-8", "surrogatepass"))


@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(
        st.tuples(_stray, _text, _stray).map(b"".join),
        st.tuples(_text, st.binary(min_size=1, max_size=2), _text).map(b"".join),
        st.binary(min_size=0, max_size=40),
    )
)
@example(b"\x80" + b"nerve agent at home" + b"\xe2\x82")
@example(b"nerve agent at home" + b"\x80")
@example("é".encode() * 8)
def test_reading_as_utf8_is_what_each_decoding_by_itself_read(data: bytes) -> None:
    assert list(_utf8(data)) == _reference(data)
    assert list(_utf8_within(data)) == list(_utf8_within(data, _first_error(data))) == _first_cut(data)
    if any(True for _ in _cuts(data)):
        assert _may_be_utf8_within(data)
