"""Deploy a judge as a LangSmith online evaluator: one decision-model rule on a project or dataset.

`deploy` / `adeploy` build the rule (`langchain_jev.online.decision_rule`, pure),
warn about what stays with the package, look the project or dataset up by name,
and create the rule with the generated LangSmith client's
``evaluators.create_decision_model`` (``POST /api/v1/runs/rules/decision-models``;
``langsmith.Langsmith`` / ``AsyncLangsmith``, not ``langsmith.Client``). With
``dry_run=True`` nothing is sent: the `Deployment` holds the body it would send.

The LangSmith key never appears in what this module returns, raises or warns:
the client's key is known as a secret, and an error of the API is redacted.

Example:
    >>> from langchain_core.decisions import Noul
    >>> from langchain_jev import JevCriterion, JevJudge
    >>> polite = Noul(instructions="Is `assistant_answer` polite?")
    >>> judge = JevJudge([JevCriterion.noul("polite", polite, 0.7)], model="jev:jev-latest")
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", JevDeployWarning)
    ...     planned = deploy(judge, project="support-bot", sampling_rate=0.1, dry_run=True)
    >>> planned.body["questions"]["polite"]["type"], planned.body["sampling_rate"], planned.evaluator
    ('noul', 0.1, None)

"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from typing_extensions import Unpack

from langchain_jev._errors import JevConfigurationError, JevError, MissingCredentialsError, checked_number
from langchain_jev.models._secrets import install_log_filter, redact_error, remember_secret
from langchain_jev.online._rule import DecisionRule, decision_rule

if TYPE_CHECKING:
    from langsmith import AsyncLangsmith, Langsmith

    from langchain_jev._judge import JevJudge

__all__ = ["Deployment", "JevDeployWarning", "RuleOptions", "adeploy", "deploy"]

_KEY_ENV = "LANGSMITH_API_KEY"
_GROUP_BY = "thread_id"


class JevDeployWarning(UserWarning):
    """Part of a deployed judge stays with the package (thresholds, the verdict, code checks).

    Each warning names the criteria affected; `Deployment.notes` holds the same text.
    Make it an error where a deploy must carry the whole judge:

    Example:
        >>> import warnings
        >>> warnings.filterwarnings("error", category=JevDeployWarning)
        >>> issubclass(JevDeployWarning, UserWarning)
        True
        >>> warnings.resetwarnings()

    """


@dataclass(frozen=True)
class Deployment:
    """A judge deployed as a LangSmith rule (or, on a dry run, the rule it would be).

    Example:
        >>> import warnings
        >>> from langchain_core.decisions import Noul
        >>> from langchain_jev import JevCriterion, JevJudge
        >>> polite = JevCriterion.noul("polite", Noul(instructions="Polite?"), 0.7)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", JevDeployWarning)
        ...     planned = deploy(JevJudge([polite], model="jev:jev-2"), dataset="qa", dry_run=True)
        >>> planned.target, planned.id, len(planned.notes)
        (('dataset', 'qa'), None, 1)

    """

    rule: DecisionRule
    """The rule the judge became: questions, prompt, variable mapping, model, notes."""
    target: tuple[Literal["project", "dataset"], str]
    """Where the rule runs: ``("project", name)`` or ``("dataset", name)``."""
    body: Mapping[str, Any]
    """The request body: the rule's, the target's id (once looked up), sampling, filter, grouping."""
    evaluator: Any = None
    """The rule LangSmith created (``langsmith.types.Evaluator``); None on a dry run."""

    @property
    def id(self) -> str | None:
        """The created rule's id; None on a dry run."""
        return None if self.evaluator is None else str(self.evaluator.id)

    @property
    def notes(self) -> tuple[str, ...]:
        """What the package decides and the rule does not (`DecisionRule.notes`)."""
        return self.rule.notes


class RuleOptions(TypedDict, total=False):
    """What `deploy` and `adeploy` take to plan the rule (each optional; `deploy` documents them)."""

    project: str | None
    dataset: str | None
    sampling_rate: float | None
    filter: str | None
    threads: bool
    variable_mapping: Mapping[str, str] | None
    display_name: str | None


