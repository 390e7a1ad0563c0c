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


def write_bigram_arpa(path, unigrams: dict[str, float], bigrams: dict[tuple[str, str], float]) -> None:
    """A normalized bigram back-off model: probabilities (not logs) in, each history's back-off
    weight chosen so that it sums to one."""
    log = lambda p: math.log10(p) if p > 0 else -99.0  # noqa: E731
    backoff = {}
    for (h, _), _p in bigrams.items():
        seen = [w for (g, w) in bigrams if g == h]
        backoff[h] = (1 - sum(bigrams[h, w] for w in seen)) / (1 - sum(unigrams[w] for w in seen))
    lines = ["\\data\\", f"ngram 1={len(unigrams)}", f"ngram 2={len(bigrams)}", "", "\\1-grams:"]
    lines += [f"{log(p):.6f}\t{w}\t{log(backoff.get(w, 1.0)):.6f}" for w, p in unigrams.items()]
    lines += ["", "\\2-grams:"] + [f"{log(p):.6f}\t{h} {w}" for (h, w), p in bigrams.items()]
    path.write_text("\n".join([*lines, "", "\\end\\", ""]))


OURS_UNIGRAMS = {"<s>": 0.0, "</s>": 0.3, "set": 0.4, "timer": 0.3}
OURS_BIGRAMS = {("<s>", "set"): 0.9, ("set", "timer"): 0.8, ("timer", "</s>"): 0.7}
GENERAL_UNIGRAMS = {"<s>": 0.0, "</s>": 0.2, "set": 0.2, "the": 0.4, "table": 0.2}
GENERAL_BIGRAMS = {("<s>", "set"): 0.3, ("set", "the"): 0.6, ("the", "table"): 0.5, ("table", "</s>"): 0.6}


def conditional(model, history: list[str], word: str) -> float:
    """P(word | history) of a kenlm model, as a probability."""
    import kenlm  # noqa: PLC0415

    state, after = kenlm.State(), kenlm.State()
    if history[:1] == ["<s>"]:
        model.BeginSentenceWrite(state)
        history = history[1:]
    else:
        model.NullContextWrite(state)
    for w in history:
        model.BaseScore(state, w, after)
        state, after = after, kenlm.State()
    return 10 ** model.BaseScore(state, word, after) if word in model else 0.0


def test_the_interpolated_model_is_the_mixture_on_every_ngram_and_sums_to_one(tmp_path):
    import kenlm  # noqa: PLC0415

    build_lm = load_script("build_lm")
    ours, general, mixed = tmp_path / "ours.arpa", tmp_path / "general.arpa", tmp_path / "mixed.arpa"
    write_bigram_arpa(ours, OURS_UNIGRAMS, OURS_BIGRAMS)
    write_bigram_arpa(general, GENERAL_UNIGRAMS, GENERAL_BIGRAMS)
    build_lm.interpolate_arpa([ours, general], [0.75, 0.25], mixed)
    a, g, m = (kenlm.Model(str(p)) for p in (ours, general, mixed))

    for h, w in {*OURS_BIGRAMS, *GENERAL_BIGRAMS}:  # explicit in either: the exact mixture
        want = 0.75 * conditional(a, [h], w) + 0.25 * conditional(g, [h], w)
        assert conditional(m, [h], w) == pytest.approx(want, rel=1e-4), (h, w)
    vocabulary = ["</s>", "set", "timer", "the", "table"]
    for h in ["<s>", "set", "timer", "the", "table"]:  # every history, explicit followers or not
        assert sum(conditional(m, [h], w) for w in vocabulary) == pytest.approx(1.0, abs=1e-4), h


def test_the_general_models_words_outside_the_recognizers_letters_are_left_out(tmp_path):
    import kenlm  # noqa: PLC0415

    build_lm = load_script("build_lm")
    ours, general, mixed = tmp_path / "ours.arpa", tmp_path / "general.arpa", tmp_path / "mixed.arpa"
    write_bigram_arpa(ours, OURS_UNIGRAMS, OURS_BIGRAMS)
    unigrams = {**GENERAL_UNIGRAMS, "table": 0.1, "t.v.": 0.1}
    write_bigram_arpa(general, unigrams, {**GENERAL_BIGRAMS, ("the", "t.v."): 0.3})
    assert build_lm.interpolate_arpa([ours, general], [0.75, 0.25], mixed) == ["set", "table", "the", "timer"]
    assert "t.v." not in kenlm.Model(str(mixed)) and "the" in kenlm.Model(str(mixed))
    assert [w for (w,) in build_lm.arpa_ngrams(mixed)[0]] == ["</s>", "<s>", "set", "table", "the", "timer"]


