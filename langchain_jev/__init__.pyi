"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev._conversation import input_from_messages as input_from_messages
from langchain_jev._criteria import JevCriterion as JevCriterion
from langchain_jev._errors import ChatModelOutputError as ChatModelOutputError
from langchain_jev._errors import GuardrailBudgetError as GuardrailBudgetError
from langchain_jev._errors import GuardrailCheckError as GuardrailCheckError
from langchain_jev._errors import GuardrailRefusedError as GuardrailRefusedError
from langchain_jev._errors import GuardrailUndecidedError as GuardrailUndecidedError
from langchain_jev._errors import JevConfigurationError as JevConfigurationError
from langchain_jev._errors import JevError as JevError
from langchain_jev._errors import JevInputError as JevInputError
from langchain_jev._errors import JudgeSpecError as JudgeSpecError
from langchain_jev._errors import LogprobsUnavailableError as LogprobsUnavailableError
from langchain_jev._errors import MissingCredentialsError as MissingCredentialsError
from langchain_jev._errors import ResponseTooLargeError as ResponseTooLargeError
from langchain_jev._feedback import default_feedback as default_feedback
from langchain_jev._input import ANSWER_FIELD as ANSWER_FIELD
from langchain_jev._input import CONTEXT_FIELD as CONTEXT_FIELD
from langchain_jev._input import EXPECTED_FIELD as EXPECTED_FIELD
from langchain_jev._input import QUESTION_FIELD as QUESTION_FIELD
from langchain_jev._input import TOOL_CALLS_FIELD as TOOL_CALLS_FIELD
from langchain_jev._input import JevFieldWarning as JevFieldWarning
from langchain_jev._input import JevJudgeInput as JevJudgeInput
from langchain_jev._input import ToolCall as ToolCall
from langchain_jev._judge import JevJudge as JevJudge
from langchain_jev._runs import judge_input_from_run as judge_input_from_run
from langchain_jev._statements import Statement as Statement
from langchain_jev._statements import statement_criteria as statement_criteria
from langchain_jev._verdict import JevFinding as JevFinding
from langchain_jev._verdict import JevVerdict as JevVerdict
from langchain_jev._verdict import Outcome as Outcome
from langchain_jev.models._chat import ChatModelDecisionModel as ChatModelDecisionModel
from langchain_jev.models._typesafe_classifier import (
    TypeSafeClassifierDecisionModel as TypeSafeClassifierDecisionModel,
)

__version__: str
