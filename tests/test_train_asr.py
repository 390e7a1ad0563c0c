"""scripts/train_asr.py: the VTLP warp moves formants the right way, and --init starts from a checkpoint."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_asr  # noqa: E402

from assistant.asr.features import SAMPLE_RATE, log_mel  # noqa: E402
from assistant.asr.lm_decoder import SPACE_ID  # noqa: E402
from assistant.asr.model import load_checkpoint  # noqa: E402
from assistant.asr.text import decode, encode  # noqa: E402

CHECKPOINT = Path(__file__).resolve().parents[1] / "models" / "asr" / "conformer_ctc.pt"


def tone(hz: float, seconds: float = 0.5) -> np.ndarray:
    t = np.arange(int(SAMPLE_RATE * seconds)) / SAMPLE_RATE
    return (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def tone_feats(hz: float) -> np.ndarray:
    return log_mel(tone(hz))  # (T, 80)


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
        if name != "log_prior":
            assert torch.equal(value, shipped[name]), name
    assert shipped["log_prior"].any() and not trainer.model.log_prior.any()  # its own comes later
    assert trainer.model.training
    assert trainer.state["step"] == 0
    assert not trainer.opt.state  # a fresh optimizer


def test_average_is_the_weighted_mean_of_the_weights(tmp_path):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    shipped = load_checkpoint(CHECKPOINT)
    moved = load_checkpoint(CHECKPOINT)
    with torch.no_grad():
        for p in moved.parameters():
            p.add_(1.0)
    moved_path = tmp_path / "moved.pt"
    train_asr.save_checkpoint(moved, moved_path)
    out = tmp_path / "avg.pt"
    train_asr.export_average([CHECKPOINT, moved_path], [3.0, 1.0], out)
    averaged = load_checkpoint(out).state_dict()
    for name, value in shipped.state_dict().items():
        if name.endswith("num_batches_tracked"):
            assert torch.equal(averaged[name], value), name
        elif name == "log_prior":  # the average's own is estimated afresh (tune_lm.py --write-prior)
            assert value.any() and not averaged[name].any()
        elif name in dict(shipped.named_parameters()):
            torch.testing.assert_close(averaged[name], value + 0.25, msg=name)
        else:  # buffers that were not moved stay as they were
            torch.testing.assert_close(averaged[name], value, msg=name)


def test_average_refuses_mismatched_weights(tmp_path):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    with pytest.raises(ValueError, match="2 checkpoints but 1 weights"):
        train_asr.average_checkpoints([CHECKPOINT, CHECKPOINT], [1.0])


def rms_db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(x[800:-800] ** 2) + 1e-12))  # edges: the filters' ramps


@pytest.mark.parametrize("mu_law", [False, True])
def test_narrowband_keeps_the_voice_band_and_drops_what_an_8khz_channel_cannot_carry(mu_law):
    low, high = tone(1000.0), tone(6000.0)
    assert abs(rms_db(train_asr.narrowband(low, mu_law)) - rms_db(low)) < 1.0
    assert rms_db(train_asr.narrowband(high, mu_law)) < rms_db(high) - 40
    out = train_asr.narrowband(low, mu_law)
    assert out.shape == low.shape and out.dtype == np.float32


def test_mu_law_adds_only_8_bit_companding_noise():
    ramp = np.linspace(-0.9, 0.9, SAMPLE_RATE).astype(np.float32)
    coarse = train_asr.narrowband(ramp, mu_law=True)
    fine = train_asr.narrowband(ramp, mu_law=False)
    err = coarse[800:-800] - fine[800:-800]
    assert 1e-5 < float(np.sqrt(np.mean(err**2))) < 0.02  # quantized, but only by 8-bit companding


def test_bf16_is_chosen_only_where_the_cpu_has_it(monkeypatch):
    cpu = torch.device("cpu")
    flags = {"plain": "flags\t: fpu sse avx2 avx512f\n", "bf16": "flags\t: fpu avx2 avx512f avx512_bf16\n"}
    for kind, text in flags.items():
        monkeypatch.setattr(train_asr.Path, "read_text", lambda self, text=text: text)
        assert train_asr.bf16_native(cpu) is (kind == "bf16")


def test_average_without_export_is_refused_rather_than_training(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["train_asr.py", "--average", str(CHECKPOINT)])
    with pytest.raises(SystemExit) as exit_info:
        train_asr.parse_args()
    assert exit_info.value.code == 2
    assert "--average writes a checkpoint: give it --export OUT" in capsys.readouterr().err


def speechlike(seconds: float, seed: int) -> np.ndarray:
    """Noise bursts, a tone and digital silence: the feature extractor's ordinary and edge cases."""
    rng = np.random.default_rng(seed)
    n = int(SAMPLE_RATE * seconds)
    wave = rng.normal(0, 0.05, n).astype(np.float32) * (np.sin(np.arange(n) / 900.0) > 0)
    wave[: n // 4] += tone(440.0 + 100 * seed, seconds / 4)[: n // 4]
    wave[-n // 5 :] = 0.0
    return wave


def test_batch_log_mel_matches_kaldi_native_fbank():
    waves = [speechlike(s, i) for i, s in enumerate((1.3, 0.7, 2.05, 0.026))]
    padded = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(w) for w in waves], batch_first=True)
    feats, feat_lens = train_asr.log_mel_batch(padded, torch.tensor([len(w) for w in waves]))
    for b, wave in enumerate(waves):
        expected = log_mel(wave)
        assert int(feat_lens[b]) == len(expected)
        diff = np.abs(feats[b, : len(expected)].numpy() - expected)
        # float32 rounding in the few near-silent bins (log energies of 0-2) gives up to ~0.01
        assert diff.max() < 0.03 and diff.mean() < 1e-3, (diff.max(), diff.mean())
        assert not feats[b, len(expected) :].any()  # padding stays zero, as pad_sequence leaves it


