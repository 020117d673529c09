"""Errors raised by langchain-jev.

Every error is a subclass of `JevError`, so a caller can catch the package's own
failures at one level. Configuration mistakes are also `ValueError`s, and a
decision model that cannot be reached raises the provider's own error unchanged.
"""

from __future__ import annotations

__all__ = ["JevConfigurationError", "JevError", "JevInputError", "MissingCredentialsError"]


class JevError(Exception):
    """Base class of the errors raised by langchain-jev.

    Example:
        >>> from langchain_jev import JevJudge
        >>> try:
        ...     JevJudge([])
        ... except JevError as error:
        ...     print(type(error).__name__)
        JevConfigurationError

    """


class JevConfigurationError(JevError, ValueError):
    """A judge, criterion or decision model was built with invalid settings.

    The message names the offending criterion, field or value.

    Example:
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion
        >>> JevCriterion.noul("ok", Noul(instructions="Is it fine?"), 1.5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev.errors.JevConfigurationError: criterion 'ok': minimum must be between 0 and 1, ...

    """


class JevInputError(JevError, TypeError):
    """A state or judge input cannot be read as the judge needs it.

    Example:
        >>> from langchain_jev import JevJudgeInput
        >>> JevJudgeInput.of(["not", "an", "object"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev.errors.JevInputError: the state must be a JSON object ... got list

    """


class MissingCredentialsError(JevConfigurationError):
    """No API key was found for the default Jev decision model.

    Example:
        >>> import os
        >>> from langchain_jev import JevDecisionModel
        >>> os.environ.pop("TYPESAFE_API_KEY", None) and None
        >>> JevDecisionModel()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        langchain_jev.errors.MissingCredentialsError: no API key for Jev: set TYPESAFE_API_KEY...

    """
