"""What words mean, from the real WordNet files (Debian's wordnet-base), not from the LLM (which
said "cogent" meant "belonging to the kingdom of God" and gave "sad" for a synonym of happy)."""

import random

import pytest

from assistant import dictionary, doctor
from assistant.dictionary import Sense, WordNet

WORDNET = WordNet.at(dictionary.wordnet_dir())  # None fails the tests here: scripts/setup.sh installs it


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        (
            "What does ephemeral mean?",
            'Ephemeral means lasting a very short time, as in "the ephemeral joys of childhood".',
        ),
        ("what does the word cogent mean", 'Cogent means powerfully persuasive, as in "a cogent argument".'),
        ("What's the definition of nostalgia?", "Nostalgia is longing for something past."),
        (
            "define black hole",
            "Black hole is a region of space resulting from the collapse of a star; extremely high"
            " gravitational field.",
        ),
        ("look up the word ubiquitous", "Ubiquitous means being present everywhere at once."),
        # verbs, and a word said inflected is looked up as its base
        (
            "what does it mean to procrastinate",
            "To procrastinate means to postpone doing what one should be doing"
            ', as in "He did not want to write the letter and procrastinated for days".',
        ),
        (
            "what does procrastinating mean",
            "To procrastinate means to postpone doing what one should be doing"
            ', as in "He did not want to write the letter and procrastinated for days".',
        ),
        (
            "define geese",
            "Goose is web-footed long-necked typically gregarious migratory aquatic birds usually larger"
            " and less aquatic than ducks.",
        ),
        ("what does blorp mean", "I don't know the word blorp."),  # most often misheard: the user hears what
        ("what does the name sophia mean", "I don't know the word sophia."),  # WordNet has no first names
        # about the conversation, not a word: the LLM's
        ("what does that mean", None),
        ("what does he mean", None),  # WordNet's "He" is helium
        ("what is the meaning of life", None),
        ("what does it mean to be happy", None),
        ("look up the weather", None),  # a search: "look up" alone is not a definition
    ],
)
def test_a_word_is_defined_by_its_most_common_meaning(asked, says):
    assert dictionary.answer(asked) == says


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        ("What's a synonym for happy?", "Another word for happy is glad; or cheerful or joyous."),
        ("give me a synonym for angry", "Another word for angry is mad; or furious or enraged."),
        # "larger" is left out: built on "large", already said
        ("what's another word for big", "Another word for big is large; or great or vast."),
        # the adverb "fast" has no other words; the adjective's come before the noun's "fasting"
        ("another word for fast", "Another word for fast is sudden; or rapid or quick."),
        ("synonyms for smart", "Another word for smart is intelligent; or clever or shrewd."),
        ("what's another word for nostalgia", "I don't know another word for nostalgia."),
        # a verb's "see also" pointers name words, not meanings
        ("another word for remember", "Another word for remember is retrieve; or recall or call back."),
        ("What's the opposite of generous?", "The opposite of generous is stingy."),
        ("antonym for increase", "The opposite of increase is decrease."),
        ("opposite of big", "The opposite of big is little."),  # WordNet pairs big/little, large/small
        ("what's the opposite of ancient", None),  # no antonym in WordNet, only neighbours: the LLM's
    ],
)
def test_synonyms_and_opposites_come_from_the_words_wordnet_relates(asked, says):
    assert dictionary.answer(asked) == says


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        ("What does NASA stand for?", "NASA stands for National Aeronautics and Space Administration."),
        (
            "what does f b i stand for",
            "FBI stands for Federal Bureau of Investigation.",
        ),  # letters said one by one
        (
            "what does dna stand for",
            "DNA stands for deoxyribonucleic acid.",
        ),  # no initials: WordNet's first word
        ("what is ufo short for", "UFO stands for unidentified flying object."),
        (
            "what does atm stand for",
            "ATM stands for asynchronous transfer mode, or automated teller machine.",
        ),
        ("what does lol stand for", "I don't know what LOL stands for."),
        ("what does laser stand for", None),  # a word, not an abbreviation, in WordNet: the LLM's
    ],
)
def test_an_abbreviation_is_expanded(asked, says):
    assert dictionary.answer(asked) == says


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        (
            "What is an atom?",
            "An atom is the smallest component of an element having the chemical properties of the "
            "element.",
        ),
        (
            "whats a unicorn",
            "A unicorn is an imaginary creature represented as a white horse with a long horn growing "
            "from its forehead.",
        ),
        (
            "what are black holes",
            "A black hole is a region of space resulting from the collapse of a star; extremely high "
            "gravitational field.",
        ),
        ("what are hours", "Hours are a period of time assigned for work."),  # WordNet's own plural
        ("what is a timer", "A timer is a timepiece that measures a time interval and signals its end."),
        (
            "what is the eiffel tower",
            "The Eiffel Tower is a wrought iron tower 300 meters high that was constructed in Paris in "
            "1889; for many years it was the tallest man-made structure.",
        ),
        (  # one meaning
            "what is photosynthesis",
            "Photosynthesis is synthesis of compounds with the aid of radiant energy (especially in "
            "plants).",
        ),
        (
            "what is dna",
            "DNA is a long linear polymer found in the nucleus of a cell and formed from nucleotides "
            "and shaped like a double helix; associated with the transmission of genetic information.",
        ),
        # the LLM's: a noun of several meanings said bare, a common noun after "the", no noun at all
        ("what is love", None),
        ("what's ninety", None),  # a quantity: "what's my name" as one voice was heard
        ("what is time", None),
        ("what is the weather", None),  # limits.py's
        ("what is happening", None),
        ("what is a good name for a dog", None),
        ("what is your name", None),
        ("what is it", None),
        ("what are you", None),
        ("what is the capital of france", None),  # places.py's
    ],
)  # fmt: skip
def test_what_a_thing_is(asked, says):
    """Asked what a platypus is, the LLM said "a small mammal with five arms and a long, flat head"."""
    assert dictionary.answer(asked) == says