def speech_rows(folder: Path, durations: tuple[float, ...]) -> list[dict]:
    """Manifest rows of speech-like WAV files of these lengths (seconds), all saying "hello there"."""
    rows = []
    for i, seconds in enumerate(durations):
        path = folder / f"u{i}.wav"
        sf.write(path, speechlike(seconds, i), SAMPLE_RATE)
        rows.append({"audio": str(path), "text": "hello there", "duration": seconds})
    return rows


def test_device_features_give_the_batches_the_cpu_path_gives(tmp_path):
    rows = speech_rows(tmp_path, (1.0, 1.6, 0.8))
    cpu = train_asr.collate([train_asr.SpeechDataset(rows)[i] for i in range(3)])
    raw = train_asr.collate([train_asr.SpeechDataset(rows, raw=True)[i] for i in range(3)])
    feats, feat_lens = train_asr.log_mel_batch(raw["waves"], raw["wave_lens"])
    assert torch.equal(feat_lens, cpu["feat_lens"]) and torch.equal(raw["labels"], cpu["labels"])
    diff = np.abs(feats.numpy() - cpu["feats"].numpy())
    assert diff.max() < 0.03 and diff.mean() < 1e-3, (diff.max(), diff.mean())


def test_targets_close_the_last_word_with_a_space(tmp_path):
    # The decoder's lexicon spells "there" as t-h-e-r-e-space: the model must learn to emit that
    # space after the last word too, or the beam search cannot close it.
    path = tmp_path / "u.wav"
    sf.write(path, speechlike(1.0, 0), SAMPLE_RATE)
    _, labels = train_asr.SpeechDataset([{"audio": str(path), "text": "hello there", "duration": 1.0}])[0]
    assert decode(labels.tolist()) == "hello there "
    assert train_asr.label_ids("a") == [*encode("a"), SPACE_ID]


