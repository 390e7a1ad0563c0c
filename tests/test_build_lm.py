"""scripts/build_lm.py's dictionary words: added to the model's unigrams, nothing else changed."""

from __future__ import annotations

import math

import pytest
from conftest import load_script

# A two-word model as lmplz writes it (log10 probabilities, then backoffs).
TINY_ARPA = """\\data\\
ngram 1=5
ngram 2=2

\\1-grams:
-1.0\t<unk>\t0
0\t<s>\t-0.3
-0.5\t</s>\t0
-0.4\tset\t-0.2
-0.6\ttimer\t-0.1

\\2-grams:
-0.2\t<s> set
-0.1\tset timer

\\end\\
"""


def test_dictionary_words_share_the_unseen_mass_and_seen_words_keep_theirs(tmp_path):
    from flashlight.lib.text.decoder.kenlm import KenLM  # noqa: PLC0415
    from flashlight.lib.text.dictionary import Dictionary  # noqa: PLC0415

    build_lm = load_script("build_lm")
    arpa = tmp_path / "lm.arpa"
    arpa.write_text(TINY_ARPA)
    assert build_lm.add_unigrams(arpa, ["keypad", "set", "derrick"], mass=0.02) == 2  # "set" was there
    words = Dictionary(["set", "timer", "keypad", "derrick", "<unk>"])
    lm = KenLM(str(arpa), words)  # KenLM reads the edited file: its counts agree with its lines

    def after_start(word: str) -> float:
        return lm.score(lm.start(False), words.get_index(word))[1]

    start_backoff = -0.3  # a unigram after <s> pays <s>'s backoff
    for new in ("keypad", "derrick"):
        assert after_start(new) == pytest.approx(math.log10(0.02 / 2) + start_backoff, abs=1e-5)
    assert after_start("set") == pytest.approx(-0.2, abs=1e-5)  # the bigram, as before
    assert after_start("timer") == pytest.approx(-0.6 + start_backoff, abs=1e-5)


def test_wordnet_words_are_spelt_in_the_recognizers_letters(tmp_path):
    build_lm = load_script("build_lm")
    (tmp_path / "index.noun").write_text("  1 license header line\nderrick n 1 ...\nice_cream n 1 ...\n")
    (tmp_path / "noun.exc").write_text("geese goose\n")
    for pos in ("verb", "adj", "adv"):
        (tmp_path / f"index.{pos}").write_text("a.m. r 1 ...\n" if pos == "adv" else "")
        (tmp_path / f"{pos}.exc").write_text("")
    assert build_lm.wordnet_words(tmp_path) == ["derrick", "geese", "goose"]
