r"""The payload of a typed media field of a media block, read by its bytes (pure).

- `read_media`: an image, audio or video file by its bytes (the judge is shown a
  note: it cannot see pixels or hear sound; bytes that also read as text are
  judged), the text of a PDF (pypdf; its header anywhere a reader finds it, in
  the first 1,024 bytes), or None when it is neither (then it is judged as text,
  like any string);
- `payload_text`: the text a media field's payload decodes to, however short.
"""

from __future__ import annotations

import io
import re
import urllib.parse
from dataclasses import dataclass

import filetype

from langchain_jev._errors import GuardrailBudgetError, JevInputError
from langchain_jev.guardrails._bytes import as_text
from langchain_jev.guardrails._text import _DATA_URL, _b64

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_DOCUMENT_PAGES", "Media", "payload_text", "read_media"]

MAX_DOCUMENT_BYTES = 64 * 2**20
"""The largest document (PDF) whose text is read; a larger one refuses (it is never cut)."""

MAX_DOCUMENT_PAGES = 2_000
"""The most pages of a document (PDF) whose text is read; more refuses."""


@dataclass(frozen=True)
class Media:
    """What the payload of a media field is: its kind, MIME type and size, and a document's text."""

    kind: str
    """``"image"``, ``"audio"``, ``"video"`` (the judge cannot see it), or ``"document"`` (text judged)."""
    mime: str
    """Its MIME type, by its bytes."""
    size: int
    """Its size in bytes."""
    text: str | None = None
    """A document's text; for an image, audio or video file, its bytes as text when they read as text
    (a file made to pass for media and for text at once), else None."""

    def describe(self) -> str:
        """The note the battery is shown in the payload's place."""
        if self.kind == "document":
            return f"[{self.mime}, {self.size} bytes; its text:]\n{self.text or ''}"
        note = f"[{self.mime}, {self.size} bytes: {self.kind} the safety check cannot see]"
        return f"{note[:-1]}; its bytes read as text:]\n{self.text}" if self.text else note


_PDF_HEADER = b"%PDF-"
_PDF_HEADER_WITHIN = 1_024
"""PDF readers find the header anywhere in a file's first 1,024 bytes, not only at its start."""


def _payload_bytes(value: str) -> bytes | None:
    """The bytes of a media field's value: a ``data:`` URL or bare base64; None when it is neither."""
    match = _DATA_URL.fullmatch(value.strip())
    if match is not None:
        params = [p.strip().lower() for p in match.group(2).split(";")]
        body = match.group(3)
        return _b64(body) if "base64" in params else urllib.parse.unquote_to_bytes(body)
    if not value.strip() or not re.fullmatch(r"[A-Za-z0-9+/_\-\s]+={0,2}\s*", value):
        return None
    return _b64(value)


def payload_text(value: str) -> str | None:
    """The text a typed media field's payload (a ``data:`` URL or bare base64) decodes to, or None.

    A media field holds an encoding whatever its length, so its payload is decoded
    as it is, without the guesses that tell a short run of base64 from a word.

    Example:
        >>> payload_text("IG5lcnZlIGFnZW50IMOp"), payload_text("not base64!")
        (' nerve agent é', None)

    """
    data = _payload_bytes(value)
    return as_text(data, declared=True) if data else None


def _pdf_text(data: bytes) -> str:
    """The text of a PDF, every page; an unreadable, too large or too long document refuses."""
    import pypdf  # a dependency, imported when a document is read (importing it costs ~0.1 s)
    from pypdf.errors import PyPdfError

    if len(data) > MAX_DOCUMENT_BYTES:
        raise GuardrailBudgetError(
            f"a PDF of {len(data)} bytes is larger than {MAX_DOCUMENT_BYTES}",
            size=len(data),
            budget=MAX_DOCUMENT_BYTES,
        )
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise JevInputError("an encrypted PDF, which the check cannot read")
        pages = reader.pages
        if len(pages) > MAX_DOCUMENT_PAGES:
            raise GuardrailBudgetError(
                f"a PDF of {len(pages)} pages is longer than {MAX_DOCUMENT_PAGES}",
                size=len(pages),
                budget=MAX_DOCUMENT_PAGES,
            )
        return "\n\n".join(page.extract_text() or "" for page in pages)
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as error:
        if isinstance(error, JevInputError):
            raise
        raise JevInputError(f"a PDF the check cannot read ({type(error).__name__})") from None


def read_media(value: str) -> Media | None:
    r"""What the payload of a typed media field is, by its bytes; None when it is not media (read as text).

    An image, audio or video file (by its leading bytes) is media the judge cannot
    see; a PDF is a document whose text is read (pypdf). Anything else, a payload
    that does not decode, or decodes to text, is not media: it is judged as text,
    with what it decodes to beside it.

    Raises:
        JevInputError: a PDF that cannot be read (malformed, encrypted).
        GuardrailBudgetError: a PDF over `MAX_DOCUMENT_BYTES` or `MAX_DOCUMENT_PAGES`.

    Example:
        >>> import base64
        >>> png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
        >>> read_media(png).describe()
        '[image/png, 48 bytes: image the safety check cannot see]'
        >>> read_media(base64.b64encode(b"a plain text file, not media").decode()) is None
        True

    """
    data = _payload_bytes(value)
    if not data:
        return None
    if _PDF_HEADER in data[:_PDF_HEADER_WITHIN]:  # where a PDF reader looks, whatever bytes lead
        return Media("document", "application/pdf", len(data), _pdf_text(data))
    kind = filetype.guess(data)
    if kind is None:
        return None
    mime = str(kind.mime)
    family = mime.split("/", 1)[0]
    if family in ("image", "audio", "video"):
        # a file that also reads as text is judged; the runs inside a picture are not what a model reads
        return Media(family, mime, len(data), as_text(data, within=False))
    return None