def test_spec_augment_masks_bands_and_spans_within_their_limits():
    feats = torch.randn(16, 400, 80) + 10.0
    lens = torch.tensor([400] * 8 + [120] * 8)
    fill = torch.zeros(80)
    out = train_asr.spec_augment(feats.clone(), lens, fill, torch.Generator().manual_seed(0))
    again = train_asr.spec_augment(feats.clone(), lens, fill, torch.Generator().manual_seed(0))
    assert torch.equal(out, again)  # the generator decides
    masked = out == 0  # (B, T, D)
    bands = masked.all(dim=1)  # (B, D) bins masked over every frame
    spans = masked.all(dim=2)  # (B, T) frames masked in every bin
    assert bands.any() and spans.any()
    assert (bands.sum(1) <= 2 * 15).all()
    assert (spans[:8].sum(1) <= 2 * 30).all()  # 400 frames: 2 spans of ≤ 30
    assert (spans[8:].sum(1) <= 12).all()  # 120 frames: 1 span of ≤ a tenth
    assert torch.equal(out[~masked], feats[~masked])  # nothing else changes


def test_spec_augment_limits_are_the_ones_asked_for():
    # --specaug-*: wider bands and more, longer spans than the defaults, and still within them.
    feats = torch.randn(64, 400, 80) + 10.0
    lens = torch.tensor([400] * 64)
    out = train_asr.spec_augment(
        feats,
        lens,
        torch.zeros(80),
        torch.Generator().manual_seed(1),
        max_freq=27,
        time_every=100,
        max_time=40,
    )
    masked = out == 0
    bands = masked.all(dim=1).sum(1)  # (B,) bins masked over every frame
    spans = masked.all(dim=2).sum(1)  # (B,) frames masked in every bin
    assert (bands <= 2 * 27).all() and (bands > 2 * 15).any()
    assert (spans <= 4 * 40).all() and (spans > 2 * 30).any()  # 400 frames: 4 spans of ≤ 40


def test_repeat_takes_an_engines_utterances_k_times_and_the_rest_once():
    rows = [
        {"voice": "kokoro:af_bella", "n": 0},
        {"voice": "espeak:en-us+m3", "n": 1},
        {"voice": "kokoro:bm_lewis", "n": 2},
    ]
    repeated = train_asr.repeat_engines(rows, ["kokoro=3"])
    assert [r["n"] for r in repeated] == [0, 0, 0, 1, 2, 2, 2]
    assert train_asr.repeat_engines(rows, []) == rows


@pytest.mark.parametrize("share", [0.0, 0.5, 0.8, 1.0])
def test_full_context_share_sets_how_many_batches_see_the_whole_utterance(share):
    rng = random.Random(7)
    draws = [train_asr.random_chunking(rng, share) for _ in range(4000)]
    full = sum(chunk is None for chunk, _ in draws) / len(draws)
    assert abs(full - share) < 0.03
    for chunk, left in draws:
        if chunk is None:
            assert left == -1
        else:
            assert 1 <= chunk <= 25 and left in train_asr.LEFT_CHUNK_CHOICES


@pytest.mark.parametrize("share", ["-0.1", "1.5"])
def test_a_full_context_share_outside_0_to_1_is_refused(share, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["train_asr.py", f"--full-context-share={share}"])
    with pytest.raises(SystemExit) as exit_info:
        train_asr.parse_args()
    assert exit_info.value.code == 2
    assert (
        f"--full-context-share is a share of batches, 0 to 1, not {float(share)}" in capsys.readouterr().err
    )


