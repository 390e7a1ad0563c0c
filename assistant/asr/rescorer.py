"""A second opinion on the final transcript from the embedded LLM: n-best rescoring.

The word language model's beam search (`lm_decoder`) ends with several sentences whose scores are
close ("set a timer for ten minutes" / "set a timer for ten minuets"). The word LM is n-gram
statistics: the training sentences' 4-gram mixed 3:1 with CMU's generic English trigram model; the LLM
(by default SmolLM2-135M, the model `assistant run` answers with, loaded a second time here to read
every position's logits) reads the whole sentence. Each close candidate gets `weight × log
P_llm(sentence)`, the LLM's probability of the sentence as a user's whole message (after ChatML's
user header, up to its end token), added to its beam score, and the best total wins. On 400 dev
utterances (training voices, held-out sentences), on the shipped LM and the prior's beam search, 8
candidates within a margin of 3 took word errors 467 → 449 at weight 0.4 (0.2–0.5 all 449–452, 0.6
455); see models/asr/MODEL_CARD.md for the test sets and the cost.

It costs an LLM prefill of the close candidates' tokens per final: on real recordings a median
150 ms at one thread (`scripts/bench_rescore.py`), so it is off by default (`[asr] rescore_weight`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.special import log_softmax

# The sentence is scored as a user's whole message to the assistant: after ChatML's user header,
# up to the message's end token (assistant.llm's IM_START and IM_END).
USER_HEADER, MESSAGE_END = "<|im_start|>user\n", "<|im_end|>"
DEV_TUNED_WEIGHT = 0.4  # the weight chosen on dev (MODEL_CARD.md); config.toml's default, 0, is off


class LlmRescorer:
    """pick([(sentence, beam score), ...] best first) → sentence. Constructors store, build() loads."""

    def __init__(
        self,
        model_path: Path,
        weight: float = DEV_TUNED_WEIGHT,
        nbest: int = 8,
        margin: float = 3.0,
        threads: int = 1,
    ) -> None:
        """Only candidates within `margin` of the best beam score are read by the LLM: further ones
        rarely won on dev, and each costs a prefill."""
        self.model_path, self.weight, self.nbest, self.margin = Path(model_path), weight, nbest, margin
        self.threads = threads
        self.last_prefilled = 0  # tokens the last pick() prefilled (0: it needed no LLM)
        self._llama = None

    def build(self) -> LlmRescorer:
        if self._llama is None:
            # Imported here: llama.cpp is only needed once rescoring is configured.
            from assistant.llm import check_gguf, load_llama  # noqa: PLC0415

            check_gguf(self.model_path, key="[asr] rescore_model")
            # logits_all: the probability of every token of the sentence, not only of the next one.
            self._llama = load_llama(
                self.model_path, 512, self.threads, logits_all=True, key="[asr] rescore_model"
            )
            self._header = self._llama.tokenize(USER_HEADER.encode(), add_bos=False, special=True)
            self._end = self._llama.tokenize(MESSAGE_END.encode(), add_bos=False, special=True)
            self._llama.eval(self._header)  # shared by every sentence: evaluated once, kept cached
        return self

    def log_prob(self, sentence: str) -> float:
        """ln P(sentence, then the message's end | the user header), summed over its tokens."""
        return self.log_probs([sentence])[0]

    def log_probs(self, sentences: list[str]) -> list[float]:
        """log_prob of each sentence. The beam's sentences mostly differ in a word or two: taken in
        token order, each one reuses the cached tokens it shares with the one before and prefills
        only the rest."""
        from assistant.llm import common_prefix  # noqa: PLC0415 - loaded by build() already

        llama = self._llama
        if llama is None:
            raise RuntimeError("LlmRescorer.build() must be called before log_prob()")
        room = llama.n_ctx() - len(self._header)
        tokens = [
            (llama.tokenize(s.encode(), add_bos=False, special=False) + self._end)[:room] for s in sentences
        ]
        scores: dict[int, float] = {}
        self.last_prefilled = 0
        cached: list[int] = []  # the tokens after the header now in llama.cpp's cache
        for i in sorted(range(len(tokens)), key=tokens.__getitem__):
            shared = common_prefix(np.asarray(cached), np.asarray(tokens[i]))
            if shared == len(tokens[i]):  # the same tokens again: its logits are all cached
                shared -= 1
            llama.n_tokens = len(self._header) + shared  # eval() drops the cache after this
            llama.eval(tokens[i][shared:])
            self.last_prefilled += len(tokens[i]) - shared
            cached = tokens[i]
            scores[i] = self._cached_log_prob(tokens[i])
        return [scores[i] for i in range(len(tokens))]

    def _cached_log_prob(self, tokens: list[int]) -> float:
        """Σ ln P(token) over `tokens`, which follow the header in the cache."""
        start = len(self._header) - 1  # the logits at position i predict token i + 1
        logits = np.asarray(self._llama.scores[start : start + len(tokens)], dtype=np.float64)  # (n, V)
        return float(log_softmax(logits, axis=1)[np.arange(len(tokens)), tokens].sum())

    def pick(self, candidates: list[tuple[str, float]]) -> str:
        """The best of the beam's candidates (sentence, score), best first, after the LLM's say."""
        if not candidates:
            return ""
        best = candidates[0][1]
        close = [(text, score) for text, score in candidates if best - score <= self.margin]
        self.last_prefilled = 0
        if len(close) == 1:
            return close[0][0]  # nothing to decide: no prefill
        llm = self.log_probs([text for text, _ in close])
        totals = [score + self.weight * lp for (_, score), lp in zip(close, llm, strict=True)]
        return close[int(np.argmax(totals))][0]

    def close(self) -> None:
        if self._llama is not None:
            self._llama.close()
            self._llama = None
