"""The retrieved documents of a run, as text: in its outputs, else in its retriever child runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langsmith.schemas import RunBase

from langchain_jev._errors import JevInputError
from langchain_jev._runs.keys import CONTEXT_KEYS
from langchain_jev._runs.values import descendants, first_key, is_document

__all__ = ["context_from_outputs", "documents_text", "retrieved_context"]


def context_from_outputs(outputs: Mapping[str, Any]) -> list[str] | None:
    """The documents in run outputs under `CONTEXT_KEYS`, as text; None when there is no such key.

    Raises:
        JevInputError: a document is neither a ``Document``, a mapping with its text,
            nor a string (the message names the key and the position).

    Example:
        >>> from langchain_core.documents import Document
        >>> context_from_outputs({"documents": [Document("Paris is in France."), "It is big."]})
        ['Paris is in France.', 'It is big.']

    """
    key = first_key(outputs, CONTEXT_KEYS)
    if key is None:
        return None
    return documents_text(outputs[key], where=f"outputs[{key!r}]")


def documents_text(value: Any, *, where: str = "documents") -> list[str]:
    """Read retrieved documents as text: one entry per document.

    Accepts a string, a ``Document``, a mapping with ``page_content`` (also the
    serialized ``{"lc": 1, "kwargs": {"page_content": ...}}`` form), ``content``
    or ``text``, or a list of these.

    Raises:
        JevInputError: an entry cannot be read as text; ``where`` names it.

    Example:
        >>> documents_text([{"page_content": "a", "metadata": {}}, {"text": "b"}])
        ['a', 'b']

    """
    items = [value] if isinstance(value, (str, Mapping)) or is_document(value) else value
    if not isinstance(items, Sequence):
        raise JevInputError(
            f"{where} must be a list of documents, a document or a string, got {type(value).__name__}"
        )
    texts: list[str] = []
    for index, item in enumerate(items):
        text = _document_text(item)
        if text is None:
            raise JevInputError(
                f"{where}[{index}] is a {type(item).__name__}: expected a Document, a mapping "
                "with 'page_content', 'content' or 'text', or a string"
            )
        texts.append(text)
    return texts


def retrieved_context(run: RunBase) -> list[str]:
    """The documents returned by the retriever runs under ``run``, in the order they ran.

    Example:
        >>> import uuid
        >>> from langsmith.run_trees import RunTree
        >>> root = RunTree(name="rag", run_type="chain", inputs={"question": "q"})
        >>> retriever = root.create_child(name="search", run_type="retriever", inputs={"query": "q"})
        >>> retriever.end(outputs={"documents": [{"page_content": "Paris is in France."}]})
        >>> retrieved_context(root)
        ['Paris is in France.']

    """
    texts: list[str] = []
    for child in descendants(run, stop_at=("retriever",)):
        if child.run_type == "retriever":
            documents = (child.outputs or {}).get("documents")
            if documents is not None:
                texts.extend(documents_text(documents, where=f"retriever run {child.name!r}"))
    return texts


def _document_text(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if is_document(item):
        return str(item.page_content)
    if isinstance(item, Mapping):
        kwargs = item.get("kwargs")
        if item.get("lc") == 1 and isinstance(kwargs, Mapping):
            item = kwargs
        for key in ("page_content", "content", "text"):
            if isinstance(item.get(key), str):
                return str(item[key])
    return None
