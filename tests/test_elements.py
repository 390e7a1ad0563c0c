"""The chemical elements from periodictable's data: symbols, atomic numbers and weights."""

import pytest

from assistant import elements


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        ("What's the chemical symbol for gold?", "The chemical symbol for gold is Au, spelled A, U."),
        (
            "what's the chemical simple for gold",
            "The chemical symbol for gold is Au, spelled A, U.",
        ),  # heard so
        ("what's the simple answer", None),
        ("what's sodium's symbol", "The chemical symbol for sodium is Na, spelled N, A."),
        (
            "what is the symbol for tungsten",
            "The chemical symbol for tungsten is W.",
        ),  # one letter: not spelled
        (
            "what's the symbol for aluminium",
            "The chemical symbol for aluminium is Al, spelled A, L.",
        ),  # British
        ("What element has the symbol Fe?", "Fe is iron, element number 26."),
        ("what element is f e", "Fe is iron, element number 26."),  # heard letter by letter
        ("what is na on the periodic table", "Na is sodium, element number 11."),
        ("which element is tin", "Tin is element number 50, symbol Sn, spelled S, N."),
        ("What's the atomic number of carbon?", "The atomic number of carbon is 6."),
        ("what number is iron on the periodic table", "The atomic number of iron is 26."),
        ("What is element number 79?", "Element number 79 is gold, symbol Au, spelled A, U."),
        (
            "what is element number seventeen nine",
            "Element number 79 is gold, symbol Au, spelled A, U.",
        ),  # heard so
        ("what is element number twenty five six", None),
        ("what element is number seventy nine", "Element number 79 is gold, symbol Au, spelled A, U."),
        ("what element has atomic number 118", "Element number 118 is oganesson, symbol Og, spelled O, G."),
        ("what is element 119", "There is no element number 119: they run from 1, hydrogen, to 118."),
        ("What's the atomic weight of oxygen?", "The atomic weight of oxygen is 15.999."),
        (
            "what is the atomic mass of cesium",
            "The atomic weight of cesium is 132.905.",
        ),  # NIST: 132.90545196
        (
            "what is the atomic weight of plutonium",
            "Plutonium has no stable isotope: its longest-lived one has a mass of about 244.",
        ),
        ("How many elements are there?", "There are 118 known elements, from hydrogen to oganesson."),
        # no element, or not asked of one: the LLM's
        ("what's the symbol for love", None),
        ("what's the symbol for the dollar", None),
        ("what element is in water", None),
        ("what is he", None),  # helium's symbol, but a question about someone
        ("what number is this", None),
    ],
)
def test_an_element_is_looked_up_not_guessed(asked, says):
    """Asked what element number 79 is, the LLM said "a chemical compound called sodium"; the atomic
    weight of oxygen, "32"; how many elements there are, "There are 10 in total."."""
    assert elements.answer(asked) == says
