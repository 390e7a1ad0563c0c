"""Clause splitting (pure) and piper synthesis with the shipped voice (real model, ~3 s in all)."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from assistant.config import TtsConfig
from assistant.tts import ClauseSplitter, ModelLoadError, PiperTts, clean_text, gain, synthesize_ahead

REPLY = (
    "Sure, the weather in Paris tomorrow looks mild, with a high of 21.5 degrees. "
    "Dr. Martin says rain is unlikely, e.g. less than 10 percent. Enjoy your trip!"
)


def split_stream(pieces: list[str], **kwargs) -> list[list[str]]:
    """Feed pieces one by one; what came out after each piece, then what flush() returned."""
    splitter = ClauseSplitter(**kwargs)
    return [splitter.feed(p) for p in pieces] + [splitter.flush()]


def clauses(text: str, **kwargs) -> list[str]:
    return [c for out in split_stream([text], **kwargs) for c in out]


def test_first_clause_comes_out_at_the_first_long_enough_comma():
    tokens = ["Sure", ",", " the", " weather", " in", " Paris", " tomorrow", " looks", " mild", ",", " with"]
    outs = split_stream(tokens)
    first = next(i for i, out in enumerate(outs) if out)
    assert outs[first] == ["Sure, the weather in Paris tomorrow looks mild,"]
    assert tokens[first] == " with"  # emitted as soon as the space after the comma arrived


def test_short_clauses_wait_and_later_commas_need_longer_clauses():
    assert clauses("Yes, I can.") == ["Yes, I can."]
    later = clauses("Okay then, here we go. First, second, third, fourth and more words here, done.")
    assert later == ["Okay then, here we go.", "First, second, third, fourth and more words here, done."]


def test_a_closing_parenthesis_ends_a_first_clause_long_enough():
    """ "Napoleon I (1769 to 1821) was a French general ...": piper's first sound came 673 ms after the
    whole sentence was given it, 454 ms after its first part (medians of 5, this machine)."""
    said = "Napoleon I (1769 to 1821) was a French general who became emperor of the French."
    assert clauses(said) == [
        "Napoleon I (1769 to 1821)",
        "was a French general who became emperor of the French.",
    ]
    assert clauses("It is (maybe) fine.") == ["It is (maybe) fine."]  # too short to stand alone


def test_no_split_inside_numbers_even_when_streamed_digit_by_digit():
    outs = split_stream(["It is about 3", ".", "5", " km, or 3,000 steps, at 10:30 today."])
    assert [c for out in outs for c in out] == ["It is about 3.5 km,", "or 3,000 steps, at 10:30 today."]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Ask Dr. Smith about it. Then rest.", ["Ask Dr. Smith about it.", "Then rest."]),
        ("Eat fruit, e.g. apples and pears. Done.", ["Eat fruit, e.g. apples and pears.", "Done."]),
        ("J. R. R. Tolkien wrote it. Yes!", ["J. R. R. Tolkien wrote it.", "Yes!"]),
        ('He said "stop." Then left?! Why', ['He said "stop."', "Then left?!", "Why"]),
    ],
)
def test_sentence_ends_and_abbreviations(text, expected):
    assert clauses(text) == expected


def test_markdown_lists_and_emoji_are_not_spoken():
    text = "# Steps\n1. Preheat the **oven** 🔥\n2. Mix `flour` and [water](http://x.y)\n"
    text += "- Bake it — slowly\n---\n"
    assert clauses(text) == ["Steps", "Preheat the oven", "Mix flour and water", "Bake it, slowly"]
    assert clean_text("👍 *") == ""


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("It's 4:07 PM.", "It's 4 oh 7 PM."),  # the voice said "four zero seven"
        ("It's 9:00 AM.", "It's 9 AM."),  # ... and "nine zero zero A M"
        ("Come at 9:00.", "Come at 9 o'clock."),
        ("It's 12:30 pm.", "It's 12:30 pm."),
        ("The race took 1:05:30.", "The race took 1:05:30."),  # not a time of day
        ("A ratio of 3:1.", "A ratio of 3:1."),
    ],
)
def test_clock_times_are_read_as_they_are_said(text, spoken):
    assert clean_text(text) == spoken


def test_a_number_too_long_to_follow_is_not_read_out():
    """The LLM, looping, wrote a 90-digit number: piper made 50 s of speech of it (6.5 s before the
    first sound); said "a 90 digit number", 1.6 s (0.17 s)."""
    looped = "There are 236,957,140,856,436," + "782," * 15 + "104,396,525,684,986," + "288," * 4 + "288."
    assert clauses(looped) == ["There are a 90 digit number."]
    assert clean_text("999,999,999,999,999 and 3.14159 stay.") == "999,999,999,999,999 and 3.14159 stay."
    assert clean_text("About 1,000,000,000,000,000 of them.") == "About a 16 digit number of them."


def test_any_chunking_gives_the_same_clauses():
    long = " ".join(["word"] * 95) + ". End."
    rng = random.Random(0)
    for text in (REPLY, long, "A list:\n- one item here\n- two\n\nDone, thanks."):
        whole = clauses(text)
        by_char = [c for out in split_stream(list(text)) for c in out]
        cuts = sorted(rng.sample(range(1, len(text)), 12))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        by_chunk = [c for out in split_stream(pieces) for c in out]
        assert by_char == whole == by_chunk, text
    assert max(len(c.split()) for c in clauses(long)) == 40


# --- piper ---------------------------------------------------------------------------------------


def test_synthesis_is_speech_at_the_voice_rate(piper_tts):
    pieces = list(piper_tts.synthesize("Hello there. This is a test."))
    assert piper_tts.sample_rate == 22050
    assert len(pieces) == 2  # piper yields one array per sentence
    audio = np.concatenate(pieces)
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert 1.0 < len(audio) / piper_tts.sample_rate < 4.0
    assert np.sqrt(np.mean(audio**2)) > 0.03
    assert np.abs(audio).max() <= 1.0


def test_the_volume_scales_the_voice_by_3_db_a_step(piper_tts):
    """ "Speak more quietly" (`voice.py`) sets `volume`: 10 is the peak-normalized voice."""
    full = np.concatenate(list(piper_tts.synthesize("Hello there.")))
    piper_tts.volume = 8
    try:
        quieter = np.concatenate(list(piper_tts.synthesize("Hello there.")))
    finally:
        piper_tts.volume = 10  # the fixture is shared
    assert np.abs(full).max() == pytest.approx(1.0, abs=1e-3)
    assert np.abs(quieter).max() == pytest.approx(gain(8), rel=1e-3)
    assert gain(8) == pytest.approx(10 ** (-6 / 20)) and gain(10) == 1.0


def test_cancel_between_sentences_stops_the_stream(piper_tts):
    cancel = threading.Event()
    got = []
    for piece in piper_tts.synthesize("One sentence here. Another one. And a third. And a fourth.", cancel):
        got.append(piece)
        cancel.set()
    assert len(got) == 1


def test_cancel_interrupts_a_running_inference(piper_tts):
    text = " ".join(["this long sentence keeps going without a single stop"] * 6) + "."
    cancel = threading.Event()
    threading.Timer(0.05, cancel.set).start()
    start = time.perf_counter()
    got = list(piper_tts.synthesize(text, cancel))
    assert got == []
    assert time.perf_counter() - start < 0.4  # uncancelled, this sentence takes over a second


class _Sentences:
    """Stands in for PiperTts.synthesize: `n` one-sample sentences, then maybe an error."""

    def __init__(self, n: int, error: Exception | None = None):
        self.n, self.error, self.made = n, error, 0

    def synthesize(self, text, cancel=None):
        for _ in range(self.n):
            if cancel is not None and cancel.is_set():
                return
            self.made += 1
            yield np.full(1, self.made, np.float32)
        if self.error:
            raise self.error


def test_synthesize_ahead_yields_every_sentence_in_order_and_its_errors():
    assert [int(p[0]) for p in synthesize_ahead(_Sentences(5), "text")] == [1, 2, 3, 4, 5]
    with pytest.raises(RuntimeError, match="voice broke"):
        list(synthesize_ahead(_Sentences(2, RuntimeError("voice broke")), "text"))


def test_synthesize_ahead_stops_making_when_the_caller_stops_listening():
    tts = _Sentences(1000)
    pieces = synthesize_ahead(tts, "text", ahead=2)
    next(pieces)
    pieces.close()  # an error while playing, or Ctrl-C
    assert not any(t.name == "tts-ahead" for t in threading.enumerate())
    assert tts.made <= 5  # one taken, two ahead, one blocked at the queue, one on the way out


def test_missing_or_corrupt_voice_is_one_clear_line(tmp_path):
    missing = tmp_path / "nope.onnx"
    with pytest.raises(ModelLoadError, match="nope.onnx: voice model not found"):
        PiperTts(_cfg_with_voice(missing)).build()
    corrupt = tmp_path / "bad.onnx"
    corrupt.write_bytes(b"not a model")
    corrupt.with_name("bad.onnx.json").write_text(
        TtsConfig().voice_path.with_suffix(".onnx.json").read_text()
    )
    with pytest.raises(ModelLoadError, match=r"bad.onnx: cannot load piper voice") as err:
        PiperTts(_cfg_with_voice(corrupt)).build()
    assert "\n" not in str(err.value)
    corrupt.with_name("bad.onnx.json").write_text("{}")
    with pytest.raises(ModelLoadError) as err:
        PiperTts(_cfg_with_voice(corrupt)).build()
    assert str(err.value) == (
        f"{corrupt}.json: not a valid piper voice config ('num_symbols'); "
        "fix: put the .onnx.json that came with the voice beside it"
    )


def _cfg_with_voice(path) -> TtsConfig:
    """A TtsConfig pointing at a file that need not exist (the config validator would refuse it)."""
    return TtsConfig.model_construct(voice=str(path), length_scale=1.0, clause_pause_ms=120)
