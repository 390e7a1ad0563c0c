"""Sums worked out, not guessed: what is asked, as the recognizer spells it or as typed, and what is said."""

import pytest

from assistant import arithmetic


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        # the LLM's answers to these: "345 + 678 = 123", "15 percent of 80 is 2", "... approximately 2.3986"
        ("what is three hundred and forty five plus six hundred and seventy eight", "345 plus 678 is 1023."),
        ("What's 15% of 80?", "15 percent of 80 is 12."),
        ("What is the square root of 144?", "The square root of 144 is 12."),
        ("what is twelve times seven", "12 times 7 is 84."),
        ("12 x 7", "12 times 7 is 84."),
        ("12 * 7", "12 times 7 is 84."),  # the normalizer alone drops the "*": "twelve seven"
        ("what is a hundred divided by seven", "100 divided by 7 is about 14.2857."),
        ("What is 100/7 minus 20?", "100 divided by 7 minus 20 is about minus 5.71429."),
        ("what is two plus three times four", "2 plus 3 times 4 is 14."),  # × before +
        ("What is -5 + 2?", "Minus 5 plus 2 is minus 3."),
        ("what is 0.1 + 0.2", "0.1 plus 0.2 is 0.3."),  # not 0.30000000000000004, nor "about"
        ("what is one point five times four", "1.5 times 4 is 6."),
        ("what is 2^10", "2 to the power of 10 is 1024."),
        ("what is nine squared", "9 squared is 81."),
        ("what is the cube root of minus twenty seven", "The cube root of minus 27 is minus 3."),
        ("how much is 1,234 times 2", "1234 times 2 is 2468."),
        ("hey what does two plus two equal", "2 plus 2 is 4."),
        ("add five and three", "5 plus 3 is 8."),
        ("subtract three from ten", "10 minus 3 is 7."),
        ("multiply four by six please", "4 times 6 is 24."),
        ("divide ten by four", "10 divided by 4 is 2.5."),
        ("what is half of two hundred and fifty", "Half of 250 is 125."),
        ("what is a third of ninety", "A third of 90 is 30."),
        ("what's two thirds of sixty", "2 thirds of 60 is 40."),
        ("what is three quarters of eighty plus one", "3 quarters of 80 plus 1 is 61."),
        # about numbers, not a sum (the LLM: "A twenty-five percent tip on a dollar is thirty five
        # cents.", and of 17 "A number is a prime number if it has no positive integer divisors ...")
        ("is seventeen a prime number", "Yes, 17 is a prime number."),
        ("is 91 prime", "No, 91 is not a prime number: it's 7 times 13."),
        ("is one a prime number", "No, 1 is not a prime number."),
        ("is twelve even", "Yes, 12 is even."),
        ("is seven an even number", "No, 7 is not even."),
        (
            "what's a twenty percent tip on forty five dollars",
            "A 20 percent tip on 45 dollars is 9 dollars: 54 dollars in all.",
        ),
        (  # no rate said (the LLM: "A tip on 45 dollars is: "You can't have it, you're broke.""): the usual
            "what's the tip on forty five dollars",
            "A 15 percent tip on 45 dollars is 6.75 dollars; 18 percent is 8.10 dollars; 20 percent is 9"
            " dollars.",
        ),
        (
            "what's the top on forty five dollars",  # as "tip" was heard
            "A 15 percent tip on 45 dollars is 6.75 dollars; 18 percent is 8.10 dollars; 20 percent is 9"
            " dollars.",
        ),
        ("what is the top of the mountain", None),
        (
            "how much should i tip on sixty dollars",
            "A 15 percent tip on 60 dollars is 9 dollars; 18 percent is 10.80 dollars; 20 percent is 12"
            " dollars.",
        ),
        (
            "what is a 15% tip on $62.50",
            "A 15 percent tip on 62.50 dollars is 9.38 dollars: 71.88 dollars in all.",
        ),
        ("split ninety dollars three ways", "90 dollars split 3 ways is 30 dollars each."),
        ("split 100 euros between 3 people", "100 euros split 3 ways is 33.33 euros each."),
        ("what's ten factorial", "10 factorial is 3628800."),
        ("what is the factorial of twenty", "That number is too large to say."),
        ("what is the average of three, four and five", "The average of 3, 4 and 5 is 4."),
        # no number to say
        ("what is ten divided by zero", "You can't divide by zero: there is no answer."),
        ("what is the square root of minus four", "That has no answer in real numbers."),
        ("what is nine to the power of nine hundred", "That number is too large to say."),
        ("what is a billion times a billion", "That number is too large to say."),
        # the LLM's: not a sum alone
        ("what is seven", None),
        ("what is a third", None),
        ("what is the capital of france", None),
        ("what is two plus two in binary", None),
        ("tell me a story about five dragons and three knights", None),
        ("I have two cats and three dogs", None),
    ],
)
def test_sums_are_worked_out(asked, says):
    assert arithmetic.answer(asked) == says
