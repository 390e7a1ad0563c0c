"""Wake phrases: which utterances are requests, and what they ask once the phrase is taken off."""

import pytest

from assistant.config import AsrConfig, Config, WakeConfig
from assistant.wake import WakeGate, is_sleep

S = 1_000_000_000
GATE = WakeGate(WakeConfig(phrases=["computer", "hey assistant"], follow_up_s=8.0))


@pytest.mark.parametrize(
    ("heard", "asks"),
    [
        ("Computer, what time is it?", "What time is it?"),
        ("computer what time is it", "What time is it"),
        ("computor what time is it", "What time is it"),  # the recognizer's own spelling of the name
        ("hey computer set a timer", "Set a timer"),  # a greeting before it
        ("okay computer", ""),
        ("Computer.", ""),  # the phrase alone
        ("hey assistant tell me a joke", "Tell me a joke"),
        ("hey assist and tell me a joke", "Tell me a joke"),  # split in three
        ("hey assistance tell me a joke", "Tell me a joke"),
        ("assistant tell me a joke", "Tell me a joke"),  # its greeting unheard ...
        ("i assistant tell me a joke", "Tell me a joke"),  # ... or misheard
    ],
)
def test_a_request_that_begins_with_a_wake_phrase_asks_the_rest(heard, asks):
    assert GATE.strip(heard) == asks
    assert GATE.request(heard, 100 * S, answer_end_ns=None, answering=False) == asks


@pytest.mark.parametrize(
    "heard",
    ["what time is it", "the computer is broken", "hey what's up", "hey there computer", "assist",
     "come here", "a computer is slow today", "i computer"],
)  # fmt: skip
def test_without_a_wake_phrase_first_it_is_not_a_request(heard):
    assert GATE.strip(heard) is None
    assert GATE.request(heard, 100 * S, answer_end_ns=None, answering=False) is None


def test_after_an_answer_and_over_one_no_phrase_is_needed():
    """The follow-up window runs from the answer's end to the next utterance's start."""
    end = 100 * S
    assert GATE.request("and tomorrow", end + 8 * S, answer_end_ns=end, answering=False) == "and tomorrow"
    assert GATE.request("and tomorrow", end + 9 * S, answer_end_ns=end, answering=False) is None
    assert GATE.request("stop talking", end + 60 * S, answer_end_ns=end, answering=True) == "stop talking"
    # the phrase is still taken off where it is said anyway
    asked = GATE.request("computer and tomorrow", end + S, answer_end_ns=end, answering=False)
    assert asked == "And tomorrow"


@pytest.mark.parametrize(
    "heard",
    ["stop listening", "Please stop listening.", "go to sleep", "okay go to sleep now", "don't listen"],
)
def test_stop_listening_is_asked_for(heard):
    assert is_sleep(heard)


@pytest.mark.parametrize("heard", ["stop", "listen to this", "stop listening to music and play", "go to bed"])
def test_what_only_sounds_like_stop_listening_is_not(heard):
    assert not is_sleep(heard)


@pytest.mark.parametrize("phrases", [[], ["computer"]])
def test_asleep_only_wake_up_or_a_wake_phrase_is_a_request(phrases):
    """Asleep, the follow-up window and talk over an answer count for nothing; "wake up" does, as
    the wake phrase, and is taken off what it asks."""
    gate = WakeGate(WakeConfig(phrases=phrases))
    gate.asleep = True
    end = 100 * S
    for heard in ["what time is it", "stop listening", "start the timer"]:
        assert gate.request(heard, end + S, answer_end_ns=end, answering=True) is None
    assert gate.request("wake up", end, None, False) == ""
    assert gate.request("wake up what time is it", end, None, False) == "What time is it"
    assert gate.request("okay wake up", end, None, False) == ""
    assert gate.request("start listening", end, None, False) is None  # too near "stop listening"
    asked = gate.request("computer what time is it", end, None, False)
    assert asked == ("What time is it" if phrases else None)
    gate.asleep = False  # the listener wakes it on the final it took
    assert gate.request("wake up", end, None, False) == ("wake up" if not phrases else None)


def test_without_phrases_everything_is_a_request():
    gate = WakeGate(WakeConfig())
    assert not gate.enabled
    assert gate.request("what time is it", 100 * S, answer_end_ns=None, answering=False) == "what time is it"
    assert gate.request("computer what time is it", 0, None, False) == "computer what time is it"


def test_a_phrase_the_recognizer_cannot_write_is_reported():
    """With the language model on, the finals hold only its lexicon's words: "hey zorblax" would
    never be heard. `assistant run` warns of it, `assistant doctor` fails on it."""
    from assistant import doctor, wake

    unheard = Config(wake=WakeConfig(phrases=["hey zorblax", "computer"]))
    assert wake.unknown_words(unheard) == ["zorblax"]
    ok, what, detail = doctor._guarded("wake phrases", lambda: doctor._wake(unheard))
    assert not ok and "'zorblax' not in the recognizer's words" in detail and "lm_words.txt" in detail
    heard = Config(wake=WakeConfig(phrases=["computer", "hey jarvis"]))
    assert wake.unknown_words(heard) == []
    assert doctor._wake(heard) == "'computer', 'hey jarvis'; 8 s to follow up"
    assert doctor._wake(Config()) == "none: everything heard is a request"
    # greedy letters can write any word
    greedy = Config(wake=WakeConfig(phrases=["hey zorblax"]), asr=AsrConfig(language_model=False))
    assert wake.unknown_words(greedy) == []
