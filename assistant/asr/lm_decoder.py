"""Final-transcript decoding with a word language model: CTC log-probs → lexicon beam search → words.

Greedy CTC spells each word from the sound alone ("wif three ligs"); a beam search that only
walks words of a lexicon and weighs them with a KenLM n-gram picks the likeliest *sentence*
("with three legs"). We use flashlight-text's LexiconDecoder (the C++ decoder behind torchaudio's
`ctc_decoder`) with the 4-gram built by `scripts/build_lm.py`. It costs a few ms per utterance, so
it runs on finals only; partials stay greedy. Words outside the lexicon cannot come out of it.

Before the search, each symbol's log-prob loses `prior_weight` × the log of its prior, the
checkpoint's mean posterior for it (`build(log_prior=...)`): the hybrid recognizers' "posterior / prior". A
CTC network's posteriors are peaked on the blank and on common letters; dividing part of that out
lets the letters of rarer sounds, and with them the language model, count for more. On 400 dev
utterances word errors fell 581 → 545 at 0.6 (MODEL_CARD.md), at the cost of one (T, V) subtraction.
The prior helps the search only: greedy CTC (the partials) got worse with it (dev, streaming: 1,246
word errors → 1,337 at 0.6), since it takes letters from the blank with no language model to vet them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import log_softmax

from assistant.asr.text import BLANK_ID, CHAR_TO_ID, VOCAB

SPACE_ID = CHAR_TO_ID[" "]  # the word boundary ("silence") token of the lexicon
UNK = "<unk>"
KENLM_BINARY_MAGIC = b"mmap lm "  # how build_binary's files begin


def words_path_for(lm_path: Path) -> Path:
    """The lexicon ships beside its model: models/asr/lm.bin → models/asr/lm_words.txt."""
    return Path(lm_path).with_name(f"{Path(lm_path).stem}_words.txt")


class LanguageModelError(RuntimeError):
    """The language model or its word list is missing or unreadable."""


@dataclass(frozen=True)
class DecoderWeights:
    """How the beam search trades the acoustics against the language model (tuned on the dev set by
    `scripts/tune_lm.py`; never on test sets)."""

    lm_weight: float = 2.2  # × the LM score of each word
    word_score: float = 0.0  # added per word: > 0 counters the LM's bias towards fewer words
    # Hypotheses kept per frame. On dev's full-context finals 128 had 3% fewer word errors than 64
    # for ~5 ms more a final; 256 only 1% fewer again, for twice 128's time (MODEL_CARD.md).
    beam_size: int = 128
    beam_threshold: float = 20.0  # drop hypotheses this far below the best
    prior_weight: float = 0.6  # × the checkpoint's log CTC prior, taken from every frame (see above)


class LexiconDecoder:
    """decode(log_probs (T, V)) → text. Constructors store, build() loads (KenLM mmaps the binary)."""

    def __init__(
        self, lm_path: Path, weights: DecoderWeights = DecoderWeights(), words_path: Path | None = None
    ) -> None:
        """`words_path`: the lexicon; by default the one beside the model (`words_path_for`)."""
        self.lm_path, self.weights = Path(lm_path), weights
        self.words_path = Path(words_path) if words_path is not None else words_path_for(self.lm_path)
        self._decoder = None
        self._prior_shift: np.ndarray | None = None  # (V,) prior_weight × ln prior, set by build()

    def build(self, *, log_prior: np.ndarray | None) -> LexiconDecoder:
        """Load the lexicon and the LM (once) and take the acoustic model's log CTC prior (V,)
        (`ConformerCTC.log_prior`; None or all zeros: none). The prior is required, not defaulted:
        a decoder that forgot it would decode without it, silently and worse."""
        prior = None if log_prior is None else np.asarray(log_prior, np.float32)
        use = prior is not None and self.weights.prior_weight > 0 and bool(np.any(prior != 0))
        self._prior_shift = self.weights.prior_weight * prior if use else None
        if self._decoder is None:
            self._load()
        return self

    def _load(self) -> None:
        # Imported here: the C++ extension is only needed once a language model is configured.
        from flashlight.lib.text.decoder import (  # noqa: PLC0415
            CriterionType,
            LexiconDecoderOptions,
            SmearingMode,
            Trie,
        )
        from flashlight.lib.text.decoder import LexiconDecoder as FlashlightLexiconDecoder  # noqa: PLC0415
        from flashlight.lib.text.decoder.kenlm import KenLM  # noqa: PLC0415
        from flashlight.lib.text.dictionary import Dictionary  # noqa: PLC0415

        for path in (self.lm_path, self.words_path):
            if not path.is_file():
                raise LanguageModelError(
                    f"language model file {path} is missing (build it with scripts/build_lm.py)"
                )
        words = [w for w in self.words_path.read_text().split("\n") if w]
        bad = [w for w in words if any(c not in CHAR_TO_ID or c == " " for c in w)]
        if not words or bad:
            raise LanguageModelError(
                f"{self.words_path}: not a word list of the recognizer's letters ({bad[:3]})"
            )
        self._words = [*words, UNK]
        word_dict = Dictionary(self._words)
        # KenLM prints a progress bar and a C++ trace for a file it cannot read: check first.
        with self.lm_path.open("rb") as f:
            head = f.read(4096)
        if not (head.startswith(KENLM_BINARY_MAGIC) or b"\\data\\" in head):
            raise LanguageModelError(
                f"{self.lm_path}: not a KenLM model (binary or ARPA); rebuild it with scripts/build_lm.py"
            )
        try:
            lm = KenLM(str(self.lm_path), word_dict)
        except Exception as e:  # a damaged file of the right kind
            raise LanguageModelError(
                f"{self.lm_path}: unreadable KenLM model ({str(e).splitlines()[0]})"
            ) from e

        # Trie over spellings, each word closed by the space token; every node carries the best LM
        # unigram score below it (smearing) so the search can prune inside words.
        trie = Trie(len(VOCAB), SPACE_ID)
        start = lm.start(False)
        for index, word in enumerate(words):
            _, score = lm.score(start, index)
            trie.insert([CHAR_TO_ID[c] for c in word] + [SPACE_ID], index, score)
        trie.smear(SmearingMode.MAX)

        w = self.weights
        options = LexiconDecoderOptions(
            beam_size=w.beam_size,
            beam_size_token=len(VOCAB),
            beam_threshold=w.beam_threshold,
            lm_weight=w.lm_weight,
            word_score=w.word_score,
            unk_score=float("-inf"),
            sil_score=0.0,
            log_add=False,
            criterion_type=CriterionType.CTC,
        )
        unk_index = len(words)
        self._lm, self._trie = lm, trie  # the decoder keeps raw pointers to both: keep them alive
        self._decoder = FlashlightLexiconDecoder(options, trie, lm, SPACE_ID, BLANK_ID, unk_index, [], False)

    def decode(self, log_probs: np.ndarray) -> str:
        """(T, V) log-probabilities of one utterance → its best word sequence ("" for no frames)."""
        results = self._search(log_probs)
        return self._text(results[0]) if results else ""

    def nbest(self, log_probs: np.ndarray, n: int) -> list[tuple[str, float]]:
        """Up to `n` distinct word sequences of the final beam with their scores (acoustic +
        lm_weight × LM + word_score × words), best first; [("", 0.0)] for no frames. The beam holds
        many spellings of one sentence (where the blanks fall): each sentence counts once."""
        results = self._search(log_probs)
        if not results:
            return [("", 0.0)]
        best: dict[str, float] = {}
        for result in results:  # best first
            best.setdefault(self._text(result), result.score)
            if len(best) == n:
                break
        return list(best.items())

    def _search(self, log_probs: np.ndarray) -> list:
        if self._decoder is None:
            raise RuntimeError("LexiconDecoder.build() must be called before decoding")
        if len(log_probs) == 0:
            return []
        if self._prior_shift is not None:  # (T, V), each frame renormalized
            log_probs = log_softmax(log_probs - self._prior_shift, axis=1)
        emissions = np.ascontiguousarray(log_probs, dtype=np.float32)  # (T, V)
        return self._decoder.decode(emissions.ctypes.data, emissions.shape[0], emissions.shape[1])

    def _text(self, result) -> str:
        return " ".join(self._words[i] for i in result.words if i >= 0)
