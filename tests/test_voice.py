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
    ("asked", "volume"),
    [
        ("Speak more quietly.", 6),
        ("Turn the volume down.", 6),
        ("volume down", 6),
        ("You're too loud.", 6),
        ("Speak louder.", 10),
        ("Turn the volume up.", 10),
        ("Could you speak up?", 10),
        ("Set the volume to three.", 3),
        ("volume five", 5),
        ("set the volume to fifty percent", 5),
        ("Set the volume to maximum.", 10),
        # the LLM's: not about the voice
        ("What is the volume of a sphere?", 8),
        ("Turn up the heat.", 8),
        ("volume control", 8),
    ],
)
def test_volume_requests_change_the_volume(asked, volume):
    """Asked to turn the volume up, the LLM said "turn the volume up to 108%", and nothing changed."""
    tts = SimpleNamespace(length_scale=1.0, volume=8)
    said = voice.answer(asked, tts, default=1.0)
    assert tts.volume == volume
    assert (said is None) if volume == 8 else said == f"Okay, volume {volume} of 10."


def test_the_volume_stays_within_1_and_10_and_says_where_it_is():
    tts = SimpleNamespace(length_scale=1.0, volume=10)
    assert voice.answer("louder", tts, default=1.0) == (
        "That's as loud as I can speak: your computer's volume control goes higher."
    )
    assert [voice.answer("quieter", tts, default=1.0) for _ in range(6)][-2:] == [
        "Okay, volume 1 of 10.",
        "That's as quietly as I can speak.",
    ]
    assert voice.answer("what's your volume", tts, default=1.0) == "My volume is 1 of 10."
    assert voice.answer("set the volume to eleven", tts, default=1.0).startswith(
        "I can set my volume from 1 to 10"
    )
    assert tts.volume == 1
    assert voice.answer("speak louder", None, default=1.0) == "I'm not speaking aloud now: the chat is muted."
