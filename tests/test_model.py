import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf
import torch
import torch.nn.functional as F

from assistant.asr.model import (
    CHECKPOINT_FIX,
    CheckpointError,
    ConformerConfig,
    ConformerCTC,
    MaskedBatchNorm1d,
    StreamState,
    chunk_attention_mask,
    chunk_feature_frames,
    frames_needed,
    has_prior,
    load_checkpoint,
    padding_mask,
    save_checkpoint,
    subsampled_length,
)

torch.set_num_threads(1)
SMALL = ConformerConfig(d_model=32, n_heads=2, n_layers=2, conv_kernel=5, subsampling_channels=8, dropout=0.0)


def _randomize_statistics(model: ConformerCTC, seed: int = 0) -> ConformerCTC:
    """Non-trivial CMVN and running BN statistics, so that the tests exercise them."""
    g = torch.Generator().manual_seed(seed)
    model.cmvn_mean.copy_(torch.rand(80, generator=g) * 5 + 8)
    model.cmvn_std.copy_(torch.rand(80, generator=g) * 2 + 1)
    for m in model.modules():
        if isinstance(m, MaskedBatchNorm1d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.5)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
    return model


@pytest.fixture(scope="module")
def model() -> ConformerCTC:
    torch.manual_seed(0)
    return _randomize_statistics(ConformerCTC(SMALL)).eval()


def _feats(n: int, seed: int = 1) -> torch.Tensor:
    return torch.randn(1, n, 80, generator=torch.Generator().manual_seed(seed)) * 3 + 10  # (1, T, 80)


def _stream(model, feats, chunk, left) -> tuple[torch.Tensor, StreamState]:
    """Feed whole chunks (the last one may be short), as the recognizer does."""
    state, out, pos = model.initial_state(), [], 0
    while pos < feats.shape[1]:
        n = chunk_feature_frames(chunk, state)
        log_probs, state = model.forward_chunk(feats[:, pos : pos + n], state, chunk, left)
        out.append(log_probs)
        pos += n
    return torch.cat(out, dim=1), state


def test_chunk_mask_worked_example():
    expected = torch.tensor(
        [
            [1, 1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0, 0],
            [1, 1, 1, 1, 0, 0],
            [1, 1, 1, 1, 0, 0],
            [0, 0, 1, 1, 1, 1],
            [0, 0, 1, 1, 1, 1],
        ],
        dtype=torch.bool,
    )
    assert torch.equal(chunk_attention_mask(6, 2, 1), expected)


def test_chunk_mask_unlimited_left_and_full_context():
    unlimited = [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]
    assert torch.equal(chunk_attention_mask(5, 2, -1), torch.tensor(unlimited, dtype=torch.bool))
    assert chunk_attention_mask(4, None, 1).all() and chunk_attention_mask(4, 0, 1).all()
    assert torch.equal(chunk_attention_mask(3, 1, 0), torch.eye(3, dtype=torch.bool))


def test_padding_mask_example():
    assert padding_mask(torch.tensor([3, 1]), 3).tolist() == [[True, True, True], [True, False, False]]


def test_subsampling_lengths_match_the_convolutions(model):
    for n in range(7, 40):
        log_probs, lens = model(_feats(n), torch.tensor([n]))
        assert log_probs.shape[1] == lens.item() == subsampled_length(n) == (n - 3) // 4
        assert frames_needed(lens.item()) <= n < frames_needed(lens.item() + 1)
    assert subsampled_length(6) == 0 and model(_feats(3), torch.tensor([3]))[1].item() == 0


@pytest.mark.parametrize("chunk,left", [(1, 1), (4, 2), (8, -1), (8, 1), (4, 0)])
@pytest.mark.parametrize("n_frames", [7, 61, 203])
def test_streaming_equals_masked_full_forward(model, chunk, left, n_frames):
    feats = _feats(n_frames, seed=n_frames)
    with torch.no_grad():
        full, lens = model(feats, torch.tensor([n_frames]), chunk, left)
    streamed, state = _stream(model, feats, chunk, left)
    assert streamed.shape == full.shape and state.offset == lens.item()
    assert (streamed - full).abs().max().item() <= 1e-4
    assert torch.equal(streamed.argmax(-1), full.argmax(-1))


