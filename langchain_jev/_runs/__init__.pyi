"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev._runs.answer import answer_from_outputs as answer_from_outputs
from langchain_jev._runs.context import context_from_outputs as context_from_outputs
from langchain_jev._runs.context import documents_text as documents_text
from langchain_jev._runs.context import retrieved_context as retrieved_context
from langchain_jev._runs.expected import expected_from_reference as expected_from_reference
from langchain_jev._runs.judge_input import judge_input_from_run as judge_input_from_run
from langchain_jev._runs.keys import ANSWER_KEYS as ANSWER_KEYS
from langchain_jev._runs.keys import CONTEXT_KEYS as CONTEXT_KEYS
from langchain_jev._runs.keys import CONVERSATION_FIELD as CONVERSATION_FIELD
from langchain_jev._runs.keys import EXPECTED_KEYS as EXPECTED_KEYS
from langchain_jev._runs.keys import MESSAGES_KEY as MESSAGES_KEY
from langchain_jev._runs.keys import QUESTION_KEYS as QUESTION_KEYS
from langchain_jev._runs.keys import STRUCTURED_KEY as STRUCTURED_KEY
from langchain_jev._runs.question import conversation_from_inputs as conversation_from_inputs
from langchain_jev._runs.question import question_from_inputs as question_from_inputs
from langchain_jev._runs.question import unwrap_inputs as unwrap_inputs
from langchain_jev._runs.tool_calls import tool_calls_from_run as tool_calls_from_run
