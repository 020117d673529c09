"""The voice judge asks its questions over the audio: a chat model that hears it answers, Jev refuses it."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from langchain_jev import ChatModelDecisionModel, JevInputError, JevJudgeInput, Outcome
from langchain_jev.judges import voice_judge
from tests.fakes import JevWire
from tests.judges.cases import FULL, PASSING, WAV
from tests.models.chat.helpers import ToolCallingChatModel, tool_reply

QUESTIONS = ["clean_audio", "transcription_accurate", "handles_interrupts", "natural_delivery"]


def _answers(**probabilities: float) -> dict[str, Any]:
    yes = dict.fromkeys(QUESTIONS, 0.9) | probabilities
    return {name: {"reasoning": "Heard throughout.", "yes_probability": p} for name, p in yes.items()}


def _hearing(**probabilities: float) -> tuple[ToolCallingChatModel, ChatModelDecisionModel]:
    chat = ToolCallingChatModel(replies=[tool_reply(_answers(**probabilities))])
    return chat, ChatModelDecisionModel(chat, strategy="structured")


@pytest.mark.parametrize(
    "audio",
    [
        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
        {"type": "audio", "url": "https://example.com/call.wav"},
        {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
        {"input_audio": {"data": WAV, "format": "wav"}},
        {"type": "video", "base64": WAV, "mime_type": "video/mp4"},
    ],
)
def test_jev_refuses_audio_and_video_naming_the_field_and_sends_nothing(audio: dict[str, Any]) -> None:
    wire = JevWire(PASSING["voice"])
    judge = voice_judge(wire.model())
    with pytest.raises(JevInputError, match=r"state\.audio: an? (audio|video) block: Jev reads text and images"):
        judge.judge(JevJudgeInput(fields={**FULL["voice"].fields, "audio": audio}))
    assert wire.calls == 0  # its base64 is never judged as if it were text


async def test_a_chat_model_that_hears_audio_answers_every_question_in_one_request() -> None:
    chat, model = _hearing()
    verdict = await voice_judge(model).ajudge(FULL["voice"])
    assert verdict.passed and len(chat.calls) == 1
    user = next(m for m in chat.calls[0]["messages"] if isinstance(m, HumanMessage))
    blocks = [b for b in user.content if isinstance(b, dict) and b.get("type") == "audio"]
    assert [b.get("base64") for b in blocks] == [WAV]  # the recording itself, as a media block


def test_questions_that_do_not_apply_stay_out_of_the_request() -> None:
    chat, model = _hearing()
    verdict = voice_judge(model).judge(JevJudgeInput(fields={"audio": FULL["voice"].fields["audio"]}))
    assert len(chat.calls) == 1 and verdict.passed
    assert verdict.finding("transcription_accurate").outcome is Outcome.NOT_APPLICABLE


@pytest.mark.parametrize(
    ("criterion", "probability"),
    [("clean_audio", 0.3), ("transcription_accurate", 0.5), ("handles_interrupts", 0.4), ("natural_delivery", 0.2)],
)
def test_each_question_fails_below_its_threshold_and_alone(criterion: str, probability: float) -> None:
    _, model = _hearing(**{criterion: probability})
    verdict = voice_judge(model).judge(FULL["voice"])
    assert [f.name for f in verdict.findings if f.outcome is Outcome.FAILED] == [criterion], verdict.summary()
    assert verdict.feedback.startswith(f"{criterion}:")