CHAT_UNIGRAMS = {"<s>": 0.0, "</s>": 0.3, "the": 0.2, "timer": 0.2, "hello": 0.3}
CHAT_BIGRAMS = {("<s>", "hello"): 0.8, ("hello", "</s>"): 0.9, ("the", "timer"): 0.5}


def test_a_three_part_mixture_is_exact_on_every_ngram_and_sums_to_one(tmp_path):
    import kenlm  # noqa: PLC0415

    build_lm = load_script("build_lm")
    parts = [tmp_path / f"{name}.arpa" for name in ("ours", "general", "chat")]
    for path, (uni, bi) in zip(
        parts,
        [(OURS_UNIGRAMS, OURS_BIGRAMS), (GENERAL_UNIGRAMS, GENERAL_BIGRAMS), (CHAT_UNIGRAMS, CHAT_BIGRAMS)],
        strict=True,
    ):
        write_bigram_arpa(path, uni, bi)
    weights = [0.6, 0.25, 0.15]
    words = build_lm.interpolate_arpa(parts, weights, tmp_path / "mixed.arpa")
    assert words == ["hello", "set", "table", "the", "timer"]
    models = [kenlm.Model(str(p)) for p in parts]
    m = kenlm.Model(str(tmp_path / "mixed.arpa"))
    for h, w in {*OURS_BIGRAMS, *GENERAL_BIGRAMS, *CHAT_BIGRAMS}:
        want = sum(k * conditional(model, [h], w) for k, model in zip(weights, models, strict=True))
        assert conditional(m, [h], w) == pytest.approx(want, rel=1e-4), (h, w)
    for h in ["<s>", *words]:
        assert sum(conditional(m, [h], w) for w in ["</s>", *words]) == pytest.approx(1.0, abs=1e-4), h


@pytest.mark.parametrize("weights", [[0.5, 0.25], [0.75, 0.25, 0.0], [1.25, -0.25]])
def test_mixture_weights_must_be_one_per_model_and_a_distribution(tmp_path, weights):
    build_lm = load_script("build_lm")
    ours, general = tmp_path / "ours.arpa", tmp_path / "general.arpa"
    write_bigram_arpa(ours, OURS_UNIGRAMS, OURS_BIGRAMS)
    write_bigram_arpa(general, GENERAL_UNIGRAMS, GENERAL_BIGRAMS)
    with pytest.raises(ValueError, match="one each, >= 0, summing to 1"):
        build_lm.interpolate_arpa([ours, general], weights, tmp_path / "mixed.arpa")


def test_conversation_sentences_restore_apostrophes_drop_unknown_words_and_hold_out_every_20th(tmp_path):
    import json  # noqa: PLC0415

    build_lm = load_script("build_lm")
    said = [
        "Hi! Im fine, thanks. How about you?",  # three sentences; "im" is "i'm"
        "I dont know haha",  # "haha" is no word: the sentence goes
        "thats 2 cool\nyoure right",  # digits spelt out; a line break ends a sentence
    ]
    conversations = {
        f"c{n}": {"messages": [[{"text": said[n % 3], "sender": "a"}], [{"text": "ok", "sender": "b"}]]}
        for n in range(21)
    }
    dataset = tmp_path / "dataset.json"
    dataset.write_text(json.dumps(conversations))
    vocabulary = {"hi", "i'm", "fine", "thanks", "how", "about", "you", "i", "don't", "know", "that's",
                  "two", "cool", "you're", "right", "ok", "im"}  # fmt: skip
    kept, held_out = build_lm.conversation_sentences(dataset, vocabulary)
    first = ["hi", "i'm fine thanks", "how about you", "ok"]
    second = ["ok"]  # "i don't know haha" went
    third = ["that's two cool", "you're right", "ok"]
    assert held_out == first + third  # conversations 0 and 20
    assert kept == [s for n in range(1, 20) for s in (first, second, third)[n % 3]]
