"""A simulated user read from a row: a dataset's row, or a LangSmith example's inputs.

`user_from_row` is the one reading of a row for both the command line
(``langchain-jev simulate``) and `simulation_target`: ``persona`` and ``goal``
steer the user's model, ``script`` (a list of texts, or one text; in a CSV cell,
a JSON array) gives its fixed first turns. Pure: a row and a model in, a
`UserModel` or a `JevInputError` naming the field out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_jev._errors import JevInputError
from langchain_jev.simulation._user import UserModel, simulated_user

__all__ = ["GOAL_FIELD", "PERSONA_FIELD", "SCRIPT_FIELD", "user_from_row"]

PERSONA_FIELD = "persona"
"""The column (or input) saying who the user is."""
GOAL_FIELD = "goal"
"""The column (or input) saying what the user wants."""
SCRIPT_FIELD = "script"
"""The column (or input) holding the user's fixed first turns."""


def user_from_row(row: Mapping[str, Any], model: Any = None) -> UserModel:
    """The user a row describes: its ``script`` first, then ``model`` playing ``persona`` after ``goal``.

    Raises:
        JevInputError: a field that is not text (or, for ``script``, a list of texts), or a row
            with no script that needs a model none was given for.

    Example:
        >>> user = user_from_row({"goal": "A refund", "script": '["Hi.", "Order 42."]'})
        >>> user.script, user.goal
        (('Hi.', 'Order 42.'), 'A refund')
        >>> user_from_row({"persona": "A student"})
        Traceback (most recent call last):
        ...
        langchain_jev._errors.JevInputError: no 'script' and no user model: ...

    """
    persona = _text(row, PERSONA_FIELD)
    goal = _text(row, GOAL_FIELD)
    script = _script(row.get(SCRIPT_FIELD))
    if not script and model is None:
        raise JevInputError(
            f"no {SCRIPT_FIELD!r} and no user model: a row without fixed turns needs a model to play "
            f"its {PERSONA_FIELD!r} and {GOAL_FIELD!r} (--user-model on the command line)"
        )
    return simulated_user(model, persona=persona, goal=goal, script=script)


def _text(row: Mapping[str, Any], name: str) -> str | None:
    value = row.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise JevInputError(f"{name!r} must be text, got {type(value).__name__}: {value!r:.60}")
    return value


def _script(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):  # a CSV cell holding a JSON array
            try:
                value = json.loads(text)
            except ValueError:
                raise JevInputError(
                    f"{SCRIPT_FIELD!r} looks like a JSON array but is not one: {text:.60}"
                ) from None
        else:
            return [value] if text else []
    if not isinstance(value, list):
        raise JevInputError(
            f"{SCRIPT_FIELD!r} must be a text or a list of texts, got {type(value).__name__}: {value!r:.60}"
        )
    for index, line in enumerate(value):
        if not isinstance(line, str) or not line.strip():
            raise JevInputError(f"{SCRIPT_FIELD}[{index}] must be a non-empty text, got {line!r:.60}")
    return list(value)
