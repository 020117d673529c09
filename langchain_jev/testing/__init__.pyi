"""The face's names, one a line: read by type checkers and by its loader, `langchain_jev._lazy`."""

from langchain_jev.testing._assertions import Given as Given
from langchain_jev.testing._assertions import aassert_judged as aassert_judged
from langchain_jev.testing._assertions import assert_judged as assert_judged
from langchain_jev.testing._assertions import failure_message as failure_message
from langchain_jev.testing._assertions import judge_input as judge_input
from langchain_jev.testing._chat import ScriptedChatModel as ScriptedChatModel
from langchain_jev.testing._chat import scripted_chat_model as scripted_chat_model
from langchain_jev.testing._scripted import ScriptedDecisionModel as ScriptedDecisionModel
from langchain_jev.testing._scripted import ScriptEntry as ScriptEntry
