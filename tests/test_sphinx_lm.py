"""scripts/sphinx_lm.py reads CMU Sphinx's trie LM as pocketsphinx itself scores it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from conftest import load_script


def pocketsphinx_english_lm() -> Path:
    spec = importlib.util.find_spec("pocketsphinx")
    return Path(spec.submodule_search_locations[0]) / "model" / "en-us" / "en-us.lm.bin"


def test_every_order_reads_as_pocketsphinx_scores_it():
    from pocketsphinx import Config, LogMath, NGramModel  # noqa: PLC0415

    sphinx_lm = load_script("sphinx_lm")
    path = pocketsphinx_english_lm()
    words, orders = sphinx_lm.read_trie(path)
    # The header says 2,051,547 bigrams; the trie holds 6 fewer (see the module's docstring).
    assert [len(o.prob) for o in orders] == [72_547, 2_051_541, 1_669_625] and len(words) == 72_547

    reference, logmath = NGramModel(Config(), LogMath(), str(path)), LogMath()

    def pocketsphinx(ngram: list[str]) -> float:  # log10 P(last | the rest); it takes them reversed
        return logmath.log_to_log10(reference.prob(ngram[::-1]))

    rng = np.random.default_rng(0)
    unit = sphinx_lm.LOG10_PER_UNIT  # pocketsphinx rounds its scores to whole units
    for order in orders:
        for i in rng.choice(len(order.prob), 200, replace=False):
            ngram = [words[j] for j in order.words[i]]
            if ngram[-1] != "<s>":
                assert order.prob[i] == pytest.approx(pocketsphinx(ngram), abs=2 * unit), ngram
    # A trigram that is not stored backs off: the bigram history's weight + P(w3 | w2).
    bigrams = {tuple(b): i for i, b in enumerate(orders[1].words.tolist())}
    followers: dict[int, list[int]] = {}
    for w2, w3 in bigrams:
        followers.setdefault(w2, []).append(w3)
    trigrams = set(map(tuple, orders[2].words.tolist()))
    checked = 0
    for i in rng.choice(len(orders[2].prob), 300, replace=False):
        w1, w2, _ = orders[2].words[i]
        w3 = int(rng.choice(followers[w2]))
        if (w1, w2, w3) in trigrams or words[w3] == "<s>":
            continue
        want = orders[1].backoff[bigrams[w1, w2]] + orders[1].prob[bigrams[w2, w3]]
        assert want == pytest.approx(pocketsphinx([words[w1], words[w2], words[w3]]), abs=2 * unit)
        checked += 1
    assert checked >= 100


def test_a_file_that_is_not_a_sphinx_trie_is_refused(tmp_path):
    sphinx_lm = load_script("sphinx_lm")
    junk = tmp_path / "junk.lm.bin"
    junk.write_bytes(b"not a language model" * 50)
    with pytest.raises(sphinx_lm.SphinxLmError, match="not a CMU Sphinx trie language model"):
        sphinx_lm.read_trie(junk)
    cut = tmp_path / "cut.lm.bin"
    cut.write_bytes(pocketsphinx_english_lm().read_bytes()[:2_000_000])
    with pytest.raises(sphinx_lm.SphinxLmError, match="damaged trie"):
        sphinx_lm.read_trie(cut)
