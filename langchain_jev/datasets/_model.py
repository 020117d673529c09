"""The decision model the command line judges with, built from plain settings.

`ModelSettings` holds the options that describe the model (all JSON-ready, so a
worker process receives them as they are and builds the same model), and
`build_model` turns them into a decision model: Jev through typesafe-sdk, or a
chat model; paced by a rate limiter when one is given; answered from a SQLite
cache when ``cache`` names one. The API key is never among the settings: every
process reads it from its own environment.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from langchain_jev._errors import JevConfigurationError, MissingCredentialsError

if TYPE_CHECKING:  # kept out of the import, which worker start-up and --help wait for
    from langchain_core.decisions import BaseDecisionModel

    from langchain_jev.datasets._pacing import RateLimiter

__all__ = [
    "ModelSettings",
    "build_model",
    "cache_failure",
    "close_all",
    "described_model",
    "model_identity",
    "model_problem",
    "no_key_message",
]

NO_KEY = (
    "no API key for Jev: set TYPESAFE_API_KEY in the environment (for a Jev-compatible server of "
    "your own, any key its --base-url accepts), or judge with a chat model: --model provider:model. "
    "To try the command without a key: python -m langchain_jev.testing.server serves scripted "
    "answers; run with TYPESAFE_API_KEY=sk-anything --base-url set to the URL it prints"
)
"""What the command says when Jev has no key: only what the command's user can do."""


def no_key_message() -> str:
    """The command line's message for a missing API key (no Python-only arguments in it).

    Example:
        >>> "TYPESAFE_API_KEY" in no_key_message() and "api_key=" not in no_key_message()
        True

    """
    return NO_KEY


