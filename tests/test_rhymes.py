"""Rhymes by how words are said (piper's espeak-ng phonemes), among the words WordNet's texts use."""

import json
import logging

import pytest

from assistant import rhymes


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The rhymes worked out afresh (2 s) into a cache folder of this module's own."""
    home = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(home))
        rhymes._by_rhyme.cache_clear()
        yield home / "assistant" / "rhymes.json"
    rhymes._by_rhyme.cache_clear()


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # the LLM: "The word "cat" is a classic example of rhyming with itself."
        ("What rhymes with cat?", "Cat rhymes with hat, fat, flat, bat and pat."),
        ("what words rhyme with moon", "Moon rhymes with soon, afternoon, June, tune and lagoon."),
        (
            "give me a word that rhymes with nice",
            "Nice rhymes with price, device, twice, advice and precise.",
        ),
        ("find a rhyme for love", "Love rhymes with above, shove and dove."),
        ("What rhymes with orange?", "Nothing I know rhymes with orange."),  # the LLM: "... with orange."
        ("tell me a rhyme", None),  # a poem: the LLM's
        ("what is a rhyme", None),
    ],
)
def test_words_that_rhyme_most_used_first(cache, asked, says):
    assert rhymes.answer(asked) == says


def test_worked_out_once_then_read_back(cache):
    said = rhymes.answer("what rhymes with time")
    kept = json.loads(cache.read_text())
    assert "climb" in kept["rhymes"][rhymes.rhyme_key("time")]
    rhymes._by_rhyme.cache_clear()  # a new run: read back, the same answer
    assert rhymes.answer("what rhymes with time") == said
    cache.write_text("{not json")  # a damaged cache is worked out again, and replaced
    rhymes._by_rhyme.cache_clear()
    assert rhymes.answer("what rhymes with time") == said
    assert json.loads(cache.read_text())["rhymes"] == kept["rhymes"]


def test_a_cache_that_cannot_be_written_costs_only_time(tmp_path, monkeypatch, caplog):
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # no folder can be made under it, even by root
    rhymes._by_rhyme.cache_clear()
    try:
        with caplog.at_level(logging.WARNING):
            assert rhymes.answer("what rhymes with cat") == "Cat rhymes with hat, fat, flat, bat and pat."
    finally:
        rhymes._by_rhyme.cache_clear()
    assert "rhymes not kept" in caplog.text


def test_without_wordnet_it_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path))  # no cntlist.rev there
    assert rhymes.answer("what rhymes with cat").startswith("I can't look words up: WordNet isn't installed")