def deploy(
    judge: JevJudge, *, dry_run: bool = False, client: Langsmith | None = None, **options: Unpack[RuleOptions]
) -> Deployment:
    """Deploy ``judge`` as a LangSmith decision-model rule on a project's runs or a dataset's experiments.

    Args:
        judge: the judge; each question criterion becomes a rule question (feedback
            key) under its name, and its decision model is the rule's.
        project: the tracing project whose runs the rule judges (by name).
        dataset: the dataset whose experiments it judges (by name), instead of a project.
        sampling_rate: the fraction of runs judged, above 0 and at most 1 (LangSmith's
            default, every run, when None).
        filter: a LangSmith run filter (``eq(is_root, true)``); only matching runs are judged.
        threads: judge each thread once it goes idle, as one, instead of each run
            (``group_by="thread_id"``; a project only).
        variable_mapping: prompt variable -> run field, over the defaults
            (`langchain_jev.online.DEFAULT_MAPPING`).
        display_name: the rule's name (by default named after the judge's questions).
        dry_run: build and return the body, send nothing (no look-up either).
        client: a ``langsmith.Langsmith``; by default one from the environment
            (``LANGSMITH_API_KEY``, and ``LANGCHAIN_BASE_URL`` or ``LANGSMITH_ENDPOINT``).

    Returns:
        The `Deployment`: the rule, its body and (unless ``dry_run``) what LangSmith created.

    Raises:
        JevConfigurationError: the judge cannot travel (`decision_rule` says why, naming
            each criterion), an argument is malformed, or no project / dataset has the name.
        MissingCredentialsError: no client was given and ``LANGSMITH_API_KEY`` is not set.
        langsmith.APIError: LangSmith refused or could not be reached (redacted).

    Warns:
        JevDeployWarning: one per note (thresholds and the verdict, code checks).

    Example:
        >>> from langsmith import Langsmith  # doctest: +SKIP
        >>> rule = deploy(judge, project="support-bot", sampling_rate=0.1,  # doctest: +SKIP
        ...               client=Langsmith(api_key="lsv2_..."))
        >>> rule.id  # doctest: +SKIP
        '6f1c...'

    """
    planned = _plan(judge, **options)
    if dry_run:
        return planned
    with _sync_client() if client is None else nullcontext(_checked(client, asynchronous=False)) as langsmith:
        try:
            body = _sent_body(planned, _found(planned, _listing(langsmith, planned)))
            return replace(planned, body=body, evaluator=langsmith.evaluators.create_decision_model(**body))
        except Exception as error:  # the API may echo what it was sent; nothing leaves unredacted
            failure = _failure(error)
    raise failure


async def adeploy(
    judge: JevJudge,
    *,
    dry_run: bool = False,
    client: AsyncLangsmith | None = None,
    **options: Unpack[RuleOptions],
) -> Deployment:
    """Asynchronous `deploy`, with a ``langsmith.AsyncLangsmith`` client.

    Example:
        >>> from langsmith import AsyncLangsmith  # doctest: +SKIP
        >>> async with AsyncLangsmith() as langsmith:  # doctest: +SKIP
        ...     rule = await adeploy(judge, project="support-bot", client=langsmith)

    """
    planned = _plan(judge, **options)
    if dry_run:
        return planned
    async with (
        _async_client() if client is None else _AsyncHeld(_checked(client, asynchronous=True)) as langsmith
    ):
        try:
            body = _sent_body(planned, _found(planned, await _listing(langsmith, planned)))
            created = await langsmith.evaluators.create_decision_model(**body)
            return replace(planned, body=body, evaluator=created)
        except Exception as error:  # the API may echo what it was sent; nothing leaves unredacted
            failure = _failure(error)
    raise failure


def _plan(
    judge: JevJudge,
    *,
    project: str | None = None,
    dataset: str | None = None,
    sampling_rate: float | None = None,
    filter: str | None = None,
    threads: bool = False,
    variable_mapping: Mapping[str, str] | None = None,
    display_name: str | None = None,
) -> Deployment:
    """The rule and its body, checked, with the warnings given; nothing is sent."""
    target = _target(project, dataset)
    if threads is not True and threads is not False:
        raise JevConfigurationError(f"threads must be True or False, got {threads!r}")
    if threads and target[0] == "dataset":
        raise JevConfigurationError(
            "threads=True groups a project's runs by thread; a dataset's experiments have no threads"
        )
    rule = decision_rule(
        judge, variable_mapping=variable_mapping, display_name=display_name, reference=target[0] == "dataset"
    )
    body = rule.body()
    if sampling_rate is not None:
        body["sampling_rate"] = _rate(sampling_rate)
    if filter is not None:
        if not isinstance(filter, str) or not filter.strip():
            raise JevConfigurationError(f"filter must be a LangSmith run filter (text), got {filter!r}")
        body["filter"] = filter.strip()
    if threads:
        body["group_by"] = _GROUP_BY
    for note in rule.notes:
        warnings.warn(note, JevDeployWarning, stacklevel=3)
    return Deployment(rule, target, body)


