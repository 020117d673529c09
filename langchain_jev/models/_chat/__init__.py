"""Any LangChain chat model as a decision model: `ChatModelDecisionModel`.

Modules, one job each: `prompt` (the messages), `schema` (the JSON schema of a
structured reply), `parse` (reading a structured reply), `logprobs` (probabilities
from token log-probabilities), `answers` (typed answers from distributions),
`loading` (resolving the chat model), `calls` (the requests and each question set's
rubric), `replies` (reading what came back), `drive` (the one driver of the sync and
async calls), `model` (the class, its options and its strategies' procedure).
"""

from langchain_jev.models._chat.errors import ChatModelOutputError, LogprobsUnavailableError
from langchain_jev.models._chat.model import STRATEGIES, ChatModelDecisionModel, Strategy
from langchain_jev.models._chat.prompt import DEFAULT_SYSTEM_MESSAGE

__all__ = [
    "DEFAULT_SYSTEM_MESSAGE",
    "STRATEGIES",
    "ChatModelDecisionModel",
    "ChatModelOutputError",
    "LogprobsUnavailableError",
    "Strategy",
]
