"""scripts/make_dataset.py: sentences are cleaned consistently and a tiny shard is valid audio + manifest."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import make_dataset as md  # noqa: E402

from assistant.asr.text import VOCAB  # noqa: E402


def test_clean_sentence_speaks_numbers_as_labelled():
    spoken, label = md.clean_sentence("Set a timer for 25 minutes.")
    assert label == "set a timer for twenty five minutes"
    assert spoken == label  # digits: the TTS reads exactly the label's words


def test_clean_sentence_keeps_written_form_without_digits():
    assert md.clean_sentence("Turn on the kitchen lights, please.") == (
        "Turn on the kitchen lights, please.",
        "turn on the kitchen lights please",
    )


@pytest.mark.parametrize("bad", ["Call the FBI now please.", "Ask Dr. Smith about it.", "Hi", "x" * 3])
def test_clean_sentence_rejects_what_tts_would_misread(bad):
    assert md.clean_sentence(bad) is None


def test_heldout_voices_never_train():
    train = {v for vs in md.split_voices(False).values() for v in vs}
    test = {v for vs in md.split_voices(True).values() for v in vs}
    assert train and test and not train & test
    assert "flite:awb" in test and "piper:joe" in train


@pytest.mark.skipif(
    not (shutil.which("espeak-ng") and shutil.which("flite")), reason="needs espeak-ng and flite"
)
def test_tiny_shard_is_valid(tmp_path):
    np.savez(tmp_path / "rirs.npz", *md.make_rir_bank(2, seed=0))
    items = [
        md.Item("t_0", "espeak:en-us+f3", "turn on the lights", "turn on the lights", 1.0, 0.5),
        md.Item("t_1", "flite:kal16", "what time is it", "what time is it", 1.1, 0.3),
        md.Item("t_2", "espeak:en-gb", "set a timer", "set a timer", 0.9, 0.7),
    ]
    assert md.make_shard((tmp_path, "train", 0, items, 0)) == 3
    rows = [json.loads(line) for line in (tmp_path / "train" / "shard_00000.jsonl").open()]
    assert [r["text"] for r in rows] == [i.label for i in items]
    for row in rows:
        wave, sr = sf.read(row["audio"], dtype="float32")
        assert sr == md.SAMPLE_RATE and wave.ndim == 1
        assert abs(len(wave) / sr - row["duration"]) < 0.01 and 0.5 < row["duration"] < 10
        assert 1e-3 < np.abs(wave).max() <= 1.0 and np.isfinite(wave).all()
        assert set(row["text"]) <= set(VOCAB[1:])


def test_heldout_sentences_only_where_allowed(tmp_path, monkeypatch):
    """--heldout-unseen-by: dev and test take only acceptable sentences, as many each, never in train."""
    pool = {
        "a": [(f"w{i}", f"s{i}", f"label {i}") for i in range(40)],
        "b": [(f"w{i}", f"s{i}", f"label {i}") for i in range(100, 106)],
    }
    monkeypatch.setattr(md, "build_sentences", lambda rng: {k: list(v) for k, v in pool.items()})
    accepted = lambda label: int(label.split()[1]) % 3 == 0  # noqa: E731
    data = md.load_or_build_sentences(tmp_path, seed=1, n_heldout=20, heldout_ok=accepted)
    for src in pool:
        dev, test, train = ({lab for *_, lab in data[k][src]} for k in ("dev", "test", "train"))
        assert all(accepted(lab) for lab in dev | test)
        assert len(dev) == len(test) and not dev & test and not (dev | test) & train
        assert len(dev | test | train) == len(pool[src])
    assert len(data["dev"]["a"]) == 5  # n_heldout // (2 sources * 2 splits)
    assert len(data["dev"]["b"]) == 1  # only 102 and 105 are acceptable: one each


def test_unseen_by_the_shipped_language_model():
    """A sentence with a bigram the LM lacks cannot be one it was built from; a training one can."""
    pytest.importorskip("kenlm")
    lm = Path(__file__).resolve().parents[1] / "models" / "asr" / "lm.bin"
    unseen = md.unseen_by(lm)
    assert not unseen("set a timer for five minutes")
    assert unseen("the quick purple elephant sang opera")