def test_other_requests_are_not_taken():
    for asked in ("what does two plus two equal", "how do you spell necessary", "what time is it", "hello"):
        assert dictionary.answer(asked) is None, asked


def test_every_word_of_the_index_is_found_by_the_binary_search():
    """The search over the mapped, sorted file finds the first word after the licence, the last
    one and a sample between, and nothing for a word that sorts between two."""
    lines = [
        line for line in (WORDNET.root / "index.adv").read_text().splitlines() if not line.startswith("  ")
    ]
    sample = [lines[0], lines[-1], *random.Random(0).sample(lines, 300)]
    for line in sample:
        assert WORDNET._line("index.adv", line.split()[0]) == line
    assert WORDNET._line("index.adv", "quickly_") is None and WORDNET._line("index.adv", "a") is None


def test_sense_keys_find_their_counts():
    """A satellite adjective's key names its head ("mad%5:00:00:angry:00"); a noun's has none."""
    (angry,) = [s for s in WORDNET.entries("angry")[0].senses if s.synset.pos == "a"]
    (mad_cluster,) = [synset for synset in WORDNET.related(angry.synset, "&") if "mad" in synset.lemmas()]
    assert WORDNET._sense_key(Sense("mad", mad_cluster)) == "mad%5:00:00:angry:00"
    assert WORDNET.seen(Sense("mad", mad_cluster)) == (1, 12)
    nostalgia = WORDNET.entries("nostalgia")[0].senses[0]
    assert WORDNET._sense_key(nostalgia) == "nostalgia%1:12:00::"
    assert WORDNET.seen(nostalgia)[0] == 1


def test_missing_wordnet_is_said_and_the_doctor_names_the_fix(tmp_path, monkeypatch):
    assert dictionary.answer("what does ephemeral mean", root=tmp_path) == dictionary.MISSING
    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path))
    assert dictionary.answer("what does ephemeral mean") == dictionary.MISSING
    ok, what, detail = doctor._guarded("dictionary", doctor._dictionary)
    assert not ok and f"no WordNet in {tmp_path}" in detail and "apt-get install wordnet-base" in detail
    monkeypatch.delenv("WNSEARCHDIR")
    ok, _, detail = doctor._guarded("dictionary", doctor._dictionary)
    assert ok and "Dictionary is a reference book" in detail


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        (
            "Who was Isaac Newton?",
            "Isaac Newton (1642 to 1727) was an English mathematician and physicist; remembered for"
            " developing the calculus and for his law of gravitation and his three laws of motion.",
        ),
        # a surname alone; the first whole name that is not a title ("Sir Isaac Newton"); a long
        # description cut at a clause (Einstein's third is about photons)
        (
            "who was einstein",
            "Albert Einstein (1879 to 1955) was a physicist born in Germany who formulated the special"
            " theory of relativity and the general theory of relativity.",
        ),
        (
            "who was napoleon",
            "Napoleon I (1769 to 1821) was a French general who became emperor of the French.",
        ),
        (
            "who is madonna louise ciccone",
            "Madonna Louise Ciccone (born in 1958) is a United States pop singer and sex symbol during"
            " the 1980s.",
        ),
        (
            "who is santa claus",  # no dates: "is"
            "Santa Claus is the legendary patron saint of children; an imaginary being who is thought"
            " to bring presents to children at Christmas.",
        ),
        # several people so called: their whole names, to ask by
        (
            "who was curie",
            "I know 2 people called Curie: Pierre Curie and Marie Curie. Ask me about one by the whole name.",
        ),
        (
            "who was ford",
            "I know 6 people called Ford: John Ford, Henry Ford II, Edsel Bryant Ford and others. Ask me"
            " about one by the whole name.",
        ),
        # nobody WordNet knows (it is from 2006), or not a person: the LLM's (or limits.py's: "who is the
        # president")
        ("who is obama", None),
        ("who is alex", None),
        ("who is the president", None),
        ("who are you", None),
    ],
)
def test_who_someone_was_is_said_from_wordnet(asked, says):
    assert dictionary.answer(asked) == says


def test_who_someone_was_goes_to_the_llm_without_wordnet(tmp_path):
    assert dictionary.answer("who was isaac newton", root=tmp_path) is None