def test_streaming_equals_full_forward_with_shipped_config():
    torch.manual_seed(1)
    model = _randomize_statistics(ConformerCTC(ConformerConfig()), seed=1).eval()
    feats = _feats(150, seed=5)
    with torch.no_grad():
        full, _ = model(feats, torch.tensor([150]), 8, 4)
    streamed, _ = _stream(model, feats, 8, 4)
    assert (streamed - full).abs().max().item() <= 1e-4


def test_future_audio_does_not_change_past_outputs(model):
    feats = _feats(203, seed=7)
    changed = feats.clone()
    changed[:, 4 * 16 + 3 :] = torch.randn_like(changed[:, 4 * 16 + 3 :]) * 3 + 10  # after chunk 4 of 4
    with torch.no_grad():
        a, _ = model(feats, torch.tensor([203]), 4, 2)
        b, _ = model(changed, torch.tensor([203]), 4, 2)
    assert torch.equal(a[:, :16], b[:, :16]) and not torch.allclose(a[:, 16:], b[:, 16:])
    sa, sb = _stream(model, feats, 4, 2)[0], _stream(model, changed, 4, 2)[0]
    assert torch.equal(sa[:, :16], sb[:, :16])


def test_cache_stays_bounded_and_state_is_not_mutated(model):
    state = model.initial_state()
    first, state = model.forward_chunk(_feats(35), state, 8, 2)
    before = [t.clone() for t in state[:4]]
    for i in range(12):
        _, new = model.forward_chunk(_feats(32, seed=i), state, 8, 2)
        assert all(torch.equal(a, b) for a, b in zip(before, state[:4], strict=True))
        state, before = new, [t.clone() for t in new[:4]]
    assert state.att_k.shape[3] == state.att_v.shape[3] == 2 * 8  # left_chunks · chunk_size
    assert state.conv.shape[-1] == SMALL.conv_kernel - 1 and state.feats.shape[1] == 3
    assert state.offset == 8 * 13


def test_forward_chunk_refuses_training_mode():
    with pytest.raises(RuntimeError, match="eval"):
        ConformerCTC(SMALL).train().forward_chunk(_feats(35), ConformerCTC(SMALL).initial_state(), 8, 2)


def test_masked_batch_norm_uses_only_real_frames():
    torch.manual_seed(0)
    bn, ref = MaskedBatchNorm1d(4), torch.nn.BatchNorm1d(4)
    x = torch.randn(2, 4, 10)
    valid = padding_mask(torch.tensor([10, 6]), 10)
    y = bn(x, valid)
    real = torch.cat((x[0], x[1, :, :6]), dim=1)[None]  # (1, 4, 16)
    expected = ref(real)[0]
    torch.testing.assert_close(torch.cat((y[0], y[1, :, :6]), dim=1), expected)
    torch.testing.assert_close(bn.running_mean, ref.running_mean)
    torch.testing.assert_close(bn.running_var, ref.running_var)


def test_padding_does_not_change_real_outputs_in_training():
    torch.manual_seed(0)
    model = ConformerCTC(SMALL).train()  # dropout 0 in SMALL: deterministic
    a, b = _feats(80, seed=1)[0], _feats(50, seed=2)[0]
    lens = torch.tensor([80, 50])
    batch1 = torch.stack((a, F.pad(b, (0, 0, 0, 30))))  # zero padding
    batch2 = torch.stack((a, torch.cat((b, torch.randn(30, 80) * 100))))  # garbage padding
    out1, out_lens = model(batch1, lens, 4, 1)
    out2, _ = model(batch2, lens, 4, 1)
    torch.testing.assert_close(out1[1, : out_lens[1]], out2[1, : out_lens[1]])
    torch.testing.assert_close(out1[0], out2[0])


