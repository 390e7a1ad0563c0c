"""scripts/train_asr.py: the VTLP warp moves formants the right way, and --init starts from a checkpoint."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_asr  # noqa: E402

from assistant.asr.features import SAMPLE_RATE, log_mel  # noqa: E402
from assistant.asr.model import load_checkpoint  # noqa: E402

CHECKPOINT = Path(__file__).resolve().parents[1] / "models" / "asr" / "conformer_ctc.pt"


def tone_feats(hz: float) -> np.ndarray:
    t = np.arange(SAMPLE_RATE // 2) / SAMPLE_RATE
    return log_mel((0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32))  # (T, 80)


def peak_bin(feats: np.ndarray) -> float:
    return float(np.argmax(feats.mean(0)))


def test_vtlp_identity_at_alpha_one():
    feats = tone_feats(1000.0)
    np.testing.assert_allclose(train_asr.vtlp_warp(feats, 1.0), feats, atol=1e-4)


@pytest.mark.parametrize("alpha", [0.88, 1.12])
def test_vtlp_moves_a_tone_like_scaling_its_frequency(alpha):
    """A 1 kHz tone warped by alpha peaks where a tone of alpha kHz does, within a bin."""
    warped = train_asr.vtlp_warp(tone_feats(1000.0), alpha)
    assert abs(peak_bin(warped) - peak_bin(tone_feats(1000.0 * alpha))) <= 1
    assert peak_bin(warped) != peak_bin(tone_feats(1000.0))


def test_vtlp_keeps_shape_and_the_top_bin_in_place():
    feats = np.random.default_rng(0).normal(5, 2, (50, 80)).astype(np.float32)
    for alpha in (0.88, 1.12):
        warped = train_asr.vtlp_warp(feats, alpha)
        assert warped.shape == feats.shape and warped.dtype == np.float32
        np.testing.assert_allclose(warped[:, -1], feats[:, -1], atol=0.5 * np.abs(feats).max())


def test_init_starts_a_new_run_from_an_exported_checkpoint(tmp_path, monkeypatch):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "train_asr.py",
            "--data",
            str(tmp_path / "data"),
            "--out",
            str(tmp_path / "run"),
            "--init",
            str(CHECKPOINT),
        ],
    )
    trainer = train_asr.Trainer(train_asr.parse_args())
    trainer.build()
    shipped = load_checkpoint(CHECKPOINT).state_dict()
    for name, value in trainer.model.state_dict().items():
        assert torch.equal(value, shipped[name]), name
    assert trainer.model.training
    assert trainer.state["step"] == 0
    assert not trainer.opt.state  # a fresh optimizer