def _target(project: str | None, dataset: str | None) -> tuple[Literal["project", "dataset"], str]:
    if (project is None) == (dataset is None):
        raise JevConfigurationError(
            "deploy needs one target: project= (a tracing project's runs) or dataset= "
            "(a dataset's experiments)"
        )
    kind: Literal["project", "dataset"] = "project" if project is not None else "dataset"
    name = project if project is not None else dataset
    if not isinstance(name, str) or not name.strip():
        raise JevConfigurationError(f"{kind} must be the {kind}'s name, got {name!r}")
    return kind, name.strip()


def _rate(value: Any) -> float:
    message = f"sampling_rate must be above 0 and at most 1, got {value!r}"
    return checked_number(value, lambda rate: 0.0 < rate <= 1.0, message)


def _listing(client: Any, planned: Deployment) -> Any:
    """The request that looks the target up by its exact name (a page, or its awaitable)."""
    kind, name = planned.target
    resource = client.sessions if kind == "project" else client.datasets
    return resource.list_v2(name=name, page_size=2)


def _found(planned: Deployment, page: Any) -> str:
    kind, name = planned.target
    for item in getattr(page, "items", None) or ():
        if getattr(item, "name", None) == name and getattr(item, "id", None):
            return str(item.id)
    raise JevConfigurationError(f"LangSmith has no {kind} named {name!r} (looked up by its exact name)")


def _sent_body(planned: Deployment, found: str) -> dict[str, Any]:
    """The body sent: the planned one, with the target's id."""
    return {**planned.body, "session_id" if planned.target[0] == "project" else "dataset_id": found}


def _failure(error: Exception) -> BaseException:
    """The error to raise: the package's own as it is, anything else (LangSmith's) redacted."""
    return error if isinstance(error, JevError) else redact_error(error)


class _AsyncHeld:
    """A client the caller gave, held for an ``async with`` that leaves it open."""

    def __init__(self, client: Any) -> None:
        self._client = client

    async def __aenter__(self) -> Any:
        return self._client

    async def __aexit__(self, *exc: object) -> None:
        return None


def _checked(client: Any, *, asynchronous: bool) -> Any:
    from langsmith import AsyncLangsmith, Langsmith

    expected = AsyncLangsmith if asynchronous else Langsmith
    if not isinstance(client, expected):
        raise JevConfigurationError(
            f"client must be a langsmith.{expected.__name__} (the generated client, whose evaluators "
            f"create rules), got {type(client).__name__}"
        )
    remember_secret(client.api_key)
    install_log_filter()  # the client's debug logs name what it sends
    return client


def _settings() -> dict[str, Any]:
    """The own client's settings: its key from ``LANGSMITH_API_KEY``, its URL as LangSmith users set it."""
    key = os.environ.get(_KEY_ENV)
    if not key:
        raise MissingCredentialsError(
            f"no LangSmith API key: set {_KEY_ENV}, or pass client=langsmith.Langsmith(api_key=...)"
        )
    remember_secret(key)
    install_log_filter()  # the client's debug logs name what it sends
    # the generated client reads LANGCHAIN_BASE_URL; the tracing client's LANGSMITH_ENDPOINT is the usual one
    endpoint = None if os.environ.get("LANGCHAIN_BASE_URL") else os.environ.get("LANGSMITH_ENDPOINT")
    return {"api_key": key, "base_url": endpoint or None}


def _sync_client() -> Langsmith:
    from langsmith import Langsmith

    return Langsmith(**_settings())


def _async_client() -> AsyncLangsmith:
    from langsmith import AsyncLangsmith

    return AsyncLangsmith(**_settings())
