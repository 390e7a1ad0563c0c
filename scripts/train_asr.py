"""Train the streaming Conformer-CTC recognizer on the synthetic data from scripts/make_dataset.py.

    nohup python scripts/train_asr.py --data /work/data/asr --out /work/runs/asr --resume &
    python scripts/train_asr.py --out /work/runs/asr --export models/asr/conformer_ctc.pt
    python scripts/train_asr.py --export avg.pt --average models/asr/conformer_ctc.pt RUN/snapshots/*.pt

On a lent GPU (scripts/lent_gpu_train.sh): ``--max-minutes`` ends the cosine schedule and the run
with the machine's time, ``--device-features`` computes log-mel there (`log_mel_batch`), and
``--passes`` makes an epoch several passes over a set that is small next to the GPU's speed.

Dynamic chunk training: each batch is full context with probability 0.5 (``--full-context-share``;
the live final is read from a full-context pass), otherwise a random chunk
of 1-25 output frames (40 ms each) with 1, 2, 4, 8 or all left chunks, so one model serves every
chunk size; dev WER is measured at the shipped streaming setting (320 ms chunks, 4 left chunks).
Batches are bucketed by length and capped by total audio seconds. `last.pt` (model, optimizer,
step, epoch) is written every few minutes; `best.pt` holds the lowest dev WER so far; with
`--snapshot-every N`, `snapshots/step_XXXXXX.pt` keeps an inference checkpoint every N steps, for
`--average` (the mean of several checkpoints' weights, e.g. the last few snapshots, or the starting
checkpoint and a fine-tune: weight-space averaging is known to hold up better on data unlike the
training data than either end). `--init X --ff_mult 8` fine-tunes a wider network that starts out
computing exactly what X does (`widen_feed_forward`; its start is kept as `snapshots/step_000000.pt`).
`--adversary-weight W` adds voice-adversarial training (`VoiceAdversary`; tried once, not shipped).
The training manifest is re-read at every epoch start, so shards still being synthesized join the
next epoch.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import signal
import sys
import time
from dataclasses import asdict, fields, replace
from pathlib import Path

import numpy as np
import soundfile as sf
import torch
import torch.nn.functional as F
from scipy.signal import resample_poly
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from assistant.asr.features import (  # noqa: E402
    HOP,
    INT16_SCALE,
    LOG_MEL_FLOOR,
    N_MELS,
    SAMPLE_RATE,
    WINDOW,
    log_mel,
)
from assistant.asr.lm_decoder import SPACE_ID  # noqa: E402
from assistant.asr.model import (  # noqa: E402
    ConformerConfig,
    ConformerCTC,
    load_checkpoint,
    load_weights,
    padding_mask,
    save_checkpoint,
)
from assistant.asr.recognizer import transcribe_batch  # noqa: E402
from assistant.asr.text import encode  # noqa: E402

SHIPPED_CHUNK_MS, SHIPPED_LEFT_CHUNKS = 320, 4
LEFT_CHUNK_CHOICES = (1, 2, 4, 8, -1)


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------
def read_manifest(split_dir: Path, max_seconds: float = 20.0) -> list[dict]:
    """Rows of every finished shard of a split (or its manifest.jsonl), skipping over-long ones."""
    paths = sorted(split_dir.glob("shard_*.jsonl")) or [split_dir / "manifest.jsonl"]
    rows = [json.loads(line) for p in paths if p.exists() for line in p.open()]
    for r in rows:  # relative audio paths (scripts/pack_dataset.py) lie under the split directory
        r["audio"] = str(split_dir / r["audio"])
    return [r for r in rows if r["duration"] <= max_seconds and r["text"]]


def engine_of(row: dict) -> str:
    """The engine (make_dataset's name) whose voice spoke a manifest row: "kokoro:af_heart" → kokoro."""
    return row["voice"].split(":")[0]


def repeat_engines(rows: list[dict], repeat: list[str]) -> list[dict]:
    """Each row whose voice comes from an engine named ENGINE=K in `repeat` K times over (e.g.
    kokoro=5: a few thousand utterances of natural-sounding voices beside 30,000 of the others)."""
    times = {engine: int(k) for engine, k in (item.split("=") for item in repeat)}
    return [r for r in rows for _ in range(times.get(engine_of(r), 1))]


def load_wave(path: str) -> np.ndarray:
    wave, sr = sf.read(path, dtype="float32", always_2d=True)
    assert sr == 16000, f"{path}: {sr} Hz"
    return wave[:, 0]


NARROWBAND_RATE = 8000  # Hz: telephone and Bluetooth hands-free (HFP narrowband) microphones


def narrowband(wave: np.ndarray, mu_law: bool) -> np.ndarray:
    """The wave as an 8 kHz channel delivers it: nothing above 4 kHz (the resampler's anti-alias
    filter), optionally G.711 mu-law's 8-bit companding, then back at 16 kHz like any microphone
    the assistant reads. The synthetic data's own band-limiting (make_dataset.random_eq) rarely
    cuts below 4 kHz, and never this steeply."""
    down = resample_poly(wave, 1, SAMPLE_RATE // NARROWBAND_RATE)
    if mu_law:
        mu = 255.0
        x = np.clip(down, -1.0, 1.0)
        code = np.round(np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu) * 127) / 127  # 8 bits
        down = np.sign(code) * np.expm1(np.abs(code) * np.log1p(mu)) / mu
    return resample_poly(down, SAMPLE_RATE // NARROWBAND_RATE, 1).astype(np.float32)[: len(wave)]


def label_ids(text: str) -> list[int]:
    """The CTC target of a transcript: its letters and spaces, closed by one more space. The decoder's
    lexicon spells every word with a closing space, and a model that never learnt to emit one after
    the last word leaves the beam search unable to close it: the word is often dropped (the
    twentieth session, models/asr/HISTORY.md: 108 of test_synth's 600 finals ended in a deleted word, 48
    after a 24-minute fine-tune with these targets)."""
    return [*encode(text), SPACE_ID]


class SpeechDataset(Dataset):
    """Row index → (log-mel (T, 80) float32 tensor, token ids tensor); with ``vtlp`` (p, max), a share
    p of the utterances gets a random warp factor in [1 - max, 1 + max] (`vtlp_warp`); a share
    ``narrowband`` of them goes through an 8 kHz channel (`narrowband`, half of those mu-law). With
    ``raw`` the samples (N,) come instead of log-mel, for `log_mel_batch` on the training device.
    With ``voice_ids`` (voice → class, for `VoiceAdversary`) a third item is the row's voice class,
    NO_VOICE for a voice outside it."""

    def __init__(
        self,
        rows: list[dict],
        vtlp: tuple[float, float] = (0.0, 0.0),
        narrowband: float = 0.0,
        raw: bool = False,
        voice_ids: dict[str, int] | None = None,
    ) -> None:
        self.rows = rows
        self.vtlp = vtlp
        self.narrowband = narrowband
        self.raw = raw
        self.voice_ids = voice_ids

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, ...]:
        row = self.rows[i]
        if self.voice_ids is not None:
            return (*self._speech(row), self.voice_ids.get(row["voice"], NO_VOICE))
        return self._speech(row)

    def _speech(self, row: dict) -> tuple[torch.Tensor, torch.Tensor]:
        labels = torch.tensor(label_ids(row["text"]), dtype=torch.long)
        wave = load_wave(row["audio"])
        if self.narrowband and random.random() < self.narrowband:  # DataLoader seeds `random` per worker
            wave = narrowband(wave, mu_law=random.random() < 0.5)
        if self.raw:
            return torch.from_numpy(wave), labels
        feats = log_mel(wave)
        p, most = self.vtlp
        if p and random.random() < p:  # DataLoader seeds `random` in each worker
            feats = vtlp_warp(feats, random.uniform(1 - most, 1 + most))
        return torch.from_numpy(feats), labels


def _mel(f: np.ndarray) -> np.ndarray:
    return 1127.0 * np.log1p(f / 700.0)  # Kaldi's mel scale


# Kaldi's default mel bins: N_MELS triangles equally spaced in mel between 20 Hz and Nyquist.
_MEL_CENTRES = np.linspace(_mel(np.array(20.0)), _mel(np.array(SAMPLE_RATE / 2)), N_MELS + 2)[1:-1]  # (80,)
VTLP_BOUNDARY_HZ = 4800.0  # the warp is linear up to here, then bends to keep Nyquist fixed


def vtlp_warp(feats: np.ndarray, alpha: float) -> np.ndarray:
    """Vocal tract length perturbation (Jaitly & Hinton 2013) on log-mel frames (T, 80): the
    spectrum's frequency axis scaled by ``alpha`` (formants move, pitch and timing stay), piecewise
    linear so 0 Hz and Nyquist stay put; each output bin reads the input between bins, linearly.
    Synthetic voices are few; warping makes more vocal tracts of each, closer to real speakers'."""
    nyquist = SAMPLE_RATE / 2
    knee = VTLP_BOUNDARY_HZ * min(alpha, 1.0) / alpha  # input Hz where the warp bends
    f_in = np.linspace(0.0, nyquist, 512)
    f_out = np.where(
        f_in <= knee,
        alpha * f_in,
        nyquist - (nyquist - alpha * knee) / (nyquist - knee) * (nyquist - f_in),
    )
    centres_hz = 700.0 * np.expm1(_MEL_CENTRES / 1127.0)
    source_hz = np.interp(centres_hz, f_out, f_in)  # the input frequency each output bin shows
    pos = np.interp(_mel(source_hz), _MEL_CENTRES, np.arange(N_MELS))  # fractional input bin (80,)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, N_MELS - 1)
    w = (pos - lo).astype(np.float32)
    return (feats[:, lo] * (1 - w) + feats[:, hi] * w).astype(np.float32)


def collate(items: list[tuple]) -> dict[str, torch.Tensor]:
    """Padded log-mel (B, T, 80) as "feats", or padded samples (B, N) as "waves" (raw datasets);
    the voice classes (B,) as "voices" where the dataset gives them."""
    inputs, labels, *voices = zip(*items, strict=True)
    key = "waves" if inputs[0].ndim == 1 else "feats"
    batch = {
        key: torch.nn.utils.rnn.pad_sequence(inputs, batch_first=True),
        f"{key[:-1]}_lens": torch.tensor([len(x) for x in inputs]),
        "labels": torch.cat(labels),
        "label_lens": torch.tensor([len(t) for t in labels]),
    }
    if voices:
        batch["voices"] = torch.tensor(voices[0])
    return batch


# assistant.asr.features.log_mel (kaldi-native-fbank, one utterance on the CPU) done for a padded
# batch with torch, so a GPU can compute the features its loader processes otherwise would: Kaldi's
# steps, snip_edges framing, DC removal, pre-emphasis 0.97, Povey window, 512-point power
# spectrum, 80 mel triangles from 20 Hz to Nyquist, log floored at float epsilon, then the
# recognizer's LOG_MEL_FLOOR. tests/test_train_asr.py holds it to kaldi-native-fbank's values.
PREEMPHASIS, POVEY_POWER, FFT_SIZE = 0.97, 0.85, 512


def kaldi_mel_banks() -> torch.Tensor:
    """(80, 257) triangle weights over the FFT bins, as Kaldi's MelBanks (the Nyquist bin unused)."""
    lo, hi = _mel(np.array(20.0)), _mel(np.array(SAMPLE_RATE / 2))
    delta = (hi - lo) / (N_MELS + 1)
    bin_mel = _mel(SAMPLE_RATE / FFT_SIZE * np.arange(FFT_SIZE // 2))  # (256,)
    banks = np.zeros((N_MELS, FFT_SIZE // 2 + 1), np.float32)
    for k in range(N_MELS):
        left, centre, right = lo + k * delta, lo + (k + 1) * delta, lo + (k + 2) * delta
        rising, falling = (bin_mel - left) / (centre - left), (right - bin_mel) / (right - centre)
        inside = (bin_mel > left) & (bin_mel < right)
        banks[k, : FFT_SIZE // 2] = np.where(inside, np.where(bin_mel <= centre, rising, falling), 0.0)
    return torch.from_numpy(banks)


def log_mel_batch(waves: torch.Tensor, lens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded samples (B, N) in [-1, 1] and their lengths (B,) → log-mel (B, T, 80) with zeros past
    each utterance's frames, and frame counts (B,), on the samples' device."""
    frames = (waves * INT16_SCALE).unfold(1, WINDOW, HOP)  # (B, T, 400)
    frames = frames - frames.mean(-1, keepdim=True)
    frames = torch.cat(
        (frames[..., :1] * (1 - PREEMPHASIS), frames[..., 1:] - PREEMPHASIS * frames[..., :-1]), dim=-1
    )
    n = torch.arange(WINDOW, device=waves.device, dtype=torch.float64)
    window = ((0.5 - 0.5 * torch.cos(2 * math.pi * n / (WINDOW - 1))) ** POVEY_POWER).float()  # (400,)
    power = torch.fft.rfft(frames * window, n=FFT_SIZE).abs().square()  # (B, T, 257)
    energies = power @ kaldi_mel_banks().to(waves.device).T  # (B, T, 80)
    feats = energies.clamp(min=torch.finfo(torch.float32).eps).log().clamp(min=LOG_MEL_FLOOR)
    feat_lens = torch.where(lens < WINDOW, 0, 1 + (lens - WINDOW) // HOP)
    valid = torch.arange(feats.shape[1], device=waves.device)[None, :] < feat_lens[:, None]  # (B, T)
    return feats * valid[..., None], feat_lens


def duration_batches(rows: list[dict], max_seconds: float, seed: int) -> list[list[int]]:
    """Indices grouped by similar length, each batch's padded audio ≤ max_seconds; batch order shuffled."""
    rng = random.Random(seed)
    order = sorted(range(len(rows)), key=lambda i: rows[i]["duration"] + rng.uniform(0, 0.3))
    batches, current, longest = [], [], 0.0
    for i in order:
        d = rows[i]["duration"]
        if current and max(longest, d) * (len(current) + 1) > max_seconds:
            batches.append(current)
            current, longest = [], 0.0
        current.append(i)
        longest = max(longest, d)
    if current:
        batches.append(current)
    rng.shuffle(batches)
    return batches


def cmvn_stats(rows: list[dict], n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Global per-bin mean and std of log-mel over a random sample of training utterances."""
    sample = random.Random(seed).sample(rows, min(n, len(rows)))
    feats = np.concatenate([log_mel(load_wave(r["audio"])) for r in sample]).astype(np.float64)
    return torch.tensor(feats.mean(0), dtype=torch.float32), torch.tensor(
        feats.std(0) + 1e-5, dtype=torch.float32
    )


# ---------------------------------------------------------------------------------------------
# Training pieces
# ---------------------------------------------------------------------------------------------
# SpecAugment's limits as shipped runs trained with them (the --specaug-* flags' defaults).
SPECAUG_FREQ_MASKS, SPECAUG_MAX_FREQ, SPECAUG_TIME_EVERY, SPECAUG_MAX_TIME = 2, 15, 150, 30


def spec_augment(
    feats: torch.Tensor,
    lens: torch.Tensor,
    fill: torch.Tensor,
    gen: torch.Generator,
    n_freq: int = SPECAUG_FREQ_MASKS,
    max_freq: int = SPECAUG_MAX_FREQ,
    time_every: int = SPECAUG_TIME_EVERY,
    max_time: int = SPECAUG_MAX_TIME,
) -> torch.Tensor:
    """Random frequency bands (``n_freq`` per utterance, ≤ ``max_freq`` bins) and time spans (one
    per ``time_every`` frames, ≤ ``max_time`` and ≤ a tenth of the utterance) replaced by the CMVN
    mean (→ 0 after CMVN). Drawn on the CPU from ``gen`` for the whole batch at once and applied
    on the features' device: a loop over utterances would be a kernel launch per mask on a GPU."""
    B, T, D = feats.shape  # (B, T, 80)
    lens = lens.cpu()
    u = torch.rand((B, n_freq, 2), generator=gen)
    width = (u[..., 0] * (max_freq + 1)).floor()  # (B, n_freq) in [0, max_freq]
    start = (u[..., 1] * (D - width + 1)).floor()  # in [0, D - width]
    bins = torch.arange(D)
    freq_mask = ((bins >= start[..., None]) & (bins < (start + width)[..., None])).any(1)  # (B, D)
    count = (lens // time_every).clamp(min=1)  # (B,) time masks per utterance
    v = torch.rand((B, int(count.max()), 2), generator=gen)
    longest = (lens // 10).clamp(min=1).clamp(max=max_time)  # (B,)
    span = (v[..., 0] * (longest[:, None] + 1)).floor()  # (B, K) in [0, longest]
    t0 = (v[..., 1] * (lens[:, None] - span).clamp(min=1)).floor()  # in [0, n - span)
    used = torch.arange(v.shape[1])[None, :] < count[:, None]  # (B, K)
    t = torch.arange(T)
    time_mask = ((t >= t0[..., None]) & (t < (t0 + span)[..., None]) & used[..., None]).any(1)  # (B, T)
    mask = freq_mask.to(feats.device)[:, None, :] | time_mask.to(feats.device)[:, :, None]  # (B, T, D)
    return torch.where(mask, fill.to(feats.device, feats.dtype), feats)


def random_chunking(rng: random.Random, p_full: float) -> tuple[int | None, int]:
    """(chunk_size in output frames or None for full context, left_chunks) for one batch;
    p_full is --full-context-share, whose default lives in parse_args alone."""
    if rng.random() < p_full:
        return None, -1
    return rng.randint(1, 25), rng.choice(LEFT_CHUNK_CHOICES)


def learning_rate(
    step: int, peak: float, warmup: int, schedule: str, max_steps: int, time_progress: float = 0.0
) -> float:
    """Linear warmup, then Noam (inverse square root) or cosine decay to 5% of the peak. The cosine
    runs to ``max_steps`` or to the end of a time budget (``time_progress`` 0 → 1), whichever comes
    first: on a machine lent for a fixed time the step rate is unknown until the run starts."""
    if step < warmup:
        return peak * (step + 1) / warmup
    if schedule == "cosine":
        progress = min(1.0, max((step - warmup) / max(1, max_steps - warmup), time_progress))
        return peak * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress)))
    return peak * math.sqrt(warmup / (step + 1))


def forward_log_probs(
    model: ConformerCTC, feats: torch.Tensor, lens: torch.Tensor, chunk: int | None, left: int, bf16: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, T', V) log-probs and (B,) output lengths. bf16 autocast: matrix products in bfloat16 (about
    2x faster on CPUs with AVX512-BF16), normalization statistics stay float32."""
    with torch.autocast(feats.device.type, dtype=torch.bfloat16, enabled=bf16):
        return model(feats, lens, chunk, left)


def ctc_loss(
    model: ConformerCTC, batch: dict, chunk: int | None, left: int, bf16: bool = False
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(mean CTC loss per utterance, its log-probs (B, T', V), output lengths (B,)); the loss in float32."""
    log_probs, out_lens = forward_log_probs(model, batch["feats"], batch["feat_lens"], chunk, left, bf16)
    loss = F.ctc_loss(
        log_probs.float().transpose(0, 1),
        batch["labels"],
        out_lens,
        batch["label_lens"],
        blank=0,
        reduction="sum",
        zero_infinity=True,
    )
    return loss / len(out_lens), log_probs, out_lens


def distillation_loss(student: torch.Tensor, teacher: torch.Tensor, out_lens: torch.Tensor) -> torch.Tensor:
    """KL(teacher ‖ student) summed over each utterance's output frames (padding left out), mean per
    utterance: the scale of the CTC loss beside it. Both (B, T', V) log-probs."""
    teacher, student = teacher.float(), student.float()
    kl = (teacher.exp() * (teacher - student)).sum(-1)  # (B, T')
    return (kl * padding_mask(out_lens, kl.shape[1])).sum() / len(out_lens)


# Voice-adversarial training (`--adversary-weight`): the held-out voices of other engines (flite
# `awb`, festival `ked_diphone`) stayed at 37% WER through every fine-tune that heard more voices,
# while the training voices' held-out sentences are at 12%: the network keys on who speaks. A small
# classifier guesses the training voice from one block's output; its gradient reaches the blocks
# below reversed (Ganin & Lempitsky 2015; speaker-invariant training, Meng et al. 2018), so they
# learn to keep what says the words and drop what says the voice. Training only: the exported
# checkpoint holds the recognizer alone. Tried once (forty-second session, weight 0.5 on block 3):
# against a control run, test_synth moved inside the noise and real actors (`drascula`) got worse;
# models/asr/HISTORY.md.
NO_VOICE = -1  # a row whose voice the classifier has no class for (a shard that joined later)


class GradientReversal(torch.autograd.Function):
    """Identity forward; backward, the gradient times −scale."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, scale: float) -> torch.Tensor:
        ctx.scale = scale
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        return -ctx.scale * grad, None


class VoiceAdversary(torch.nn.Module):
    """(B, T', D) block output, (B,) lengths → (B, n_voices) logits, from the mean over valid frames."""

    def __init__(self, d_model: int, n_voices: int, hidden: int = 256) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(d_model, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, n_voices)
        )

    def forward(self, hidden: torch.Tensor, out_lens: torch.Tensor) -> torch.Tensor:
        valid = padding_mask(out_lens, hidden.shape[1])  # (B, T')
        pooled = (hidden.float() * valid[..., None]).sum(1) / out_lens.clamp(min=1)[:, None]  # (B, D)
        return self.net(pooled)  # (B, n_voices)


def voice_adversary_loss(
    adversary: VoiceAdversary,
    hidden: torch.Tensor,
    out_lens: torch.Tensor,
    voices: torch.Tensor,
    scale: float,
) -> tuple[torch.Tensor, float]:
    """(cross-entropy of the voice guess, mean per utterance; the guess's accuracy). The classifier
    learns from the loss as it is; the blocks under `hidden` get its gradient × −scale."""
    logits = adversary(GradientReversal.apply(hidden, scale), out_lens)  # (B, n_voices)
    known = voices != NO_VOICE
    if not known.any():
        return logits.sum() * 0.0, 0.0
    loss = F.cross_entropy(logits[known], voices[known])
    accuracy = (logits[known].argmax(-1) == voices[known]).float().mean()
    return loss, float(accuracy)


def word_error_rate(
    model: ConformerCTC, rows: list[dict], chunk_ms: int | None, batch: int = 16
) -> tuple[float, list[str]]:
    """WER (jiwer) of greedy CTC over rows; chunk_ms None = full context. The masked forward used
    here equals the chunk-by-chunk streaming path for the same chunk (tests/test_model.py)."""
    import jiwer  # noqa: PLC0415

    hyps: list[str] = []
    for i in range(0, len(rows), batch):
        waves = [load_wave(r["audio"]) for r in rows[i : i + batch]]
        hyps += transcribe_batch(model, waves, chunk_ms, SHIPPED_LEFT_CHUNKS)
    refs = [r["text"] for r in rows]
    return jiwer.wer(refs, [h or "<empty>" for h in hyps]), hyps


# ---------------------------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------------------------
def save_training_state(
    path: Path, model: ConformerCTC, opt: torch.optim.Optimizer, state: dict, adversary: dict | None = None
) -> None:
    """`adversary`: the voice classifier's weights and voice list, which resuming needs beside the
    optimizer's state of its parameters."""
    tmp = path.with_suffix(".tmp")
    torch.save(
        {
            "config": asdict(model.cfg),
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "state": state,
            **({"adversary": adversary} if adversary else {}),
        },
        tmp,
    )
    tmp.replace(path)


def export(run_dir: Path, out: Path, which: str) -> None:
    """Write an inference-only checkpoint (no optimizer) with its training meta."""
    ckpt = torch.load(run_dir / which, map_location="cpu", weights_only=False)
    model = load_weights(ConformerCTC(ConformerConfig(**ckpt["config"])), ckpt["model"])
    s = ckpt["state"]
    meta = {
        k: s[k]
        for k in (
            "step",
            "epoch",
            "train_hours",
            "train_utterances",
            "dev_wer",
            "dev_wer_full",
            "train_seconds",
            "voices",
        )
        if k in s
    }
    meta["source"] = which
    save_checkpoint(model, out, **meta)
    print(f"exported {run_dir / which} → {out} ({out.stat().st_size / 1e6:.1f} MB) {meta}")


def average_checkpoints(paths: list[Path], weights: list[float] | None = None) -> ConformerCTC:
    """The weighted mean of exported checkpoints of one architecture: parameters and float buffers
    (CMVN, batch-norm statistics) averaged, integer buffers (batch counts) from the first; no CTC
    prior (see below)."""
    weights = weights or [1.0] * len(paths)
    if len(weights) != len(paths):
        raise ValueError(f"{len(paths)} checkpoints but {len(weights)} weights")
    models = [load_checkpoint(p) for p in paths]
    if any(m.cfg != models[0].cfg for m in models):
        raise ValueError("checkpoints of different architectures cannot be averaged")
    total = sum(weights)
    states = [m.state_dict() for m in models]
    mean = {
        name: sum(w * s[name] for w, s in zip(weights, states, strict=True)) / total
        if value.is_floating_point()
        else value
        for name, value in states[0].items()
    }
    # A prior is one network's mean output: the average gets its own from tune_lm.py --write-prior.
    mean["log_prior"] = torch.zeros_like(mean["log_prior"])
    models[0].load_state_dict(mean)
    return models[0]


def export_average(paths: list[Path], weights: list[float] | None, out: Path) -> None:
    model = average_checkpoints(paths, weights)
    save_checkpoint(model, out, source="average", averaged=[str(p) for p in paths], weights=weights)
    print(f"exported the average of {len(paths)} checkpoints → {out}")


def bf16_native(device: torch.device) -> bool:
    """Whether bfloat16 matrix products run in hardware here. On a CPU without AVX512-BF16 or AMX
    torch emulates them: a batch took 48 s against ~10 s in float32 on an AVX2-only EPYC (both beside
    the dataset synthesis)."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return bool(re.search(r"\b(avx512_bf16|amx_bf16)\b", flags))


class UnknownModuleError(ValueError):
    """--train-only named a module the model does not have: a usage error, told in one line."""


def freeze_except(model: torch.nn.Module, prefixes: list[str]) -> list[torch.nn.Module]:
    """Freeze every parameter outside the modules named by `prefixes` ("blocks.7", "head") and
    return the frozen modules, which the loop keeps in eval mode: their dropout off and their
    BatchNorm statistics fixed, so a fine-tune of the top layers leaves the rest as it was."""
    names = {n for n, _ in model.named_modules()}
    unknown = [p for p in prefixes if p not in names]
    if unknown:
        raise UnknownModuleError(f"--train-only: no module named {', '.join(unknown)} (e.g. blocks.7, head)")

    def inside(name: str) -> bool:
        return any(name == p or name.startswith(p + ".") for p in prefixes)

    def holds_trainable(name: str) -> bool:  # the model itself, or a container such as "blocks"
        return name == "" or any(p.startswith(name + ".") for p in prefixes)

    for name, param in model.named_parameters():
        param.requires_grad_(inside(name))
    return [m for n, m in model.named_modules() if not inside(n) and not holds_trainable(n)]


def widen_feed_forward(model: ConformerCTC, ff_mult: int, seed: int) -> ConformerCTC:
    """The same network with every feed-forward module ff_mult · d_model hidden units wide. The new
    units get a fresh network's initial weights on the way in (drawn under `seed`) and zeros on the
    way out, so the wider network computes exactly what `model` does until training moves them."""
    if ff_mult < model.cfg.ff_mult:
        raise ValueError(f"--ff_mult {ff_mult} would narrow the network (it has {model.cfg.ff_mult})")
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        wide = ConformerCTC(replace(model.cfg, ff_mult=ff_mult))
    state = wide.state_dict()
    for name, value in model.state_dict().items():
        target = state[name]
        if target.shape == value.shape:
            target.copy_(value)
        elif name.endswith(("net.1.weight", "net.1.bias")):  # in: (hidden, d_model), (hidden,)
            target[: value.shape[0]].copy_(value)
        elif name.endswith("net.4.weight"):  # out: (d_model, hidden); the new units' columns stay silent
            target.zero_()
            target[:, : value.shape[1]].copy_(value)
        else:
            raise ValueError(f"cannot widen {name}: {tuple(value.shape)} -> {tuple(target.shape)}")
    wide.load_state_dict(state)
    return wide.train(model.training)


def model_config(args: argparse.Namespace) -> ConformerConfig:
    names = {f.name for f in fields(ConformerConfig)}
    overrides = {k: v for k, v in vars(args).items() if k in names and v is not None}
    return ConformerConfig(**overrides)


# ---------------------------------------------------------------------------------------------
# The loop
# ---------------------------------------------------------------------------------------------
class Trainer:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.out: Path = args.out
        self.out.mkdir(parents=True, exist_ok=True)
        self.log_file = (self.out / "train.log").open("a")
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.bf16 = args.precision == "bf16" or (args.precision == "auto" and bf16_native(self.device))
        self.dev_rows = read_manifest(args.data / "dev")[: args.dev_utts]
        self.stop_requested = False
        signal.signal(signal.SIGTERM, self._request_stop)  # kill PID: save last.pt, then exit

    def _request_stop(self, signum: int, _frame) -> None:
        self.stop_requested = True

    def log(self, msg: str, **fields) -> None:
        line = json.dumps({"time": time.strftime("%H:%M:%S"), "msg": msg, **fields})
        self.log_file.write(line + "\n")
        self.log_file.flush()
        from tqdm import tqdm  # noqa: PLC0415

        tqdm.write(line, file=sys.stderr)

    def build(self) -> None:
        args = self.args
        last = self.out / "last.pt"
        if args.resume and last.exists():
            ckpt = torch.load(last, map_location="cpu", weights_only=False)
            self.model = load_weights(ConformerCTC(ConformerConfig(**ckpt["config"])), ckpt["model"])
            self.state = ckpt["state"]
            saved_adversary = ckpt.get("adversary")
            self.place_and_optimize(saved_adversary["voices"] if saved_adversary else None)
            if self.adversary is not None and saved_adversary:
                self.adversary.load_state_dict(saved_adversary["weights"])
            self.opt.load_state_dict(ckpt["optimizer"])
            self.log("resumed", step=self.state["step"], epoch=self.state["epoch"])
        else:
            widened = False
            if args.init:  # an exported checkpoint's weights and CMVN; a fresh optimizer and schedule
                self.model = load_checkpoint(args.init).train()
                if args.ff_mult and args.ff_mult != self.model.cfg.ff_mult:
                    try:
                        self.model = widen_feed_forward(self.model, args.ff_mult, args.seed)
                    except ValueError as e:
                        sys.exit(f"train_asr.py: {e}")
                    widened = True
                # Its CTC prior is the parent network's: a candidate gets its own (tune_lm.py
                # --write-prior) rather than one that fits a network it no longer is.
                self.model.log_prior.zero_()
            else:
                self.model = ConformerCTC(model_config(args))
                rows = read_manifest(args.data / "train")
                mean, std = cmvn_stats(rows, args.cmvn_utts, args.seed)
                self.model.cmvn_mean.copy_(mean)
                self.model.cmvn_std.copy_(std)
            self.place_and_optimize()
            self.state = {
                "step": 0,
                "epoch": 0,
                "batch_in_epoch": 0,
                "train_seconds": 0.0,
                "best_wer": 1e9,
                "epoch_rows": 0,
            }
            self.log(
                "start",
                init=str(args.init) if args.init else None,
                params=self.model.num_parameters(),
                trainable=sum(p.numel() for p in self.model.parameters() if p.requires_grad),
                config=asdict(self.model.cfg),
                device=str(self.device),
                bf16=self.bf16,
            )
            if widened:  # the widened start is a network no file holds yet: keep it, to average with
                self.snapshot()

    def place_and_optimize(self, voices: list[str] | None = None) -> None:
        """Move the model (and a --distill-from teacher) to the device, freeze what --train-only
        leaves out, make the --adversary-weight voice classifier (over `voices`, or every training
        voice), make the optimizer."""
        self.model.to(self.device)
        self.teacher = None
        if self.args.distill_from:
            self.teacher = load_checkpoint(self.args.distill_from, self.device).requires_grad_(False)
        self.frozen = freeze_except(self.model, self.args.train_only) if self.args.train_only else []
        self.adversary, self.voice_ids = None, None
        if self.args.adversary_weight > 0:
            self._make_adversary(
                voices or sorted({r["voice"] for r in read_manifest(self.args.data / "train")})
            )
        self.opt = self._optimizer()

    def _make_adversary(self, voices: list[str]) -> None:
        """The voice classifier, and a hook that keeps --adversary-block's output (B, T', D) for it."""
        blocks = self.model.blocks
        if not 0 <= self.args.adversary_block < len(blocks):
            last = len(blocks) - 1
            sys.exit(f"train_asr.py: --adversary-block {self.args.adversary_block}: blocks are 0-{last}")
        self.voice_ids = {v: i for i, v in enumerate(voices)}
        self.adversary = VoiceAdversary(self.model.cfg.d_model, len(voices)).to(self.device)
        self.adversary_window: list[tuple[float, float]] = []  # (loss, accuracy) since the last log line

        def keep(_module, _inputs, output: torch.Tensor) -> None:
            self.block_output = output

        blocks[self.args.adversary_block].register_forward_hook(keep)

    def adversary_state(self) -> dict | None:
        if self.adversary is None:
            return None
        return {"voices": list(self.voice_ids), "weights": self.adversary.state_dict()}

    def _optimizer(self) -> torch.optim.Optimizer:
        trainable = [p for p in self.model.parameters() if p.requires_grad]
        if self.adversary is not None:
            trainable += list(self.adversary.parameters())
        decay = [p for p in trainable if p.ndim >= 2]
        no_decay = [p for p in trainable if p.ndim < 2]
        return torch.optim.AdamW(
            [
                {"params": decay, "weight_decay": self.args.weight_decay},
                {"params": no_decay, "weight_decay": 0.0},
            ],
            lr=self.args.lr,
            betas=(0.9, 0.98),
        )

    def loader(self, rows: list[dict], batches: list[list[int]]) -> DataLoader:
        return DataLoader(
            SpeechDataset(
                rows,
                (self.args.vtlp, self.args.vtlp_max),
                self.args.narrowband,
                self.args.device_features,
                self.voice_ids,
            ),
            batch_sampler=batches,
            collate_fn=collate,
            num_workers=self.args.workers,
            pin_memory=self.device.type == "cuda",
            prefetch_factor=4 if self.args.workers else None,
            persistent_workers=False,
        )

    def run(self) -> None:
        from tqdm import tqdm  # noqa: PLC0415

        args, s = self.args, self.state
        last_save = self.started = time.monotonic()
        chunk_rng = random.Random(args.seed + s["step"])
        gen = torch.Generator().manual_seed(args.seed + s["step"])
        while s["epoch"] < args.epochs:
            rows = repeat_engines(read_manifest(args.data / "train"), args.repeat)
            curriculum = s["step"] < args.curriculum_steps
            if curriculum:  # SortaGrad-like start: short utterances only, until CTC finds the acoustics
                rows = [
                    r
                    for r in rows
                    if r["duration"] <= args.curriculum_seconds and r.get("snr", 99.0) >= args.curriculum_snr
                ]
            if s["batch_in_epoch"] and len(rows) != s["epoch_rows"]:
                s["batch_in_epoch"] = 0  # the manifest grew: this epoch's order no longer exists
            s["epoch_rows"] = len(rows)
            s["train_hours"] = sum(r["duration"] for r in rows) / 3600
            s["train_utterances"] = len(rows)
            # --passes K: an epoch is K shuffled passes, so that on a fast machine and a small set the
            # per-epoch costs (new loader processes, evaluation, last.pt) stay a small share.
            batches = [
                b
                for k in range(args.passes)
                for b in duration_batches(rows, args.batch_seconds, args.seed + s["epoch"] * args.passes + k)
            ]
            self.log(
                "epoch",
                epoch=s["epoch"],
                utterances=len(rows),
                hours=round(s["train_hours"], 2),
                batches=len(batches),
                skip=s["batch_in_epoch"],
                curriculum=curriculum,
            )
            todo = batches[s["batch_in_epoch"] :]
            bar = tqdm(
                self.loader(rows, todo),
                total=len(todo),
                desc=f"epoch {s['epoch']}",
                file=sys.stderr,
                mininterval=30,
                unit="batch",
            )
            t_window, utts_window, loss_window, chars_window, nats_window = time.monotonic(), 0, [], 0, 0.0
            for batch in bar:
                loss = self.step(batch, chunk_rng, gen)
                loss_window.append(loss)
                utts_window += len(batch["label_lens"])
                chars_window += int(batch["label_lens"].sum())
                nats_window += loss * len(batch["label_lens"])
                s["batch_in_epoch"] += 1
                if s["step"] % args.log_every == 0:
                    dt = time.monotonic() - t_window
                    per_char = nats_window / max(1, chars_window)
                    self.log(
                        "train",
                        step=s["step"],
                        epoch=s["epoch"],
                        loss=round(float(np.mean(loss_window)), 4),
                        loss_per_char=round(per_char, 4),
                        lr=round(self.opt.param_groups[0]["lr"], 6),
                        utt_per_s=round(utts_window / dt, 2),
                        **self._adversary_fields(),
                    )
                    bar.set_postfix(loss=f"{np.mean(loss_window):.3f}")
                    t_window, utts_window, loss_window, chars_window, nats_window = (
                        time.monotonic(),
                        0,
                        [],
                        0,
                        0.0,
                    )
                if s["step"] % args.eval_every == 0:
                    self.evaluate()
                if args.snapshot_every and s["step"] % args.snapshot_every == 0:
                    self.snapshot()
                if self.time_progress() >= 1.0 and not self.stop_requested:
                    self.log("time budget reached", step=s["step"], minutes=args.max_minutes)
                    self.stop_requested = True
                    self.evaluate()
                    self.snapshot()
                if self.stop_requested or time.monotonic() - last_save > args.save_minutes * 60:
                    save_training_state(self.out / "last.pt", self.model, self.opt, s, self.adversary_state())
                    last_save = time.monotonic()
                if self.stop_requested:
                    self.log("stopped", step=s["step"], epoch=s["epoch"])
                    return
            s["epoch"] += 1
            s["batch_in_epoch"] = 0
            self.evaluate()
            save_training_state(self.out / "last.pt", self.model, self.opt, s, self.adversary_state())
            last_save = time.monotonic()

    def time_progress(self) -> float:
        """Share of --max-minutes spent since this process started training (0 without a budget)."""
        if not self.args.max_minutes:
            return 0.0
        return (time.monotonic() - self.started) / (60 * self.args.max_minutes)

    def step(self, batch: dict, chunk_rng: random.Random, gen: torch.Generator) -> float:
        args, s = self.args, self.state
        t0 = time.monotonic()
        self.model.train()
        for module in self.frozen:
            module.eval()
        batch = {k: v.to(self.device, non_blocking=True) for k, v in batch.items()}
        if "waves" in batch:  # --device-features
            batch["feats"], batch["feat_lens"] = log_mel_batch(batch.pop("waves"), batch.pop("wave_lens"))
        # Curriculum: until --curriculum-steps, full context and no SpecAugment, so CTC leaves its
        # all-blank plateau sooner; dynamic chunks and masking come after.
        warm = s["step"] < args.curriculum_steps
        if not warm:
            batch["feats"] = spec_augment(
                batch["feats"],
                batch["feat_lens"],
                self.model.cmvn_mean,
                gen,
                n_freq=args.specaug_freq_masks,
                max_freq=args.specaug_max_freq,
                time_every=args.specaug_time_every,
                max_time=args.specaug_max_time,
            )
        chunk, left = (None, -1) if warm else random_chunking(chunk_rng, args.full_context_share)
        lr = learning_rate(
            s["step"], args.lr, args.warmup, args.schedule, args.max_steps, self.time_progress()
        )
        for group in self.opt.param_groups:
            group["lr"] = lr
        loss, log_probs, out_lens = ctc_loss(self.model, batch, chunk, left, bf16=self.bf16)
        if self.teacher is not None:  # --distill-from: stay near the teacher's outputs on the same input
            with torch.no_grad():
                teacher, _ = forward_log_probs(
                    self.teacher, batch["feats"], batch["feat_lens"], chunk, left, self.bf16
                )
            loss = loss + args.distill_weight * distillation_loss(log_probs, teacher, out_lens)
        if self.adversary is not None:  # --adversary-weight: the voice classifier, through the reversal
            adv_loss, accuracy = voice_adversary_loss(
                self.adversary, self.block_output, out_lens, batch["voices"], args.adversary_weight
            )
            self.adversary_window.append((float(adv_loss.detach()), accuracy))
            loss = loss + adv_loss
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.clip)
        self.opt.step()
        s["step"] += 1
        s["train_seconds"] += time.monotonic() - t0
        return float(loss.detach())

    def _adversary_fields(self) -> dict:
        """The voice classifier's mean loss and accuracy since the last log line (none without one)."""
        if self.adversary is None or not self.adversary_window:
            return {}
        loss, accuracy = np.mean(self.adversary_window, axis=0)
        self.adversary_window = []
        return {"voice_loss": round(float(loss), 4), "voice_accuracy": round(float(accuracy), 3)}

    def snapshot(self) -> None:
        s = self.state
        path = self.out / "snapshots" / f"step_{s['step']:06d}.pt"
        save_checkpoint(self.model, path, step=s["step"], epoch=s["epoch"], dev_wer=s.get("dev_wer"))

    def evaluate(self) -> None:
        if not self.dev_rows:
            return
        s = self.state
        t0 = time.monotonic()
        wer, hyps = word_error_rate(self.model, self.dev_rows, SHIPPED_CHUNK_MS)
        wer_full, _ = word_error_rate(self.model, self.dev_rows[: len(self.dev_rows) // 2], None)
        s["dev_wer"], s["dev_wer_full"] = round(wer, 4), round(wer_full, 4)
        examples = [{"ref": r["text"], "hyp": h} for r, h in zip(self.dev_rows[:3], hyps[:3], strict=False)]
        self.log(
            "dev",
            step=s["step"],
            epoch=s["epoch"],
            wer_stream_320ms=s["dev_wer"],
            wer_full=s["dev_wer_full"],
            seconds=round(time.monotonic() - t0, 1),
            examples=examples,
        )
        if wer < s["best_wer"]:
            s["best_wer"] = wer
            save_training_state(self.out / "best.pt", self.model, self.opt, s, self.adversary_state())


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("/work/data/asr"))
    p.add_argument(
        "--out", type=Path, default=Path("/work/runs/asr"), help="run directory (last.pt, best.pt, train.log)"
    )
    p.add_argument("--resume", action="store_true", help="continue from OUT/last.pt if it exists")
    p.add_argument(
        "--init",
        type=Path,
        help="a new run starts from this exported checkpoint's weights (fine-tuning) instead of random ones",
    )
    p.add_argument(
        "--vtlp", type=float, default=0.0, help="share of training utterances given a VTLP warp (vtlp_warp)"
    )
    p.add_argument("--vtlp-max", type=float, default=0.12, help="largest VTLP warp, as |alpha - 1|")
    p.add_argument(
        "--narrowband",
        type=float,
        default=0.0,
        help="share of training utterances heard through an 8 kHz channel (narrowband)",
    )
    p.add_argument(
        "--repeat",
        nargs="*",
        default=[],
        metavar="ENGINE=K",
        help="take each training utterance of these voices (make_dataset's engine names) K times an epoch",
    )
    p.add_argument(
        "--export", type=Path, help="write an inference checkpoint from OUT/best.pt (or --from) and exit"
    )
    p.add_argument("--from", dest="export_from", default="best.pt", help="best.pt or last.pt, for --export")
    p.add_argument(
        "--average",
        type=Path,
        nargs="+",
        help="with --export: write the mean of these exported checkpoints' weights instead",
    )
    p.add_argument(
        "--average-weights",
        type=lambda s: [float(w) for w in s.split(",")],
        help="with --average: one weight per checkpoint, e.g. 0.5,0.5 (default: equal)",
    )
    p.add_argument("--snapshot-every", type=int, default=0, help="keep snapshots/step_N.pt every N steps")
    p.add_argument(
        "--full-context-share",
        type=float,
        default=0.5,
        help="share of batches at full context; the rest get a random chunk and left context",
    )
    p.add_argument(
        "--train-only",
        nargs="+",
        default=[],
        metavar="MODULE",
        help="fine-tune only these modules (e.g. blocks.7 head; again with --resume); the rest stays frozen",
    )
    p.add_argument(
        "--distill-from",
        type=Path,
        help="an exported checkpoint whose outputs the model is also held to (KL, per frame, on the same "
        "chunks, the same masked features): new voices are learned without drifting far from it",
    )
    p.add_argument(
        "--distill-weight",
        type=float,
        default=1.0,
        help="× the KL to --distill-from beside the CTC loss (the logged loss is their sum)",
    )
    p.add_argument(
        "--adversary-weight",
        type=float,
        default=0.0,
        help="voice-adversarial training: a classifier guesses the training voice from one block's "
        "output and that block and those below get its gradient × −this (VoiceAdversary); 0: off",
    )
    p.add_argument(
        "--adversary-block",
        type=int,
        default=3,
        help="the block (0 = lowest) whose output the voice classifier reads",
    )
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--passes", type=int, default=1, help="passes over the training rows per epoch")
    p.add_argument("--batch-seconds", type=float, default=120.0, help="padded audio seconds per batch")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=300)
    p.add_argument("--schedule", choices=["noam", "cosine"], default="noam")
    p.add_argument("--max-steps", type=int, default=30000, help="cosine schedule length")
    p.add_argument(
        "--max-minutes",
        type=float,
        default=0.0,
        help="time budget of this process: the cosine schedule ends and training stops (last.pt and a "
        "snapshot saved) when it is spent; for machines lent for a fixed time",
    )
    p.add_argument("--weight-decay", type=float, default=1e-3)
    p.add_argument(
        "--specaug-freq-masks",
        type=int,
        default=SPECAUG_FREQ_MASKS,
        help="SpecAugment: frequency bands per utterance",
    )
    p.add_argument(
        "--specaug-max-freq",
        type=int,
        default=SPECAUG_MAX_FREQ,
        help="SpecAugment: widest band, in mel bins (of 80)",
    )
    p.add_argument(
        "--specaug-time-every",
        type=int,
        default=SPECAUG_TIME_EVERY,
        help="SpecAugment: one time mask per this many frames",
    )
    p.add_argument(
        "--specaug-max-time",
        type=int,
        default=SPECAUG_MAX_TIME,
        help="SpecAugment: longest time mask, in frames (10 ms)",
    )
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument(
        "--precision",
        choices=["auto", "bf16", "fp32"],
        default="auto",
        help="bf16 autocast for the forward pass (float32 statistics and loss); auto: bf16 where the "
        "hardware has it (bf16_native)",
    )
    p.add_argument("--workers", type=int, default=1, help="DataLoader processes computing features")
    p.add_argument(
        "--device-features",
        action="store_true",
        help="loader processes only read audio; log-mel is computed on the training device "
        "(log_mel_batch), for a GPU that would otherwise wait on them",
    )
    p.add_argument("--cmvn-utts", type=int, default=400)
    p.add_argument("--dev-utts", type=int, default=200)
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--eval-every", type=int, default=250)
    p.add_argument("--save-minutes", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--curriculum-steps",
        type=int,
        default=3000,
        help="until this step: short utterances only, full context, no SpecAugment",
    )
    p.add_argument(
        "--curriculum-seconds", type=float, default=4.0, help="longest utterance during the curriculum"
    )
    p.add_argument(
        "--curriculum-snr",
        type=float,
        default=20.0,
        help="lowest rough SNR (dB, manifest 'snr') during the curriculum",
    )
    for f in fields(ConformerConfig):  # --d_model 144 --n_layers 8 ... (new runs; with --init see below)
        if f.type in ("int", "float", int, float):
            p.add_argument(f"--{f.name}", type=int if f.type in ("int", int) else float, default=None)
    args = p.parse_args()
    if args.init:  # the checkpoint's architecture; only a wider feed-forward keeps what it computes
        fixed = [
            f.name
            for f in fields(ConformerConfig)
            if f.name != "ff_mult" and getattr(args, f.name) is not None
        ]
        if fixed:
            p.error(f"--init keeps the checkpoint's architecture: drop --{fixed[0]} (--ff_mult can widen it)")
    if args.device_features and args.vtlp:
        p.error("--vtlp warps CPU features; it cannot be combined with --device-features")
    if args.average and not args.export:
        p.error("--average writes a checkpoint: give it --export OUT")  # rather than start training
    if not 0.0 <= args.full_context_share <= 1.0:
        p.error(f"--full-context-share is a share of batches, 0 to 1, not {args.full_context_share}")
    return args


def main() -> None:
    args = parse_args()
    if args.export and args.average:
        export_average(args.average, args.average_weights, args.export)
        return
    if args.export:
        export(args.out, args.export, args.export_from)
        return
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    trainer = Trainer(args)
    try:
        trainer.build()
    except UnknownModuleError as e:  # other errors keep their traceback: it says where they arose
        sys.exit(f"train_asr.py: {e}")
    trainer.run()


if __name__ == "__main__":
    main()
