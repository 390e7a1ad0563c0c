"""Streaming recognition: audio pieces → features → whole chunks through the network → CTC text.

The recognizer holds back feature frames until they complete a whole chunk of output frames, so
every chunk the network sees is the chunk it was trained on (and `forward_chunk` equals the masked
full forward). Latency is therefore one chunk plus its compute; a partial hypothesis (greedy CTC)
is refreshed once per chunk. The final transcript goes through the word language model's beam
search (`lm_decoder.LexiconDecoder`) when one is given, over all of the utterance's log-probs.

Two passes (`full_context_final`, on as shipped): the partials come from the streaming chunks, the
final from one more pass of the network over the whole utterance at full context, where every frame
sees the whole question, the way the model was also trained (half to 70% of its batches). The
streaming chunks must commit a letter seeing at most one chunk ahead; the final need not. With the
LM, 15% fewer word errors than the streaming chunks' final on held-out voices and 8% fewer on real
speech (the checkpoint shipped 2026-11-27), for one forward pass over the utterance at the final
(models/asr/HISTORY.md, eighteenth session; scripts/bench_asr.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

import numpy as np
import torch

from assistant.asr.features import HOP_MS, N_MELS, SAMPLE_RATE, StreamingFeatures, log_mel
from assistant.asr.lm_decoder import DecoderWeights, LexiconDecoder
from assistant.asr.model import (
    SUBSAMPLING_STRIDE,
    ConformerCTC,
    StreamState,
    chunk_feature_frames,
    load_checkpoint,
)
from assistant.asr.rescorer import LlmRescorer
from assistant.asr.text import BLANK_ID, decode
from assistant.audio.files import AudioFileError, read_audio

OUTPUT_FRAME_MS = HOP_MS * SUBSAMPLING_STRIDE  # 40 ms per network output frame
FLUSH_MS = 200  # ms of silence fed at the end of an utterance (see `StreamingRecognizer.finalize`)
# `transcribe` reads a long file in pieces (`split_at_pauses`): longer than any training utterance
# (2-25 words), short enough that full-context attention stays small; a pause is looked for in the
# last 5 s of each.
PIECE_MAX_S = 30.0
PAUSE_SEARCH_S = 5.0
PAUSE_FRAMES = 20  # 10 ms frames: the quietest 200 ms is a pause, the quietest 10 ms may be a "t"


def ctc_greedy(frame_ids: list[int], last: int = BLANK_ID) -> tuple[list[int], int]:
    """Collapse per-frame argmax ids into tokens: drop repeats, then blanks. `last` is the id of the
    frame before this piece, so a repeat spanning a chunk boundary still collapses while a blank
    between two equal ids keeps both. Returns the new tokens and the new `last`.

    [a a _ a b b] after last=_ → [a a b];  [a b] after last=a → [b].
    """
    tokens = []
    for i in frame_ids:
        if i != BLANK_ID and i != last:
            tokens.append(i)
        last = i
    return tokens, last


def chunk_frames(chunk_ms: int) -> int:
    """Output frames per chunk; chunk_ms must be a positive multiple of 40 ms."""
    if chunk_ms <= 0 or chunk_ms % OUTPUT_FRAME_MS:
        raise ValueError(f"chunk_ms must be a positive multiple of {OUTPUT_FRAME_MS} ms, got {chunk_ms}")
    return chunk_ms // OUTPUT_FRAME_MS


class StreamingRecognizer:
    """accept(audio) → partial text, finalize() → final text, reset() → a fresh utterance.

    Constructors store, build() loads: `StreamingRecognizer.from_checkpoint(path, ...)` only records
    the path; build() reads the checkpoint and sets torch's thread count. A recognizer given a
    model is built already. Not thread-safe: one utterance at a time, from one thread.
    """

    def __init__(
        self,
        model: ConformerCTC | None = None,
        chunk_ms: int = 320,
        left_chunks: int = 4,
        *,
        checkpoint: str | Path | None = None,
        threads: int | None = None,
        decoder: LexiconDecoder | None = None,
        full_context_final: bool = False,
        rescorer: LlmRescorer | None = None,
    ) -> None:
        """`full_context_final`: the final re-reads the whole utterance at full context (see the
        module's docstring); off, the final is the streaming chunks' own log-probs. `rescorer`: the
        LLM picks the final among the beam search's best sentences (needs a `decoder`)."""
        if model is None and checkpoint is None:
            raise ValueError("StreamingRecognizer needs a model or a checkpoint path")
        self.chunk_size = chunk_frames(chunk_ms)
        self.chunk_ms, self.left_chunks = chunk_ms, left_chunks
        self.checkpoint, self.threads = checkpoint, threads
        self.model = model
        self.decoder = decoder
        self.full_context_final = full_context_final
        self.rescorer = rescorer if decoder is not None else None
        self._features = StreamingFeatures()
        self._reset_decoding()

    @classmethod
    def from_checkpoint(
        cls, path: str | Path, chunk_ms: int = 320, left_chunks: int = 4, threads: int | None = None
    ) -> StreamingRecognizer:
        return cls(None, chunk_ms, left_chunks, checkpoint=path, threads=threads)

    @classmethod
    def from_settings(cls, settings: RecognizerSettings) -> StreamingRecognizer:
        """The recognizer an [asr] config section describes, language model included."""
        decoder = rescorer = None
        if settings.language_model:
            weights = DecoderWeights(
                lm_weight=settings.lm_weight,
                word_score=settings.word_score,
                prior_weight=settings.prior_weight,
            )
            decoder = LexiconDecoder(settings.lm_path, weights)
            if settings.rescore_weight > 0:
                rescorer = LlmRescorer(
                    settings.rescore_model_path,
                    settings.rescore_weight,
                    settings.rescore_nbest,
                    settings.rescore_margin,
                    settings.threads,
                )
        return cls(
            None,
            settings.chunk_ms,
            settings.left_chunks,
            checkpoint=settings.checkpoint_path,
            threads=settings.threads,
            decoder=decoder,
            full_context_final=settings.full_context_final,
            rescorer=rescorer,
        )

    def build(self) -> StreamingRecognizer:
        """Load the checkpoint (if not given a model) and apply the thread count. Idempotent."""
        if self.threads:
            torch.set_num_threads(self.threads)  # process-wide: torch has one intra-op pool
        if self.model is None:
            self.model = load_checkpoint(self.checkpoint)
        if self.decoder is not None:
            self.decoder.build(log_prior=self.model.log_prior.cpu().numpy())
        if self.rescorer is not None:
            self.rescorer.build()
        self.model.eval()
        self._reset_decoding()
        return self

    def reset(self) -> None:
        """Forget the current utterance: audio, caches and text."""
        self._features.reset()
        self._reset_decoding()

    def _reset_decoding(self) -> None:
        self._pending = np.zeros((0, N_MELS), dtype=np.float32)  # features not yet given to the network
        self._state: StreamState | None = self.model.initial_state() if self.model is not None else None
        self._tokens: list[int] = []
        self._last = BLANK_ID
        self._log_probs: list[np.ndarray] = []  # (t, V) per chunk run, for the final's beam search
        self._utterance: list[np.ndarray] = []  # (t, 80) every feature frame so far, for a full-context final

    @property
    def text(self) -> str:
        """The hypothesis so far."""
        return decode(self._tokens)

    def accept(self, samples: np.ndarray) -> str:
        """Feed mono float32 samples at 16 kHz (any length); returns the partial hypothesis."""
        if self._state is None:
            raise RuntimeError("StreamingRecognizer.build() must be called before accept()")
        feats = self._features.accept(samples)  # (t, 80)
        if self.full_context_final:
            self._utterance.append(feats)
        self._pending = np.concatenate((self._pending, feats))
        while len(self._pending) >= (need := chunk_feature_frames(self.chunk_size, self._state)):
            self._run(self._pending[:need])
            self._pending = self._pending[need:]
        return self.text

    def finalize(self, flush_ms: int = FLUSH_MS) -> str:
        """Feed `flush_ms` of silence, run what is left (the last chunk may be partial); return the
        final text and start a fresh utterance.

        Why the silence: CTC lets a word's last letters out a few frames after their sound, and the
        endpointer may cut the audio soon after it (measured: "how many days are in a week" cut 200
        ms after the speech came out "... a wee" with no flush, "... a week" with 160 ms or more)."""
        if self._state is None:
            raise RuntimeError("StreamingRecognizer.build() must be called before finalize()")
        if self.full_context_final:  # the chunks' log-probs are not needed: no chunk runs on the flush
            flush = self._features.accept(np.zeros(flush_ms * SAMPLE_RATE // 1000, np.float32))
            text = self._full_context_text(np.concatenate((*self._utterance, flush)))
            self.reset()
            return text
        if flush_ms:
            self.accept(np.zeros(flush_ms * SAMPLE_RATE // 1000, np.float32))
        if len(self._pending):
            self._run(self._pending)
        text = self._final_text(self._tokens, self._log_probs)
        self.reset()
        return text

    def peek_final(self, flush_ms: int = FLUSH_MS) -> str:
        """What `finalize(flush_ms)` would return now, without ending the utterance: the flush goes
        through a copy of the feature stream (`StreamingFeatures.peek`) and the network runs on the
        state without keeping the new one (`forward_chunk` returns a new state), so more audio may
        follow. The listener takes the final this way soon after the speech end, before the endpoint."""
        if self._state is None:
            raise RuntimeError("StreamingRecognizer.build() must be called before peek_final()")
        flush = np.zeros(flush_ms * SAMPLE_RATE // 1000, np.float32)
        if self.full_context_final:
            return self._full_context_text(np.concatenate((*self._utterance, self._features.peek(flush))))
        feats = np.concatenate((self._pending, self._features.peek(flush)))  # (t, 80)
        state, tokens, last = self._state, list(self._tokens), self._last
        log_probs = list(self._log_probs)
        while len(feats):  # whole chunks as accept() would run them, then the rest as finalize() does
            need = chunk_feature_frames(self.chunk_size, state) or len(feats)
            new, state, last, frames = self._step(feats[:need], state, last)
            tokens += new
            log_probs.append(frames)
            feats = feats[need:]
        return self._final_text(tokens, log_probs)

    def transcribe_apart(self, samples: np.ndarray, flush_ms: int = FLUSH_MS) -> str:
        """A final of `samples` alone (full context, `flush_ms` of silence after them), leaving the
        utterance in progress as it is: what a hold heard that no utterance was made of
        (`BargeIn.held_words`)."""
        if self.model is None:
            raise RuntimeError("StreamingRecognizer.build() must be called before transcribe_apart()")
        wave = np.concatenate((samples, np.zeros(flush_ms * SAMPLE_RATE // 1000, np.float32)))
        return self._full_context_text(log_mel(wave))

    def text_of(self, log_probs: np.ndarray) -> str:
        """A whole utterance's (T, V) log-probs → its final text: the language model's beam search
        (its best sentences then rescored by the LLM, if one is given), or greedy CTC without one."""
        if self.decoder is None:
            return greedy_text(log_probs)
        if self.rescorer is not None:
            return self.rescorer.pick(self.decoder.nbest(log_probs, self.rescorer.nbest))
        return self.decoder.decode(log_probs)

    def _final_text(self, tokens: list[int], log_probs: list[np.ndarray]) -> str:
        if self.decoder is None or not log_probs:
            return decode(tokens)  # greedy, already collapsed chunk by chunk
        return self.text_of(np.concatenate(log_probs))  # (T, V)

    def _full_context_text(self, feats: np.ndarray) -> str:
        """The utterance's features (T, 80) through the network at full context → final text."""
        return self.text_of(log_probs_of_features(self.model, [feats], None)[0])

    def _run(self, feats: np.ndarray) -> None:
        tokens, self._state, self._last, frames = self._step(feats, self._state, self._last)
        self._tokens += tokens
        self._log_probs.append(frames)

    def _step(
        self, feats: np.ndarray, state: StreamState, last: int
    ) -> tuple[list[int], StreamState, int, np.ndarray]:
        """Features (t, 80) through the network from `state`, greedy CTC after token `last`:
        (new tokens, new state, new last token, the (t', V) log-probs). Pure: `_run` keeps the
        results, `peek_final` not."""
        x = torch.from_numpy(np.ascontiguousarray(feats))[None]  # (1, t, 80)
        log_probs, state = self.model.forward_chunk(x, state, self.chunk_size, self.left_chunks)
        frames = log_probs[0].float().numpy()  # (t', V)
        tokens, last = ctc_greedy(frames.argmax(-1).tolist(), last)
        return tokens, state, last, frames


def transcribe(model: ConformerCTC, wave: np.ndarray, chunk_ms: int = 320, left_chunks: int = 4) -> str:
    """Whole waveform → text through the streaming path, no flush: the same text as `transcribe_batch`."""
    recognizer = StreamingRecognizer(model, chunk_ms, left_chunks).build()
    recognizer.accept(wave)
    return recognizer.finalize(flush_ms=0)


def log_probs_batch(
    model: ConformerCTC, waves: list[np.ndarray], chunk_ms: int | None = 320, left_chunks: int = 4
) -> list[np.ndarray]:
    """Many waveforms at once through the masked full forward → per wave (T', V) CTC log-probs
    (equal to streaming for the same chunk_ms/left_chunks; chunk_ms None = full context)."""
    return log_probs_of_features(model, [log_mel(w) for w in waves], chunk_ms, left_chunks)


def log_probs_of_features(
    model: ConformerCTC, utterances: list[np.ndarray], chunk_ms: int | None = 320, left_chunks: int = 4
) -> list[np.ndarray]:
    """`log_probs_batch` from each utterance's features (T, 80) instead of its samples."""
    device = model.cmvn_mean.device  # a model being trained on a GPU is evaluated there
    feats = [torch.from_numpy(np.ascontiguousarray(f)) for f in utterances]
    lens = torch.tensor([len(f) for f in feats], device=device)
    batch = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True).to(device)  # (B, T, 80)
    chunk = chunk_frames(chunk_ms) if chunk_ms else None
    was_training = model.training
    try:
        with torch.inference_mode():
            log_probs, out_lens = model.eval()(batch, lens, chunk, left_chunks)  # (B, T', V), (B,)
    finally:
        model.train(was_training)
    return [log_probs[b, : out_lens[b]].float().cpu().numpy() for b in range(len(feats))]


def greedy_text(log_probs: np.ndarray) -> str:
    """(T, V) log-probs → greedy CTC text."""
    return decode(ctc_greedy(log_probs.argmax(-1).tolist())[0])


def transcribe_batch(
    model: ConformerCTC, waves: list[np.ndarray], chunk_ms: int | None = 320, left_chunks: int = 4
) -> list[str]:
    """Many waveforms at once, greedy text (fast evaluation; see `log_probs_batch`)."""
    return [greedy_text(lp) for lp in log_probs_batch(model, waves, chunk_ms, left_chunks)]


class RecognizerSettings(Protocol):
    """What transcribe_files needs from the [asr] config section."""

    checkpoint_path: Path
    chunk_ms: int
    left_chunks: int
    threads: int
    language_model: bool
    lm_path: Path
    lm_weight: float
    word_score: float
    prior_weight: float
    full_context_final: bool
    rescore_weight: float
    rescore_nbest: int
    rescore_margin: float
    rescore_model_path: Path


def transcribe_files(
    settings: RecognizerSettings, paths: Iterable[Path], full_context: bool = False
) -> Iterator[dict]:
    """Per file {"file", "text", "audio_s", "decode_s"}, or {"file", "error"} for an unreadable one
    (the rest are still transcribed). A missing or broken checkpoint raises before any file."""
    rec = StreamingRecognizer.from_settings(settings).build()
    for path in paths:
        try:
            wave = read_audio(path)
        except AudioFileError as e:
            yield {"file": str(path), "error": str(e)}
            continue
        t0 = time.perf_counter_ns()
        texts = []
        for piece in split_at_pauses(wave):
            if full_context:
                texts.append(rec.text_of(log_probs_batch(rec.model, [piece], None)[0]))
            else:
                texts.append(_stream_all(rec, piece))
        text = " ".join(t for t in texts if t)
        decode_s, audio_s = (time.perf_counter_ns() - t0) / 1e9, len(wave) / SAMPLE_RATE
        yield {"file": str(path), "text": text, "audio_s": round(audio_s, 3), "decode_s": round(decode_s, 3)}


def split_at_pauses(
    wave: np.ndarray, max_s: float = PIECE_MAX_S, search_s: float = PAUSE_SEARCH_S
) -> list[np.ndarray]:
    """`wave` in pieces of at most `max_s` seconds, each cut in the middle of the quietest 200 ms
    in the last `search_s` seconds before its limit: a pause between sentences, where there is one,
    not the 40 ms closure of a "t" (the quietest single 10 ms, tried first, cut "weather" into
    "ether"). A whole file at full context grew attention with the square of its length: a
    6-minute file took 4.8 GB and 78 s (`assistant transcribe`, 2026-12-06)."""
    frame, limit, search = SAMPLE_RATE // 100, round(max_s * SAMPLE_RATE), round(search_s * SAMPLE_RATE)
    pieces, start = [], 0
    while len(wave) - start > limit:
        lo = start + limit - search
        frames = wave[lo : start + limit][: search // frame * frame].reshape(-1, frame)  # (n, 10 ms)
        energy = np.convolve(np.mean(frames**2, axis=1), np.ones(PAUSE_FRAMES) / PAUSE_FRAMES, "same")
        cut = lo + int(np.argmin(energy)) * frame + frame // 2
        pieces.append(wave[start:cut])
        start = cut
    pieces.append(wave[start:])
    return pieces


def _stream_all(rec: StreamingRecognizer, wave: np.ndarray) -> str:
    rec.reset()
    rec.accept(wave)
    return rec.finalize()