def test_train_only_moves_the_named_modules_and_leaves_the_rest_exactly_as_it_was(tmp_path, monkeypatch):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    rows = speech_rows(tmp_path, (1.2, 0.9))
    argv = ["train_asr.py", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "run")]
    argv += ["--init", str(CHECKPOINT), "--train-only", "blocks.7", "head", "--warmup", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    trainer = train_asr.Trainer(train_asr.parse_args())
    trainer.build()
    before = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    batch = train_asr.collate([train_asr.SpeechDataset(rows)[i] for i in range(2)])
    trainer.step(batch, random.Random(0), torch.Generator().manual_seed(0))
    after = trainer.model.state_dict()
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert any(k.startswith("head.") for k in moved) and any(k.startswith("blocks.7.") for k in moved)
    # Frozen layers keep their weights and their BatchNorm statistics: they ran in eval mode.
    assert all(k.startswith(("head.", "blocks.7.")) for k in moved), sorted(moved)
    assert all(not p.requires_grad for n, p in trainer.model.named_parameters() if n.startswith("blocks.6."))


def test_train_only_refuses_a_module_the_model_does_not_have(tmp_path, monkeypatch):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    argv = ["train_asr.py", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "run")]
    argv += ["--init", str(CHECKPOINT), "--train-only", "blocks.99", "head"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as exit_info:
        train_asr.main()
    message = "train_asr.py: --train-only: no module named blocks.99 (e.g. blocks.7, head)"
    assert exit_info.value.code == message


def test_distillation_loss_is_zero_for_the_teachers_own_outputs_and_ignores_padding():
    gen = torch.Generator().manual_seed(0)
    teacher = torch.log_softmax(torch.randn(2, 6, 29, generator=gen), -1)  # (B, T', V)
    student = torch.log_softmax(torch.randn(2, 6, 29, generator=gen), -1)
    lens = torch.tensor([6, 4])
    assert train_asr.distillation_loss(teacher, teacher, lens) == pytest.approx(0.0, abs=1e-6)
    assert train_asr.distillation_loss(student, teacher, lens) > 0.1
    padded = student.clone()
    padded[1, 4:] = torch.log_softmax(torch.randn(2, 29, generator=gen), -1)  # past utterance 1's end
    assert train_asr.distillation_loss(padded, teacher, lens) == pytest.approx(
        float(train_asr.distillation_loss(student, teacher, lens))
    )


def fine_tune_trainer(tmp_path: Path, monkeypatch, run: str, extra: list[str]) -> train_asr.Trainer:
    """A built Trainer fine-tuning the shipped checkpoint on tmp_path/data into tmp_path/run, plus `extra`."""
    argv = ["train_asr.py", "--data", str(tmp_path / "data"), "--out", str(tmp_path / run)]
    argv += ["--init", str(CHECKPOINT), "--warmup", "1", "--lr", "1e-3", "--precision", "fp32", *extra]
    monkeypatch.setattr(sys, "argv", argv)
    trainer = train_asr.Trainer(train_asr.parse_args())
    trainer.build()
    return trainer


def test_distill_from_holds_a_step_to_the_teacher(tmp_path, monkeypatch):
    """The same step from the same start, with and without the KL to the start checkpoint: the
    anchored step moves the weights less far from it, and the teacher itself is left untouched."""
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    rows = speech_rows(tmp_path, (1.2, 0.9))
    batch = train_asr.collate([train_asr.SpeechDataset(rows)[i] for i in range(2)])
    distance = {}
    for weight in (0.0, 50.0):
        extra = ["--distill-from", str(CHECKPOINT), "--distill-weight", str(weight)]
        trainer = fine_tune_trainer(tmp_path, monkeypatch, f"run{weight}", extra)
        teacher_before = {k: v.clone() for k, v in trainer.teacher.state_dict().items()}
        for _ in range(3):
            trainer.step(dict(batch), random.Random(0), torch.Generator().manual_seed(0))
        assert not trainer.teacher.training
        assert all(torch.equal(v, trainer.teacher.state_dict()[k]) for k, v in teacher_before.items())
        with torch.no_grad():
            feats, lens = batch["feats"], batch["feat_lens"]
            student, out_lens = trainer.model.eval()(feats, lens, None, -1)
            teacher, _ = trainer.teacher(feats, lens, None, -1)
            distance[weight] = float(train_asr.distillation_loss(student, teacher, out_lens))
    assert distance[50.0] < distance[0.0]


def test_init_with_a_wider_feed_forward_computes_what_the_checkpoint_does_and_then_learns(
    tmp_path, monkeypatch
):
    """`--init X --ff_mult 8`: a network with twice the feed-forward units whose outputs equal X's
    (the new units are silent), kept as snapshot 0 to average with, and whose new units move in a step."""
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    rows = speech_rows(tmp_path, (1.2, 0.9))
    argv = ["train_asr.py", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "run")]
    argv += ["--init", str(CHECKPOINT), "--ff_mult", "8", "--warmup", "1", "--precision", "fp32"]
    monkeypatch.setattr(sys, "argv", argv)
    trainer = train_asr.Trainer(train_asr.parse_args())
    trainer.build()
    shipped = load_checkpoint(CHECKPOINT)
    start = load_checkpoint(tmp_path / "run" / "snapshots" / "step_000000.pt")
    assert start.cfg.ff_mult == 8 and trainer.model.cfg.ff_mult == 8
    assert start.num_parameters() > 1.6 * shipped.num_parameters()
    batch = train_asr.collate([train_asr.SpeechDataset(rows)[i] for i in range(2)])
    with torch.no_grad():
        want, _ = shipped(batch["feats"], batch["feat_lens"], None, -1)
        got, _ = start(batch["feats"], batch["feat_lens"], None, -1)
    assert torch.allclose(got, want, atol=1e-5)
    out = "blocks.0.ff1.net.4.weight"  # (d_model, hidden): the new units' columns start at zero
    assert not trainer.model.state_dict()[out][:, 576:].any()
    trainer.step(batch, random.Random(0), torch.Generator().manual_seed(0))
    assert trainer.model.state_dict()[out][:, 576:].abs().sum() > 0