def model_problem(model: str, error: BaseException, *, named_by_file: bool = False) -> str:
    r"""What to tell the command's user when ``--model MODEL`` cannot be built (``error`` says why).

    ``named_by_file``: the judge file's ``model`` named it, not ``--model``; the
    message then reads as the file's other problems do.

    Example:
        >>> for part in model_problem("nosuchprovider:x", ValueError(
        ...     "Unable to infer model provider for model='nosuchprovider:x'. Please specify "
        ...     "'model_provider' directly.\n\nSupported providers: anthropic, openai\n\nFor help: ...",
        ... )).split("; "):
        ...     print(part.replace(" or provider:model", "\nor provider:model"))
        --model nosuchprovider:x: unknown provider 'nosuchprovider'
        give a Jev model name (jev-latest, or jev:NAME)
        or provider:model with a provider LangChain knows (e.g. openai:gpt-4o-mini)
        known providers: anthropic, openai

    """
    if named_by_file:
        return "the judge file is invalid:\n  model: " + model_problem(model, error).replace(
            f"--model {model}:", f"model {model!r}:", 1
        )
    text = str(error).strip()
    provider = model.partition(":")[0]
    if "model_provider" in text or "infer model provider" in text:
        known = next(
            (line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Supported")),
            "",
        )
        return (
            f"--model {model}: unknown provider {provider!r}; give a Jev model name (jev-latest, or "
            "jev:NAME) or provider:model with a provider LangChain knows (e.g. openai:gpt-4o-mini)"
            + (f"; known providers: {known}" if known else "")
        )
    first = text.splitlines()[0] if text else type(error).__name__
    return f"--model {model}: {first}"


def model_identity(model: Any, settings: ModelSettings) -> tuple[str | None, str | None]:
    """The name of the model a run judges with, and where its requests go (a URL, for Jev).

    Wrappers (the cache, the pacing) are looked through.

    Example:
        >>> from langchain_jev.testing import ScriptedDecisionModel
        >>> model_identity(ScriptedDecisionModel({}), ModelSettings(model="openai:gpt-4o-mini"))
        ('openai:gpt-4o-mini', None)

    """
    inner = model
    for _ in range(8):
        nested = getattr(inner, "inner", None)
        if nested is None:
            break
        inner = nested
    if settings.is_chat_model:
        return settings.model, None
    name = getattr(inner, "model", None)
    url = getattr(inner, "endpoint", None)  # Jev's: the address tried, wherever it was set (or the default)
    if not isinstance(url, str):
        url = getattr(inner, "base_url", None)
    return (name if isinstance(name, str) else settings.model), (url if isinstance(url, str) else None)


@dataclass(frozen=True)
class ModelSettings:
    """What the command line's model options say (no secrets: the key comes from the environment).

    Example:
        >>> settings = ModelSettings(model="jev-latest", concurrency=16)
        >>> ModelSettings.from_dict(settings.to_dict()) == settings
        True

    """

    model: str | None = None
    """``--model``: a Jev model name, ``jev:NAME``/``typesafe:NAME``, or ``provider:model``."""
    base_url: str | None = None
    """``--base-url``: a Jev-compatible server."""
    timeout: float | None = None
    """``--timeout``: seconds per HTTP operation."""
    max_retries: int | None = None
    """``--max-retries``: retries per request."""
    cache: str | None = None
    """``--cache``: the SQLite file answering repeated requests."""
    concurrency: int = 8
    """Requests this model may have in flight (sizes its connection pools)."""

    @property
    def is_chat_model(self) -> bool:
        """True when ``model`` names a chat model (``provider:model`` other than Jev)."""
        provider, _, rest = (self.model or "").partition(":")
        return bool(self.model and rest and provider not in ("jev", "typesafe"))

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelSettings:
        """Settings from `to_dict`'s output."""
        return cls(**dict(data))


def build_model(
    settings: ModelSettings,
    limiter: RateLimiter | None = None,
    named: BaseDecisionModel | None = None,
) -> tuple[BaseDecisionModel, list[Any]]:
    """The decision model ``settings`` describe, and what to close after the run.

    ``named`` is the model the judge file names (``model:``, a jury for one): it
    judges when ``--model`` is not given, with its members' own settings. A
    ``limiter`` paces the requests that reach the model (a cache hit does not wait).

    Raises:
        MissingCredentialsError: no API key for Jev (the message is `no_key_message`).
        JevConfigurationError: ``--base-url`` with a chat model, or a ``--cache`` that is a device,
            a FIFO or a folder (named as what it is).
        ImportError, ValueError: a chat model its provider cannot serve.

    """
    from langchain_jev.models._secrets import install_log_filter

    install_log_filter()  # whatever the model, no known key reaches a log line
    closers: list[Any] = []
    model: BaseDecisionModel
    if named is not None and settings.model is None:
        if settings.base_url:
            raise JevConfigurationError(
                "--base-url is for the model of --model; the judge file names its own model "
                "(give --model to judge with another)"
            )
        model = named
    elif settings.is_chat_model:
        if settings.base_url:
            raise JevConfigurationError(
                "--base-url is for Jev-compatible servers; a chat model takes its own settings "
                "from its provider's environment variables"
            )
        provider, _, name = (part.strip() for part in str(settings.model).partition(":"))
        if provider.lower() == "openai-decisions":
            from langchain_jev.models._openai_decisions import from_model_name

            model = from_model_name(name, timeout=settings.timeout, max_retries=settings.max_retries)
        else:
            from langchain_jev.models._chat import ChatModelDecisionModel

            model = ChatModelDecisionModel(str(settings.model))
    else:
        model = _jev(settings, closers)
    if limiter is not None:
        from langchain_jev.datasets._pacing import PacedDecisionModel

        model = PacedDecisionModel(inner=model, limiter=limiter)
    if settings.cache:
        from langchain_jev.datasets._reading import check_regular
        from langchain_jev.models._cache import CachedDecisionModel, SQLiteCache

        if settings.cache != ":memory:":
            try:  # a device, a FIFO or a folder is said as what it is, before SQLite tries it
                check_regular(settings.cache, missing_ok=True)
            except OSError as error:
                said = f"cannot open the response cache at {settings.cache!r}: {error.strerror or error}"
                raise JevConfigurationError(said) from None
        cache = SQLiteCache(settings.cache)
        closers.append(cache)
        model = CachedDecisionModel(model, cache)
    return model, closers


def described_model(settings: ModelSettings) -> tuple[str | None, str | None]:
    """The name of the model ``settings`` judge with, and where its requests go, without building it.

    The same as `model_identity` of the model `build_model` makes (a Jev model's
    name and URL resolved from the environment as it resolves them), and no key
    is needed: the Ray engine's driver names the model its actors will build.

    Example:
        >>> described_model(ModelSettings(model="jev:jev-mini", base_url="http://127.0.0.1:8000"))
        ('jev-mini', 'http://127.0.0.1:8000')
        >>> described_model(ModelSettings(model="openai:gpt-4o-mini"))
        ('openai:gpt-4o-mini', None)

    """
    if settings.is_chat_model:
        return settings.model, None
    from langchain_jev.models._jev import JevDecisionModel

    plain = JevDecisionModel(**_jev_options(settings))
    return plain.model, plain.base_url


def _jev_options(settings: ModelSettings) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if settings.model:
        provider, _, rest = settings.model.partition(":")
        options["model"] = rest or provider
    if settings.base_url:
        options["base_url"] = settings.base_url
    if settings.timeout is not None:
        options["timeout"] = settings.timeout
    if settings.max_retries is not None:
        from typesafe_sdk import RetryPolicy

        options["retry"] = RetryPolicy(max_retries=settings.max_retries)
    return options


def _jev(settings: ModelSettings, closers: list[Any]) -> BaseDecisionModel:
    from langchain_jev.models._jev import JevDecisionModel

    options = _jev_options(settings)
    plain = JevDecisionModel(**options)  # resolves the model and URL; the key is checked here
    try:
        plain.resolve_api_key()
    except MissingCredentialsError:
        raise MissingCredentialsError(NO_KEY) from None
    client = _async_client(plain, settings.concurrency)
    model = JevDecisionModel(**options, async_client=client)
    closers.extend([client, model])
    return model


def _async_client(model: Any, concurrency: int) -> Any:
    """An SDK client like ``model``'s own (bounded alike), with its connections spread over small pools.

    A single pool's bookkeeping grows with its connections; see `cli_transport`.
    """
    from typesafe_sdk import AsyncTypeSafeClient

    from langchain_jev.datasets._transport import ShardedTransport, shard_count
    from langchain_jev.models._transport import AsyncBoundedTransport

    pools = ShardedTransport(shard_count(concurrency), concurrency)
    return AsyncTypeSafeClient(
        api_key=model.resolve_api_key().get_secret_value(),
        model=model.model,
        base_url=model.base_url,
        timeout=model.timeout,
        retry=model.retry,
        transport=AsyncBoundedTransport(pools, max_bytes=model.max_response_bytes),  # as the model's own
    )


def cache_failure(path: str | None, error: BaseException) -> str:
    """What to say when the response cache at ``path`` fails mid-run (its file is not a sound database).

    Example:
        >>> print(cache_failure("answers.sqlite", Exception("database disk image is malformed")))
        the response cache answers.sqlite cannot be used: database disk image is malformed; remove it (it ...

    """
    return (
        f"the response cache {path or '(in memory)'} cannot be used: {error}; remove it (it only saves "
        "requests) or give --cache another file"
    )


async def close_all(things: list[Any]) -> None:
    """Close (or ``aclose``) each of ``things``; a failure to close is ignored."""
    for thing in things:
        method = getattr(thing, "aclose", None) or getattr(thing, "close", None)
        if method is None:
            continue
        try:
            result = method()
            if inspect.isawaitable(result):
                await result
        except Exception:  # closing must not hide the run's outcome
            pass
