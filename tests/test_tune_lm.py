"""scripts/tune_lm.py: the decoder's weights and the CTC prior, both from the dev set."""

from __future__ import annotations

import json
import shutil
import sys

import numpy as np
import pytest
import torch
from conftest import load_script

from assistant.asr.model import checkpoint_meta, has_prior, load_checkpoint
from assistant.config import DEFAULT_ASR_CHECKPOINT

tune_lm = load_script("tune_lm")


def test_the_prior_is_the_posterior_averaged_over_every_frame():
    # Two utterances of 1 and 3 frames over 3 symbols: the mean is per frame, not per utterance.
    probs = [np.array([[0.8, 0.1, 0.1]]), np.array([[0.4, 0.4, 0.2]] * 3)]
    log_prior = tune_lm.estimate_log_prior([np.log(p).astype(np.float32) for p in probs])
    np.testing.assert_allclose(np.exp(log_prior), [0.5, 0.325, 0.175], rtol=1e-5)


def test_write_prior_stores_the_dev_estimate_in_the_checkpoint_and_nothing_else(
    tmp_path, espeak_wav, monkeypatch, capsys
):
    dev = tmp_path / "data" / "dev"
    dev.mkdir(parents=True)
    texts = ["what time is it", "set a timer for ten minutes"]
    with (dev / "manifest.jsonl").open("w") as f:
        for i, text in enumerate(texts):
            f.write(json.dumps({"audio": str(espeak_wav(text, dev / f"{i}.wav")), "text": text}) + "\n")
    checkpoint = tmp_path / "candidate.pt"
    shutil.copy(DEFAULT_ASR_CHECKPOINT, checkpoint)
    before = load_checkpoint(checkpoint).state_dict()
    argv = ["tune_lm.py", "--checkpoint", str(checkpoint), "--data", str(tmp_path / "data"), "--threads", "1"]
    grid = ["--lm-weights", "1.8", "--word-scores", "0", "--prior-weights", "0,0.6"]
    monkeypatch.setattr(sys, "argv", [*argv, *grid, "--write-prior"])
    tune_lm.main()

    out = capsys.readouterr().out
    assert "wrote the prior" in out and out.count("| 1.8 | 0.0 |") == 2  # both prior weights decoded
    after = load_checkpoint(checkpoint)
    assert has_prior(after)
    assert torch.exp(after.log_prior).sum() == pytest.approx(1.0, abs=1e-4)  # a distribution
    assert after.log_prior[0] == after.log_prior.max()  # CTC's blank: most frames
    for name, value in after.state_dict().items():
        if name != "log_prior":
            assert torch.equal(value, before[name]), name
    assert checkpoint_meta(checkpoint)["log_prior"] == "dev, 2 utterances, full final"
    assert checkpoint_meta(checkpoint)["source"] == checkpoint_meta(DEFAULT_ASR_CHECKPOINT)["source"]