def test_init_refuses_to_narrow_or_reshape_the_checkpoint(tmp_path, monkeypatch, capsys):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    argv = ["train_asr.py", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "run")]
    monkeypatch.setattr(sys, "argv", argv + ["--init", str(CHECKPOINT), "--ff_mult", "2"])
    with pytest.raises(SystemExit) as exit_info:
        train_asr.main()
    assert exit_info.value.code == "train_asr.py: --ff_mult 2 would narrow the network (it has 4)"
    monkeypatch.setattr(sys, "argv", argv + ["--init", str(CHECKPOINT), "--n_layers", "10"])
    with pytest.raises(SystemExit) as exit_info:
        train_asr.parse_args()
    assert exit_info.value.code == 2
    assert "--init keeps the checkpoint's architecture: drop --n_layers" in capsys.readouterr().err


def test_gradient_reversal_is_the_identity_forward_and_flips_and_scales_the_gradient():
    x = torch.randn(3, 4, requires_grad=True)
    y = train_asr.GradientReversal.apply(x, 0.5)
    assert torch.equal(y, x)
    (y * torch.arange(4.0)).sum().backward()
    assert torch.allclose(x.grad, -0.5 * torch.arange(4.0).expand(3, 4))


def test_voice_adversary_reads_only_valid_frames_and_leaves_unknown_voices_out():
    torch.manual_seed(0)
    adversary = train_asr.VoiceAdversary(d_model=8, n_voices=3)
    hidden = torch.randn(2, 5, 8)  # (B, T', D)
    lens = torch.tensor([5, 3])
    padded = hidden.clone()
    padded[1, 3:] = 100.0  # past utterance 1's end
    assert torch.allclose(adversary(hidden, lens), adversary(padded, lens))
    loss, _ = train_asr.voice_adversary_loss(
        adversary, hidden, lens, torch.tensor([2, train_asr.NO_VOICE]), 1.0
    )
    alone, _ = train_asr.voice_adversary_loss(adversary, hidden[:1], lens[:1], torch.tensor([2]), 1.0)
    assert float(loss.detach()) == pytest.approx(float(alone.detach()))
    none = torch.tensor([train_asr.NO_VOICE, train_asr.NO_VOICE])
    assert float(train_asr.voice_adversary_loss(adversary, hidden, lens, none, 1.0)[0].detach()) == 0.0


