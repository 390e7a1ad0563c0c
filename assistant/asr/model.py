"""The streaming Conformer-CTC network, one file, top to bottom.

config → chunk masks → ×4 convolutional subsampling → rotary positions → self-attention →
convolution module (with masked batch norm) → feed-forward → Conformer block → the model with its
CTC head, `forward` (whole utterances, chunk masks for dynamic chunk training) beside
`forward_chunk` (one chunk at a time with caches) → checkpoints.

Streaming rests on one property, tested in tests/test_model.py: feeding the features chunk by chunk
through `forward_chunk` gives the same log-probabilities as `forward` with the same chunk mask.
Every part is built so that this holds exactly: the front-end uses valid (unpadded) convolutions
over cached feature frames, attention positions are absolute frame numbers, the depthwise
convolution is causal with a cache of its last inputs, and batch norm uses running statistics at
inference.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from assistant.asr.features import N_MELS
from assistant.asr.text import VOCAB
from assistant.errors import gist


@dataclass(frozen=True)
class ConformerConfig:
    """Hyperparameters; saved inside every checkpoint and rebuilt with ConformerConfig(**saved)."""

    n_mels: int = N_MELS  # input feature bins
    vocab_size: int = len(VOCAB)  # CTC outputs, blank = 0
    d_model: int = 144  # width of every block
    n_heads: int = 4  # attention heads (d_model / n_heads must be even for rotary positions)
    ff_mult: int = 4  # feed-forward hidden width = ff_mult · d_model
    n_layers: int = 8  # Conformer blocks
    conv_kernel: int = 15  # causal depthwise convolution, in output frames (15 × 40 ms = 600 ms)
    dropout: float = 0.1
    subsampling: int = 4  # feature frames per output frame (10 ms → 40 ms); only 4 is built
    # Channels of the two front-end 3×3 convolutions. The second costs channels² · 9 · 19 multiply-adds
    # per output frame: 144 channels would be as much compute as all 8 blocks together; 64 is ~15 %.
    subsampling_channels: int = 64
    rope_base: float = 10000.0  # rotary position frequency base

    def __post_init__(self) -> None:
        if self.subsampling != 4:
            raise ValueError(f"only ×4 subsampling is implemented, got {self.subsampling}")
        if self.d_model % self.n_heads or (self.d_model // self.n_heads) % 2:
            raise ValueError(f"d_model {self.d_model} must split into {self.n_heads} heads of even width")
        if self.conv_kernel < 1:
            raise ValueError(f"conv_kernel must be ≥ 1, got {self.conv_kernel}")


# ---------------------------------------------------------------------------------------------
# Masks: pure functions. True = may attend / is a real frame.


def chunk_visibility(query_pos: Tensor, key_pos: Tensor, chunk_size: int | None, left_chunks: int) -> Tensor:
    """Which keys each query may see, by absolute frame position: its own chunk and `left_chunks`
    chunks before it (all of them when left_chunks < 0). chunk_size None or ≤ 0 means full context.

    Both `forward` (positions 0..T-1) and `forward_chunk` (the chunk's positions against cached
    positions) use this one rule, which is why they agree. Returns (Tq, Tk) bool.
    """
    if chunk_size is None or chunk_size <= 0:
        return torch.ones(len(query_pos), len(key_pos), dtype=torch.bool, device=query_pos.device)
    q_chunk = (query_pos // chunk_size)[:, None]  # (Tq, 1)
    k_chunk = (key_pos // chunk_size)[None, :]  # (1, Tk)
    visible = k_chunk <= q_chunk
    if left_chunks >= 0:
        visible &= k_chunk >= q_chunk - left_chunks
    return visible


def chunk_attention_mask(
    n_frames: int, chunk_size: int | None, left_chunks: int, device: torch.device | str | None = None
) -> Tensor:
    """(T, T) bool: frame i may attend to frame j. Example, n_frames=6, chunk_size=2, left_chunks=1
    (chunks {0,1} {2,3} {4,5}; each sees itself and one chunk back, never the future):

        j: 0 1 2 3 4 5
        i=0 1 1 0 0 0 0
        i=1 1 1 0 0 0 0
        i=2 1 1 1 1 0 0
        i=3 1 1 1 1 0 0
        i=4 0 0 1 1 1 1
        i=5 0 0 1 1 1 1

    left_chunks < 0 fills the lower-left zeros with ones; chunk_size None or ≤ 0 gives all ones.
    """
    pos = torch.arange(n_frames, device=device)
    return chunk_visibility(pos, pos, chunk_size, left_chunks)


def padding_mask(lengths: Tensor, max_len: int) -> Tensor:
    """(B, T) bool, True on real frames. lengths=[3, 1], max_len=3 → [[1 1 1], [1 0 0]]."""
    return torch.arange(max_len, device=lengths.device)[None, :] < lengths[:, None]


# ---------------------------------------------------------------------------------------------
# Front-end: ×4 subsampling with two valid 3×3 stride-2 convolutions.

SUBSAMPLING_CONTEXT = 7  # feature frames behind the first output frame
SUBSAMPLING_STRIDE = 4  # new feature frames per further output frame


def subsampled_length(n_frames: Tensor | int) -> Tensor | int:
    """Output frames from n feature frames: output j sees frames 4j..4j+6, so (n - 3) // 4, ≥ 0."""
    if isinstance(n_frames, Tensor):
        return ((n_frames - 1) // 2 - 1).div(2, rounding_mode="floor").clamp(min=0)
    return max(0, ((n_frames - 1) // 2 - 1) // 2)


def frames_needed(n_out: int) -> int:
    """Feature frames needed to produce n_out output frames from a fresh front-end."""
    return 0 if n_out <= 0 else SUBSAMPLING_CONTEXT + SUBSAMPLING_STRIDE * (n_out - 1)


class Conv2dSubsampling(nn.Module):
    """(B, T, 80) → (B, (T-3)//4, D). The convolutions are valid (unpadded) in time, so output j is
    a function of feature frames 4j..4j+6 alone, wherever they come from: the streaming path keeps
    the not-yet-consumed feature frames as a cache and runs the same convolutions on cache + new
    frames, giving bit-for-bit the frames of the whole-utterance path. (Causal left padding would
    also stream, but would give the first frame zero-padded context unlike any other.)
    """

    def __init__(self, cfg: ConformerConfig) -> None:
        super().__init__()
        c = cfg.subsampling_channels
        self.conv = nn.Sequential(nn.Conv2d(1, c, 3, 2), nn.ReLU(), nn.Conv2d(c, c, 3, 2), nn.ReLU())
        freq = ((cfg.n_mels - 1) // 2 - 1) // 2  # 80 → 39 → 19
        self.out = nn.Linear(c * freq, cfg.d_model)

    def forward(self, x: Tensor) -> Tensor:
        x = self.conv(x.unsqueeze(1))  # (B, 1, T, F) → (B, C, T', F')
        b, c, t, f = x.shape
        x = x.transpose(1, 2).reshape(b, t, c * f)  # (B, T', C·F')
        return self.out(x)  # (B, T', D)


# ---------------------------------------------------------------------------------------------
# Positions: rotary embeddings (RoPE).
#
# Why rotary rather than Transformer-XL relative encodings: rotating queries and keys by their
# absolute frame number makes every score depend only on the distance between the two frames, and
# a cached key, rotated once when it was computed, stays correct for every later query. Nothing
# has to be re-indexed per chunk (Transformer-XL's rel_shift assumes a query block aligned with the
# keys, and WeNet's chunked version of it is known to differ from the full forward), so chunked
# attention is exactly the masked full attention, at less cost. Angles are computed in float64 so
# that frame 90,000 (an hour of audio) rotates as precisely as frame 90.


def rotary_tables(positions: Tensor, d_head: int, base: float) -> tuple[Tensor, Tensor]:
    """cos and sin of position · frequency, each (T, d_head/2) float32."""
    inv_freq = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64, device=positions.device) / d_head)
    angles = positions.to(torch.float64)[:, None] * inv_freq[None, :]  # (T, d_head/2)
    return angles.cos().float(), angles.sin().float()


def apply_rotary(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """Rotate the pairs (x[i], x[i + d/2]) of x (B, H, T, d_head) by the angles of each position."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]  # (B, H, T, d_head/2) each
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)  # (B, H, T, d_head)


# ---------------------------------------------------------------------------------------------
# Multi-head self-attention.


class RotaryAttention(nn.Module):
    def __init__(self, cfg: ConformerConfig) -> None:
        super().__init__()
        self.n_heads, self.d_head, self.base = cfg.n_heads, cfg.d_model // cfg.n_heads, cfg.rope_base
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)
        self.dropout = nn.Dropout(cfg.dropout)

    def project(self, x: Tensor, positions: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """x (B, T, D) at absolute positions (T,) → rotated q, rotated k, v, each (B, H, T, d_head)."""
        b, t, _ = x.shape
        qkv = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head)  # (B, T, 3, H, dh)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # 3 × (B, H, T, dh)
        cos, sin = rotary_tables(positions, self.d_head, self.base)
        return apply_rotary(q, cos, sin), apply_rotary(k, cos, sin), v

    def attend(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor) -> Tensor:
        """q (B, H, Tq, dh), k and v (B, H, Tk, dh), mask (B, Tq, Tk) → (B, Tq, D)."""
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (B, H, Tq, Tk)
        mask = mask.unsqueeze(1)  # (B, 1, Tq, Tk)
        # A finite fill (not -inf) keeps the rows of padded queries, which see nothing, free of NaN.
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        probs = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
        y = self.dropout(probs) @ v  # (B, H, Tq, dh)
        b, h, t, dh = y.shape
        return self.out(y.transpose(1, 2).reshape(b, t, h * dh))  # (B, Tq, D)

    def forward(self, x: Tensor, positions: Tensor, mask: Tensor) -> Tensor:
        q, k, v = self.project(x, positions)
        return self.attend(q, k, v, mask)

    def forward_chunk(
        self, x: Tensor, positions: Tensor, mask: Tensor, k_cache: Tensor, v_cache: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]:
        """As forward, with cached keys/values (1, H, S, dh) in front; returns all S + T keys/values."""
        q, k, v = self.project(x, positions)
        k, v = torch.cat((k_cache, k), dim=2), torch.cat((v_cache, v), dim=2)  # (1, H, S+T, dh)
        return self.attend(q, k, v, mask), k, v


# ---------------------------------------------------------------------------------------------
# Convolution module.


class MaskedBatchNorm1d(nn.BatchNorm1d):
    """Batch norm over (B, D, T) whose training statistics come from real frames only.

    Why this makes the convolution module causal: in training, statistics cover the batch's real
    frames (padding would otherwise drag the mean toward whatever the padding holds, and make an
    utterance's output depend on its batch-mates' lengths); at inference the running statistics
    are used, so each frame is normalized by constants and its output depends on that frame alone,
    never on frames to come. The streaming path therefore needs no state for it.
    """

    def forward(self, x: Tensor, valid: Tensor | None = None) -> Tensor:
        if not self.training or valid is None:
            return super().forward(x)
        x = x.float()  # statistics in float32 also under bf16 autocast
        m = valid[:, None, :].to(x.dtype)  # (B, 1, T)
        n = m.sum().clamp(min=1.0)
        mean = (x * m).sum(dim=(0, 2)) / n  # (D,)
        var = (((x - mean[None, :, None]) * m) ** 2).sum(dim=(0, 2)) / n  # (D,), biased
        self._update_running(mean, var, n)
        x = (x - mean[None, :, None]) / torch.sqrt(var[None, :, None] + self.eps)
        return x * self.weight[None, :, None] + self.bias[None, :, None]

    @torch.no_grad()
    def _update_running(self, mean: Tensor, var: Tensor, n: Tensor) -> None:
        self.running_mean.lerp_(mean, self.momentum)
        self.running_var.lerp_(var * n / (n - 1).clamp(min=1.0), self.momentum)  # unbiased, as nn.BatchNorm
        self.num_batches_tracked += 1


class ConvolutionModule(nn.Module):
    """LayerNorm → pointwise to 2D → GLU → causal depthwise conv → masked BN → Swish → pointwise →
    dropout. Pointwise convolutions are Linear layers (the same map, without two transposes)."""

    def __init__(self, cfg: ConformerConfig) -> None:
        super().__init__()
        d, self.context = cfg.d_model, cfg.conv_kernel - 1
        self.norm = nn.LayerNorm(d)
        self.pointwise_in = nn.Linear(d, 2 * d)
        self.depthwise = nn.Conv1d(d, d, cfg.conv_kernel, groups=d)
        self.bn = MaskedBatchNorm1d(d)
        self.pointwise_out = nn.Linear(d, d)
        self.dropout = nn.Dropout(cfg.dropout)

    def _gate(self, x: Tensor) -> Tensor:
        x = F.glu(self.pointwise_in(self.norm(x)), dim=-1)  # (B, T, 2D) → (B, T, D)
        return x.transpose(1, 2)  # (B, D, T)

    def _finish(self, y: Tensor, valid: Tensor | None) -> Tensor:
        y = F.silu(self.bn(y, valid)).transpose(1, 2)  # (B, T, D)
        return self.dropout(self.pointwise_out(y))

    def forward(self, x: Tensor, valid: Tensor) -> Tensor:
        """x (B, T, D), valid (B, T). Left padding by kernel-1: a frame sees only itself and the past."""
        h = F.pad(self._gate(x), (self.context, 0))  # (B, D, kernel-1 + T)
        return self._finish(self.depthwise(h), valid)

    def forward_chunk(self, x: Tensor, cache: Tensor) -> tuple[Tensor, Tensor]:
        """x (1, T, D), cache (1, D, kernel-1): the gated inputs of the previous kernel-1 frames
        (zeros at the start, as the left padding of forward). Returns output and the new cache."""
        h = torch.cat((cache, self._gate(x)), dim=2)  # (1, D, kernel-1 + T)
        return self._finish(self.depthwise(h), None), h[:, :, h.shape[2] - self.context :]


# ---------------------------------------------------------------------------------------------
# Feed-forward and the Conformer block.


class FeedForward(nn.Module):
    def __init__(self, cfg: ConformerConfig) -> None:
        super().__init__()
        hidden = cfg.ff_mult * cfg.d_model
        self.net = nn.Sequential(
            nn.LayerNorm(cfg.d_model),
            nn.Linear(cfg.d_model, hidden),
            nn.SiLU(),
            nn.Dropout(cfg.dropout),
            nn.Linear(hidden, cfg.d_model),
            nn.Dropout(cfg.dropout),
        )

    def forward(self, x: Tensor) -> Tensor:
        return self.net(x)


class ConformerBlock(nn.Module):
    """Macaron: ½ FF → self-attention → convolution → ½ FF → LayerNorm, each with a residual."""

    def __init__(self, cfg: ConformerConfig) -> None:
        super().__init__()
        self.ff1, self.ff2 = FeedForward(cfg), FeedForward(cfg)
        self.norm_att = nn.LayerNorm(cfg.d_model)
        self.att = RotaryAttention(cfg)
        self.conv = ConvolutionModule(cfg)
        self.norm_out = nn.LayerNorm(cfg.d_model)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x: Tensor, positions: Tensor, mask: Tensor, valid: Tensor) -> Tensor:
        x = x + 0.5 * self.ff1(x)
        x = x + self.dropout(self.att(self.norm_att(x), positions, mask))
        x = x + self.conv(x, valid)
        return self.norm_out(x + 0.5 * self.ff2(x))

    def forward_chunk(
        self, x: Tensor, positions: Tensor, mask: Tensor, k: Tensor, v: Tensor, conv: Tensor
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        x = x + 0.5 * self.ff1(x)
        y, k, v = self.att.forward_chunk(self.norm_att(x), positions, mask, k, v)
        x = x + y
        y, conv = self.conv.forward_chunk(x, conv)
        x = x + y
        return self.norm_out(x + 0.5 * self.ff2(x)), k, v, conv


# ---------------------------------------------------------------------------------------------
# The model.


class StreamState(NamedTuple):
    """Everything `forward_chunk` carries from one chunk to the next (batch of one).

    feats: (1, n, n_mels) feature frames received but not yet consumed by the front-end; they
           start at feature frame 4·offset (n = 3 after every whole chunk).
    att_k: (n_layers, 1, n_heads, S, d_head) rotated attention keys of the last S output frames,
           S ≤ (left_chunks + 1)·chunk_size - 1: only what a future query can still see.
    att_v: (n_layers, 1, n_heads, S, d_head) the matching values.
    conv:  (n_layers, 1, d_model, conv_kernel - 1) inputs of each causal depthwise convolution
           for the last kernel-1 output frames.
    offset: output frames produced so far: the absolute position of the next one.
    """

    feats: Tensor
    att_k: Tensor
    att_v: Tensor
    conv: Tensor
    offset: int


def chunk_feature_frames(n_out: int, state: StreamState) -> int:
    """Feature frames to feed `forward_chunk` next so that it produces exactly n_out output frames
    (4·n_out + 3 for the first chunk, 4·n_out after that)."""
    return max(0, frames_needed(n_out) - state.feats.shape[1])


def _kept_keys(next_pos: int, n_keys: int, chunk_size: int | None, left_chunks: int) -> int:
    """How many of the newest n_keys keys a query at next_pos or later can still attend to."""
    if chunk_size is None or chunk_size <= 0 or left_chunks < 0:
        return n_keys
    first_visible = max(0, (next_pos // chunk_size - left_chunks) * chunk_size)
    return min(n_keys, next_pos - first_visible)


class ConformerCTC(nn.Module):
    def __init__(self, cfg: ConformerConfig | None = None) -> None:
        super().__init__()
        self.cfg = cfg = cfg or ConformerConfig()
        # Global CMVN lives in the model so that a checkpoint is self-contained; the trainer fills it.
        self.register_buffer("cmvn_mean", torch.zeros(cfg.n_mels))
        self.register_buffer("cmvn_std", torch.ones(cfg.n_mels))
        # ln of each symbol's mean CTC posterior over dev speech (V,), estimated for this checkpoint by
        # scripts/tune_lm.py --write-prior; the beam search divides it out (lm_decoder). Zeros: none.
        self.register_buffer("log_prior", torch.zeros(cfg.vocab_size))
        self.subsampling = Conv2dSubsampling(cfg)
        self.dropout = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(ConformerBlock(cfg) for _ in range(cfg.n_layers))
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size)

    def _front(self, feats: Tensor) -> Tensor:
        x = (feats - self.cmvn_mean) / self.cmvn_std  # (B, T, n_mels)
        return self.dropout(self.subsampling(x))  # (B, T', D)

    def forward(
        self, feats: Tensor, feat_lens: Tensor, chunk_size: int | None = None, left_chunks: int = -1
    ) -> tuple[Tensor, Tensor]:
        """feats (B, T, n_mels), feat_lens (B,) → CTC log-probs (B, T', V) and their lengths (B,).
        chunk_size counts output (40 ms) frames; None or ≤ 0 is full context."""
        if feats.shape[1] < SUBSAMPLING_CONTEXT:  # too short for one output frame: pad, all invalid
            feats = F.pad(feats, (0, 0, 0, SUBSAMPLING_CONTEXT - feats.shape[1]))
        x = self._front(feats)  # (B, T', D)
        out_lens = subsampled_length(feat_lens.to(x.device))
        valid = padding_mask(out_lens, x.shape[1])  # (B, T')
        mask = chunk_attention_mask(x.shape[1], chunk_size, left_chunks, x.device)[None] & valid[:, None, :]
        positions = torch.arange(x.shape[1], device=x.device)
        for block in self.blocks:
            x = block(x, positions, mask, valid)
        return torch.log_softmax(self.head(x), dim=-1), out_lens  # (B, T', V)

    @torch.inference_mode()
    def forward_chunk(
        self, feats_chunk: Tensor, state: StreamState, chunk_size: int | None, left_chunks: int = -1
    ) -> tuple[Tensor, StreamState]:
        """feats_chunk (1, t, n_mels) → log-probs (1, t', V) of every output frame the cached plus new
        features complete, and the new state. Equals `forward(..., chunk_size, left_chunks)` frame
        for frame when each call completes whole chunks (see chunk_feature_frames); the last call
        of a stream may be short. Cost depends on t, chunk_size and left_chunks, never on offset."""
        if self.training:
            raise RuntimeError("forward_chunk needs eval mode (batch norm must use running statistics)")
        feats = torch.cat((state.feats, feats_chunk), dim=1)  # (1, n + t, n_mels)
        n_out = subsampled_length(feats.shape[1])
        if n_out == 0:
            return feats.new_zeros(1, 0, self.cfg.vocab_size), state._replace(feats=feats)
        x = self._front(feats)  # (1, n_out, D)
        positions = torch.arange(state.offset, state.offset + n_out, device=x.device)
        keys = torch.arange(state.offset - state.att_k.shape[3], state.offset + n_out, device=x.device)
        mask = chunk_visibility(positions, keys, chunk_size, left_chunks)[None]  # (1, n_out, S + n_out)
        x, ks, vs, convs = self._blocks_chunk(x, positions, mask, state)
        keep = _kept_keys(state.offset + n_out, len(keys), chunk_size, left_chunks)
        new_state = StreamState(
            feats=feats[:, SUBSAMPLING_STRIDE * n_out :],
            att_k=torch.stack(ks)[:, :, :, len(keys) - keep :],
            att_v=torch.stack(vs)[:, :, :, len(keys) - keep :],
            conv=torch.stack(convs),
            offset=state.offset + n_out,
        )
        return torch.log_softmax(self.head(x), dim=-1), new_state  # (1, n_out, V)

    def _blocks_chunk(self, x: Tensor, positions: Tensor, mask: Tensor, state: StreamState):
        ks, vs, convs = [], [], []
        for block, k, v, conv in zip(self.blocks, state.att_k, state.att_v, state.conv, strict=True):
            x, k, v, conv = block.forward_chunk(x, positions, mask, k, v, conv)
            ks.append(k)
            vs.append(v)
            convs.append(conv)
        return x, ks, vs, convs

    def initial_state(self) -> StreamState:
        """The state before any audio: no features, no keys, zero convolution history."""
        cfg, p = self.cfg, self.head.weight
        d_head = cfg.d_model // cfg.n_heads
        empty_kv = p.new_zeros(cfg.n_layers, 1, cfg.n_heads, 0, d_head)
        return StreamState(
            feats=p.new_zeros(1, 0, cfg.n_mels),
            att_k=empty_kv,
            att_v=empty_kv,
            conv=p.new_zeros(cfg.n_layers, 1, cfg.d_model, cfg.conv_kernel - 1),
            offset=0,
        )

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())


# ---------------------------------------------------------------------------------------------
# Checkpoints: {"config": asdict(cfg), "model": state_dict, "meta": {...}}.


def save_checkpoint(model: ConformerCTC, path: str | Path, **meta) -> None:
    """Write the model with its config; meta must be plain data (numbers, strings, lists, dicts)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k.removeprefix("_orig_mod."): v for k, v in model.state_dict().items()}  # torch.compile
    torch.save({"config": asdict(model.cfg), "model": state, "meta": meta}, path)


class CheckpointError(ValueError):
    """A recognizer checkpoint that cannot be used; the message is one line: file, problem, fix."""


CHECKPOINT_FIX = (
    "fix: point [asr] checkpoint at a file scripts/train_asr.py wrote, "
    "or leave it empty for the shipped models/asr/conformer_ctc.pt"
)


def load_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> ConformerCTC:
    """Rebuild the model from a checkpoint, in eval mode. Raises FileNotFoundError or
    CheckpointError with a one-line message naming the file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"ASR checkpoint not found: {path}")
    try:
        ckpt = torch.load(path, map_location=map_location, weights_only=True)
        model = load_weights(ConformerCTC(ConformerConfig(**ckpt["config"])), ckpt["model"])
    except Exception as e:  # noqa: BLE001 - any failure here means the file is not a usable checkpoint
        # torch.save writes a zip; for any other file torch's own words are about weights_only.
        with path.open("rb") as f:
            reason = gist(e, limit=120) if f.read(4) == b"PK\x03\x04" else "not a PyTorch checkpoint"
        raise CheckpointError(
            f"ASR checkpoint {path} is corrupt or incompatible ({reason}); {CHECKPOINT_FIX}"
        ) from e
    return model.eval()


def load_weights(model: ConformerCTC, state: dict[str, Tensor]) -> ConformerCTC:
    """`model.load_state_dict(state)`, strict, except that a state saved before the CTC prior
    existed loads with none (zeros)."""
    model.load_state_dict({"log_prior": model.log_prior, **state})
    return model


def has_prior(model: ConformerCTC) -> bool:
    """Whether the checkpoint carries an estimated CTC prior (`log_prior` not all zeros)."""
    return bool(torch.any(model.log_prior != 0))


def checkpoint_meta(path: str | Path) -> dict:
    """The "meta" dict of a checkpoint (training data, WER, ...), without building the model."""
    return dict(torch.load(Path(path), map_location="cpu", weights_only=True).get("meta", {}))
