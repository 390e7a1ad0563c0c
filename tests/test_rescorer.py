"""assistant/asr/rescorer.py: the embedded LLM rescoring the beam search's best sentences."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from assistant.asr.lm_decoder import LexiconDecoder
from assistant.asr.recognizer import StreamingRecognizer, log_probs_batch
from assistant.asr.rescorer import LlmRescorer
from assistant.asr.text import BLANK_ID, CHAR_TO_ID, VOCAB
from assistant.audio.files import read_audio
from assistant.config import DEFAULT_ASR_LM, AsrConfig, embedded_llm_path
from assistant.llm import ModelLoadError


@pytest.fixture(scope="module")
def rescorer():
    rescorer = LlmRescorer(embedded_llm_path(), weight=0.3, nbest=8, margin=3.0).build()
    yield rescorer
    rescorer.close()


def spelled(text: str, confidence: float = 0.9) -> np.ndarray:
    """(T, V) log-probs that spell `text` letter by letter, a blank between letters."""
    rows = []
    for char in text:
        for symbol in (CHAR_TO_ID[char], BLANK_ID):
            row = np.full(len(VOCAB), (1 - confidence) / (len(VOCAB) - 1))
            row[symbol] = confidence
            rows.append(np.log(row))
    return np.array(rows, dtype=np.float32)


def test_the_llm_prefers_the_sentence_a_person_would_say(rescorer):
    right = rescorer.log_prob("set a timer for ten minutes")
    wrong = rescorer.log_prob("set a timer for ten minuets")
    assert right < 0 and right > wrong + 2
    # The header stays cached and each sentence replaces the last: the order does not matter.
    assert rescorer.log_prob("set a timer for ten minutes") == pytest.approx(right, abs=1e-3)


def test_sentences_scored_together_reuse_shared_tokens_and_score_as_alone(rescorer):
    sentences = ["what is the weather in paris", "what is the whether in paris", "what is the weather"]
    alone = [rescorer.log_prob(s) for s in sentences]  # each prefilled after the header only
    lengths = []
    for s in sentences:
        rescorer.log_prob(s)
        lengths.append(rescorer.last_prefilled)
    assert rescorer.log_probs(sentences) == pytest.approx(alone, abs=1e-3)
    # "what is the" is prefilled once, not three times: only what differs is evaluated again.
    assert sum(lengths) - 2 * 3 >= rescorer.last_prefilled > max(lengths)
    assert rescorer.log_probs(sentences[::-1]) == pytest.approx(alone[::-1], abs=1e-3)
    assert rescorer.log_probs(["what time is it"] * 2) == pytest.approx(
        [rescorer.log_prob("what time is it")] * 2
    )


def test_pick_lets_the_llm_decide_between_close_candidates_only(rescorer):
    close = [("set a timer for ten minuets", -10.0), ("set a timer for ten minutes", -11.0)]
    assert rescorer.pick(close) == "set a timer for ten minutes"
    far = [("set a timer for ten minuets", -10.0), ("set a timer for ten minutes", -14.0)]
    assert rescorer.pick(far) == "set a timer for ten minuets"  # 4 behind: past the margin of 3
    assert rescorer.pick([]) == ""


def test_one_close_candidate_costs_no_llm_at_all():
    unbuilt = LlmRescorer(embedded_llm_path(), margin=3.0)  # log_prob() would raise
    assert unbuilt.pick([("what time is it", -5.0), ("what time is in", -9.0)]) == "what time is it"
    assert unbuilt.last_prefilled == 0
    with pytest.raises(RuntimeError, match="build"):
        unbuilt.log_prob("what time is it")


def test_nbest_gives_distinct_sentences_best_first_led_by_decodes_answer():
    decoder = LexiconDecoder(DEFAULT_ASR_LM).build(log_prior=None)
    log_probs = spelled("set a timer for ten minutes", confidence=0.6)
    nbest = decoder.nbest(log_probs, 8)
    texts, scores = [t for t, _ in nbest], [s for _, s in nbest]
    assert texts[0] == decoder.decode(log_probs) == "set a timer for ten minutes"
    assert 1 < len(texts) <= 8 and len(set(texts)) == len(texts)
    assert scores == sorted(scores, reverse=True)
    assert decoder.nbest(np.zeros((0, len(VOCAB)), np.float32), 8) == [("", 0.0)]


def test_a_model_that_is_not_gguf_names_the_asr_setting(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a model" * 10)
    with pytest.raises(ModelLoadError, match=r"\[asr\] rescore_model"):
        LlmRescorer(bad).build()


def test_a_broken_rescoring_model_is_one_line_and_exit_1(tmp_path, espeak_wav):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)  # the right magic, nothing after it
    config = tmp_path / "config.toml"
    config.write_text(f'[asr]\nrescore_weight = 0.3\nrescore_model = "{bad}"\n')
    wav = espeak_wav("What time is it?")
    command = [sys.executable, "-m", "assistant.cli", "--config", str(config), "transcribe", str(wav)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0
    assert "cannot load LLM model" in proc.stderr and "[asr] rescore_model" in proc.stderr


@pytest.mark.slow
def test_the_config_turns_rescoring_on_for_finals(espeak_wav):
    rec = StreamingRecognizer.from_settings(AsrConfig(rescore_weight=0.3)).build()
    assert rec.rescorer is not None and rec.rescorer.weight == 0.3
    assert StreamingRecognizer.from_settings(AsrConfig()).rescorer is None  # off by default
    # Rescoring needs the beam search's sentences: without the word LM there is none.
    assert (
        StreamingRecognizer.from_settings(AsrConfig(language_model=False, rescore_weight=0.3)).rescorer
        is None
    )
    wave = read_audio(espeak_wav("What is the weather like in Paris today?"))
    log_probs = log_probs_batch(rec.model, [wave], None)[0]
    candidates = rec.decoder.nbest(log_probs, 8)
    assert rec.text_of(log_probs) == rec.rescorer.pick(candidates)
    assert rec.text_of(log_probs) in [text for text, _ in candidates]
    rec.accept(wave)
    assert rec.finalize()  # the live path through the rescorer
