"""The word language model's beam search on finals: the shipped KenLM model through flashlight."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from assistant.asr.lm_decoder import DecoderWeights, LanguageModelError, LexiconDecoder, words_path_for
from assistant.asr.model import has_prior
from assistant.asr.recognizer import FLUSH_MS, StreamingRecognizer, greedy_text, transcribe_batch
from assistant.asr.text import CHAR_TO_ID, VOCAB
from assistant.audio.files import read_audio
from assistant.config import DEFAULT_ASR_LM, AsrConfig


def spelled(
    text: str, confidence: float = 0.6, frames_per_char: int = 2, rivals: dict[int, str] | None = None
) -> np.ndarray:
    """CTC log-probs (T, V) that spell `text` letter by letter: each letter `confidence` for a few
    frames, then a blank frame (so doubled letters survive), the rest of the mass spread evenly.
    `rivals` {position: letter}: there the spelled letter gets 0.4 and the rival 0.3, a clear but
    small acoustic preference (no tie for float noise to break differently on another CPU)."""
    rivals = rivals or {}
    rows = []
    for pos, c in enumerate(text):
        for idx in [CHAR_TO_ID[c]] * frames_per_char + [0]:
            row = np.full(len(VOCAB), (1 - confidence) / (len(VOCAB) - 1))
            row[idx] = confidence
            if pos in rivals and idx != 0:
                row[:] = 0.3 / (len(VOCAB) - 2)
                row[idx], row[CHAR_TO_ID[rivals[pos]]] = 0.4, 0.3
            rows.append(row)
    return np.log(np.array(rows, dtype=np.float32))


@pytest.fixture(scope="module")
def shipped_decoder() -> LexiconDecoder:
    return LexiconDecoder(DEFAULT_ASR_LM).build(log_prior=None)


def test_the_language_model_repairs_misspelled_words(shipped_decoder):
    # What greedy CTC spells from a weak model: real mistakes of the shipped recognizer's kind.
    for heard, meant in [
        ("set a timmer for ten minuts", "set a timer for ten minutes"),
        ("what is the wether like todai", "what is the weather like today"),
        ("what time is it in pariss", "what time is it in paris"),
    ]:
        log_probs = spelled(heard)
        assert greedy_text(log_probs) == heard  # the letters alone keep the mistakes
        assert shipped_decoder.decode(log_probs) == meant


def test_sure_letters_win_over_the_language_model(shipped_decoder):
    # A rare but real word spelled with certainty must survive a likelier neighbour.
    assert shipped_decoder.decode(spelled("play some jazz", confidence=0.97)) == "play some jazz"


def test_dictionary_words_the_sentences_never_used_come_out(shipped_decoder):
    # WordNet's words (scripts/build_lm.py --wordnet); with only the sentences' words these came out
    # as "key pad to expect" and "deer rick"
    for text in ("use the keypad to eject", "build a derrick on the oil"):
        assert shipped_decoder.decode(spelled(text, confidence=0.9)) == text


def test_no_frames_decode_to_nothing(shipped_decoder):
    assert shipped_decoder.decode(np.zeros((0, len(VOCAB)), np.float32)) == ""


def test_weights_change_the_choice():
    # The letters lean to "tin" (0.4 against 0.3 for "e"); the LM knows timers run for "ten
    # minutes". With no weight on the LM the letters must win, with the shipped weight the LM.
    text = "set a timer for tin minutes"
    log_probs = spelled(text, rivals={text.index("tin") + 1: "e"})
    assert greedy_text(log_probs) == text
    decoded = {
        w: LexiconDecoder(DEFAULT_ASR_LM, DecoderWeights(lm_weight=w)).build(log_prior=None).decode(log_probs)
        for w in (0.0, DecoderWeights().lm_weight)
    }
    assert decoded == {0.0: text, DecoderWeights().lm_weight: "set a timer for ten minutes"}


def test_dividing_out_the_prior_lets_a_letter_the_network_rarely_says_win():
    # The letters lean to "tin" (0.4 against 0.3 for "e"). With no LM weight, only the prior can
    # change that: one in which "i" is common and "e" rare gives "e" back more of its probability.
    text = "set a timer for tin minutes"
    log_probs = spelled(text, rivals={text.index("tin") + 1: "e"})
    log_prior = np.full(len(VOCAB), -3.4, np.float32)
    log_prior[CHAR_TO_ID["i"]], log_prior[CHAR_TO_ID["e"]] = -1.0, -5.0

    def decode(prior_weight: float, prior: np.ndarray) -> str:
        weights = DecoderWeights(lm_weight=0.0, prior_weight=prior_weight)
        return LexiconDecoder(DEFAULT_ASR_LM, weights).build(log_prior=prior).decode(log_probs)

    assert decode(0.6, log_prior) == "set a timer for ten minutes"
    assert decode(0.0, log_prior) == text  # weight 0: off
    assert decode(0.6, np.zeros(len(VOCAB), np.float32)) == text  # a checkpoint without a prior
    assert decode(0.6, None) == text
    with pytest.raises(TypeError, match="log_prior"):  # no default: forgetting it is an error
        LexiconDecoder(DEFAULT_ASR_LM).build()


def test_the_shipped_recognizer_divides_out_its_checkpoints_prior():
    recognizer = StreamingRecognizer.from_settings(AsrConfig()).build()
    assert has_prior(recognizer.model)  # estimated on dev by scripts/tune_lm.py --write-prior
    assert recognizer.decoder.weights.prior_weight == AsrConfig().prior_weight > 0


def test_missing_and_broken_models_are_clear_errors(tmp_path):
    with pytest.raises(LanguageModelError, match="missing"):
        LexiconDecoder(tmp_path / "lm.bin").build(log_prior=None)
    words = words_path_for(tmp_path / "lm.bin")
    words.write_text(words_path_for(DEFAULT_ASR_LM).read_text())
    (tmp_path / "lm.bin").write_bytes(b"not a language model" * 100)
    with pytest.raises(LanguageModelError, match="not a KenLM model"):
        LexiconDecoder(tmp_path / "lm.bin").build(log_prior=None)
    (tmp_path / "lm.bin").write_bytes(DEFAULT_ASR_LM.read_bytes()[:50_000])  # cut short
    with pytest.raises(LanguageModelError, match="unreadable KenLM model"):
        LexiconDecoder(tmp_path / "lm.bin").build(log_prior=None)
    (tmp_path / "lm.bin").write_bytes(DEFAULT_ASR_LM.read_bytes())
    words.write_text("hello\nWorld!\n")
    with pytest.raises(LanguageModelError, match="not a word list"):
        LexiconDecoder(tmp_path / "lm.bin", words_path=words).build(log_prior=None)


def test_the_shipped_word_list_is_the_models_vocabulary():
    words = words_path_for(DEFAULT_ASR_LM).read_text().split()
    assert len(words) > 20_000 and words == sorted(set(words))
    assert {"timer", "weather", "what", "don't"} <= set(words)


@pytest.mark.slow
def test_finals_use_the_language_model_and_partials_do_not(espeak_wav):
    cfg = AsrConfig()
    rec = StreamingRecognizer.from_settings(cfg).build()
    plain = StreamingRecognizer.from_settings(AsrConfig(language_model=False)).build()
    words = set(words_path_for(cfg.lm_path).read_text().split())
    wave = read_audio(espeak_wav("Please set a timer for twenty minutes."))
    partial = rec.accept(wave)
    assert partial == plain.accept(wave)  # partials: greedy letters either way
    peeked = rec.peek_final()
    final = rec.finalize()
    assert final == peeked and final and set(final.split()) <= words
    flushed = np.r_[wave, np.zeros(FLUSH_MS * 16, np.float32)]  # finalize() feeds this silence
    # without the LM: greedy letters of the full-context pass (config's full_context_final)
    assert plain.finalize() == transcribe_batch(plain.model, [flushed], None)[0]


def test_a_broken_language_model_is_one_line_and_exit_1(tmp_path):
    bad = tmp_path / "lm.bin"
    bad.write_bytes(b"junk" * 100)
    words_path_for(bad).write_text("hello\n")
    (tmp_path / "config.toml").write_text(f'[asr]\nlm = "{bad}"\n')
    wav = tmp_path / "a.wav"
    wav.write_bytes(b"")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "assistant.cli",
            "--config",
            str(tmp_path / "config.toml"),
            "transcribe",
            str(wav),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and "not a KenLM model" in proc.stderr


def test_the_config_defaults_are_the_tuned_weights():
    assert (AsrConfig().lm_weight, AsrConfig().word_score, AsrConfig().prior_weight) == (
        DecoderWeights().lm_weight,
        DecoderWeights().word_score,
        DecoderWeights().prior_weight,
    )
