"""Requests about the voice: what is asked, the rate it sets, and what is said."""

from types import SimpleNamespace

import pytest

from assistant import voice


@pytest.mark.parametrize(
    ("asked", "rate"),
    [
        ("Speak slower, please.", 1.25),
        ("Could you talk a little slower?", 1.25),
        ("Slow down.", 1.25),
        ("You're talking too fast.", 1.25),
        ("Slower.", 1.25),
        ("Speak faster.", 0.8),
        ("Can you speed up?", 0.8),
        ("speak normally", 1.0),
        # the LLM's: not about the voice
        ("Why do snails move slowly?", None),
        ("What is the speed of light?", None),
        ("Be quiet.", None),  # a stop phrase, for the barge-in
    ],
)
def test_rate_requests_change_the_rate_by_one_step(asked, rate):
    tts = SimpleNamespace(length_scale=1.0)
    said = voice.answer(asked, tts, default=1.0)
    assert (said is None) if rate is None else said.startswith("Okay")
    assert tts.length_scale == pytest.approx(rate or 1.0)


def test_the_rate_stays_within_its_bounds_and_comes_back_to_the_configured_one():
    tts = SimpleNamespace(length_scale=1.2)  # [tts] length_scale = 1.2
    said = [voice.answer("slower", tts, default=1.2) for _ in range(4)]
    assert said == ["Okay, I'll speak more slowly."] * 2 + ["That's as slowly as I can speak."] * 2
    assert tts.length_scale == pytest.approx(1.2 * 1.25**2)
    assert voice.answer("speak normally", tts, default=1.2) == "Okay, back to my normal speed."
    assert tts.length_scale == 1.2
    said = [voice.answer("faster", tts, default=1.2) for _ in range(4)]
    assert said == ["Okay, I'll speak faster."] * 3 + ["That's as fast as I can speak."]  # 1.2 / 1.25**3
    assert tts.length_scale == pytest.approx(1.2 / 1.25**3)


@pytest.mark.parametrize(
    "asked",
    [
        "Speak louder.",
        "Speak up!",
        "Turn up the volume.",
        "Could you be quieter?",
        "Turn the volume up.",
        "volume down",
        "set the volume to five",
    ],
)
def test_the_volume_is_not_the_assistants_to_change(asked):
    tts = SimpleNamespace(length_scale=1.0)
    assert voice.answer(asked, tts, default=1.0).startswith("I can't change my volume")
    assert voice.answer(asked, None, default=1.0).startswith("I can't change my volume")
    assert tts.length_scale == 1.0