def voice_data(tmp_path: Path) -> Path:
    """data/train: four utterances of two voices, two each."""
    train = tmp_path / "data" / "train"
    train.mkdir(parents=True)
    rows = speech_rows(train, (1.2, 0.9, 1.0, 1.1))
    for i, row in enumerate(rows):
        row["voice"] = f"espeak:en+m{i % 2}"
    (train / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path / "data"


def voice_batch(data: Path, voice_ids: dict[str, int]) -> dict[str, torch.Tensor]:
    """voice_data's four utterances as one batch, with their voice classes."""
    rows = train_asr.read_manifest(data / "train")
    return train_asr.collate([train_asr.SpeechDataset(rows, voice_ids=voice_ids)[i] for i in range(4)])


def adversary_trainer(tmp_path: Path, monkeypatch, weight: float, block: int = 3) -> train_asr.Trainer:
    extra = ["--adversary-weight", str(weight), "--adversary-block", str(block)]
    return fine_tune_trainer(tmp_path, monkeypatch, f"run{weight}", extra)


def test_the_voice_classifier_s_gradient_reaches_only_the_blocks_below_it_reversed(tmp_path, monkeypatch):
    """One backward pass of the voice loss alone: the classifier learns to guess the voice, block 3 and
    those below get the opposite of that gradient times the weight, blocks 4-7 and the CTC head none."""
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    data = voice_data(tmp_path)
    trainer = adversary_trainer(tmp_path, monkeypatch, weight=0.5)
    assert trainer.voice_ids == {"espeak:en+m0": 0, "espeak:en+m1": 1}
    batch = voice_batch(data, trainer.voice_ids)
    assert batch["voices"].tolist() == [0, 1, 0, 1]
    model = trainer.model.eval()
    grads = {}
    for scale in (0.5, -1.0):  # -1: the plain gradient of the classifier's loss, for the sign
        model.zero_grad()
        _, out_lens = model(batch["feats"], batch["feat_lens"])
        loss, _ = train_asr.voice_adversary_loss(
            trainer.adversary, trainer.block_output, out_lens, batch["voices"], scale
        )
        loss.backward()
        grads[scale] = {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()}
    low = next(n for n in grads[0.5] if n.startswith("blocks.3.") and n.endswith("weight"))
    assert grads[0.5][low] is not None and grads[0.5][low].abs().sum() > 0
    assert torch.allclose(grads[0.5][low], -0.5 * grads[-1.0][low], atol=1e-7)
    above = [n for n in grads[0.5] if n.startswith(("blocks.4.", "blocks.7.", "head."))]
    assert above and all(grads[0.5][n] is None or not grads[0.5][n].any() for n in above)


def test_an_adversarial_step_trains_the_classifier_and_resuming_restores_it(tmp_path, monkeypatch):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    data = voice_data(tmp_path)
    trainer = adversary_trainer(tmp_path, monkeypatch, weight=0.5)
    batch = voice_batch(data, trainer.voice_ids)
    before = {k: v.clone() for k, v in trainer.adversary.state_dict().items()}
    for _ in range(3):
        trainer.step(dict(batch), random.Random(0), torch.Generator().manual_seed(0))
    after = trainer.adversary.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    fields = trainer._adversary_fields()
    assert set(fields) == {"voice_loss", "voice_accuracy"} and 0 <= fields["voice_accuracy"] <= 1
    path = trainer.out / "last.pt"
    train_asr.save_training_state(path, trainer.model, trainer.opt, trainer.state, trainer.adversary_state())
    monkeypatch.setattr(sys, "argv", [*sys.argv, "--resume"])
    resumed = train_asr.Trainer(train_asr.parse_args())
    resumed.build()
    assert resumed.voice_ids == trainer.voice_ids
    assert all(torch.equal(v, resumed.adversary.state_dict()[k]) for k, v in after.items())


def test_an_adversary_block_the_network_lacks_is_refused(tmp_path, monkeypatch):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    voice_data(tmp_path)
    with pytest.raises(SystemExit, match="blocks are 0-7"):
        adversary_trainer(tmp_path, monkeypatch, weight=0.5, block=8)