def test_padded_batch_trains_with_ctc():
    torch.manual_seed(0)
    model = ConformerCTC(SMALL).train()
    feats, lens = torch.randn(3, 120, 80), torch.tensor([120, 90, 40])
    log_probs, out_lens = model(feats, lens, chunk_size=4, left_chunks=2)
    targets, target_lens = torch.randint(1, 29, (3, 5)), torch.tensor([5, 4, 3])
    loss = F.ctc_loss(log_probs.transpose(0, 1), targets, out_lens, target_lens, zero_infinity=True)
    loss.backward()
    assert torch.isfinite(loss)
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


def test_checkpoint_roundtrip(tmp_path, model):
    path = tmp_path / "asr.pt"
    save_checkpoint(model, path, steps=3, data="synthetic")
    loaded = load_checkpoint(path)
    assert loaded.cfg == SMALL and not loaded.training
    feats = _feats(40)
    with torch.no_grad():
        torch.testing.assert_close(loaded(feats, torch.tensor([40]))[0], model(feats, torch.tensor([40]))[0])
    assert torch.load(path, weights_only=True)["meta"] == {"steps": 3, "data": "synthetic"}


def test_the_ctc_prior_travels_with_the_checkpoint_and_older_ones_load_without_it(tmp_path, model):
    assert not has_prior(model)  # a new model has none: zeros
    model.log_prior.copy_(torch.log_softmax(torch.arange(SMALL.vocab_size, dtype=torch.float32), 0))
    save_checkpoint(model, tmp_path / "with.pt")
    assert has_prior(loaded := load_checkpoint(tmp_path / "with.pt"))
    assert torch.equal(loaded.log_prior, model.log_prior)
    # Saved before the prior existed (every candidate of a training run until tune_lm.py --write-prior).
    ckpt = torch.load(tmp_path / "with.pt", weights_only=True)
    del ckpt["model"]["log_prior"]
    torch.save(ckpt, tmp_path / "older.pt")
    assert not has_prior(load_checkpoint(tmp_path / "older.pt"))


def _not_torch(path) -> str:
    return f"ASR checkpoint {path} is corrupt or incompatible (not a PyTorch checkpoint); {CHECKPOINT_FIX}"


def test_missing_or_corrupt_checkpoint_is_one_line(tmp_path, model):
    with pytest.raises(FileNotFoundError, match="missing.pt"):
        load_checkpoint(tmp_path / "missing.pt")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(bad)
    assert str(e.value) == _not_torch(bad)
    torch.save({"config": {"d_model": 7}, "model": {}}, bad)
    with pytest.raises(CheckpointError, match="bad.pt"):
        load_checkpoint(bad)
    # Cut short, as by a full disk: torch's paragraph about it shortened to its first sentence.
    save_checkpoint(model, bad)
    bad.write_bytes(bad.read_bytes()[:1000])
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(bad)
    message = str(e.value)
    assert "\n" not in message and "zip archive" in message and message.endswith(CHECKPOINT_FIX)
    assert "corrupted" not in message  # torch's second sentence ("... your checkpoint file is corrupted")


def test_the_cli_names_a_corrupt_checkpoint_and_the_fix_in_one_line(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    config = tmp_path / "config.toml"
    config.write_text(f"[asr]\ncheckpoint = '{bad}'\n")
    wav = tmp_path / "hum.wav"
    sf.write(wav, np.sin(np.arange(16000) / 8).astype(np.float32) * 0.1, 16000)
    argv = [sys.executable, "-m", "assistant.cli", "--config", str(config), "transcribe", str(wav)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [f"assistant: {_not_torch(bad)}"]


def test_shipped_config_size():
    n = ConformerCTC(ConformerConfig()).num_parameters()
    assert 3_500_000 < n < 6_000_000


def test_hour_long_stream_positions_stay_exact(model):
    """Rotary scores depend only on distances: a stream at frame 90,000 (one hour) behaves as at 0."""
    feats = _feats(99, seed=9)
    start = model.initial_state()
    late = start._replace(offset=90_000)  # a multiple of the chunk size, as a real stream would be
    a, _ = model.forward_chunk(feats, start, 8, 2)
    b, _ = model.forward_chunk(feats, late, 8, 2)
    assert (a - b).abs().max().item() <= 1e-4
