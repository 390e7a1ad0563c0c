import numpy as np
import pytest

from assistant.asr import features
from assistant.asr.features import StreamingFeatures, log_mel, num_frames


def _wave(seconds: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * features.SAMPLE_RATE)) / features.SAMPLE_RATE
    return (0.3 * np.sin(2 * np.pi * 300 * t) + 0.05 * rng.standard_normal(t.size)).astype(np.float32)


def test_contract_constants_agree():
    assert (features.WINDOW, features.HOP, features.FRAMES_PER_SECOND) == (400, 160, 100)
    assert features.N_MELS == 80


def test_log_mel_shape_and_dtype():
    wave = _wave(1.0)
    feats = log_mel(wave)
    assert feats.shape == (num_frames(len(wave)), 80) == (98, 80)
    assert feats.dtype == np.float32 and np.isfinite(feats).all()


def test_shorter_than_a_window_gives_no_frames():
    assert log_mel(np.zeros(399, np.float32)).shape == (0, 80)
    assert num_frames(400) == 1 and num_frames(559) == 1 and num_frames(560) == 2


@pytest.mark.parametrize("piece", [1, 159, 160, 161, 1000, "random"])
def test_streamed_features_equal_whole_signal(piece):
    wave = _wave(1.3, seed=1)
    rng = np.random.default_rng(2)
    stream, out, i = StreamingFeatures(), [], 0
    while i < len(wave):
        n = int(rng.integers(0, 2000)) if piece == "random" else piece
        out.append(stream.accept(wave[i : i + n]))
        i += n
    np.testing.assert_allclose(np.concatenate(out), log_mel(wave), atol=1e-5)


def test_reset_starts_a_new_signal():
    stream = StreamingFeatures()
    stream.accept(_wave(0.5, seed=3))
    stream.reset()
    wave = _wave(0.5, seed=4)
    np.testing.assert_allclose(stream.accept(wave), log_mel(wave), atol=1e-5)
    assert stream.frames_emitted == num_frames(len(wave))


def test_rejects_multichannel_input():
    with pytest.raises(ValueError, match="mono"):
        log_mel(np.zeros((400, 2), np.float32))
