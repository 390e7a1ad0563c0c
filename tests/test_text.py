"""assistant.asr.text: the one normalizer and the character vocabulary."""

from __future__ import annotations

import pytest

from assistant.asr.text import BLANK, VOCAB, decode, encode, normalize


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("Hello, World!", "hello world"),
        ("Set a timer for 25 minutes.", "set a timer for twenty five minutes"),
        ("Wake me up at 7:30 am", "wake me up at seven thirty a m"),
        ("Meet at 9:05", "meet at nine oh five"),
        ("It's 10:00.", "it's ten o'clock"),
        ("That costs $5.99", "that costs five dollars and ninety nine cents"),
        ("$1", "one dollar"),
        ("the 2nd and 23rd of May", "the second and twenty third of may"),
        ("Pi is 3.14", "pi is three point one four"),
        ("Born in 1984", "born in nineteen eighty four"),
        ("50% off", "fifty percent off"),
        ("rock & roll", "rock and roll"),
        ("1,000 people", "one thousand people"),
        ("Don't stop", "don't stop"),
        ("'quoted' words", "quoted words"),
        ("It’s fine", "it's fine"),
        ("Café déjà vu", "cafe deja vu"),
        ("well-known   spaces\n", "well known spaces"),
        ("", ""),
    ],
)
def test_normalize(written, spoken):
    assert normalize(written) == spoken


def test_normalize_output_stays_in_vocabulary():
    text = normalize("Ünïcode, digits 42, symbols #1 @home + 3 = 4 ° € £ ~ ^ [x] {y}")
    assert set(text) <= set(VOCAB[1:])
    assert "  " not in text and text == text.strip()


def test_vocab_has_blank_first_and_29_symbols():
    assert VOCAB[0] == BLANK and len(VOCAB) == 29
    assert VOCAB[1] == " " and VOCAB[2] == "'"


def test_encode_decode_round_trip():
    text = "what's the time"
    ids = encode(text)
    assert 0 not in ids and decode(ids) == text
