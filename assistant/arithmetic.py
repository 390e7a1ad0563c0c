"""Sums said aloud, worked out exactly instead of guessed by the LLM: "what is twelve times seven".

The embedded 135M model got every sum it was asked wrong: "345 + 678 = 123", "15 percent of 80 is
2", "the square root of 144 is approximately 2.3986", "ten times seven is a fun way to add numbers
together". So a question that is only a sum is worked out here: + − × ÷, powers, "squared",
"cubed", square roots, percentages and fractions ("half of", "two thirds of"), with the numbers as
the recognizer spells them ("three hundred and forty five", read back by text2num) or as typed
("345 + 678", "15% of 80"). Questions about numbers that are not a sum as well (`about_numbers`):
primes, even and odd, a tip, a bill split, a factorial, an average.

    arithmetic.answer("what is twelve times seven")   # "12 times 7 is 84."
    arithmetic.answer("What's 100 / 7?")              # "100 divided by 7 is about 14.2857."
"""

from __future__ import annotations

import ast
import math
import operator
import re

from text_to_num import alpha2digit

from assistant import phrases
from assistant.asr.text import normalize
from assistant.phrases import LEAD_IN

SIGNIFICANT = 6  # digits a result is said with; more is read out for seconds and not listened to
MAX_EXPONENT = 64  # a power beyond this ("nine to the power of nine hundred") is not worked out
TOO_LARGE = 1e15  # ... nor said: a number too long to follow by ear
TOO_LARGE_TO_SAY = "That number is too large to say."
NO_REAL_ANSWER = "That has no answer in real numbers."

# Typed symbols the normalizer drops ("12 * 7" came out "twelve seven"): said as words first.
_SYMBOLS = (
    (re.compile(r"(?<=\d)\s*[x×*]\s*(?=\d)"), " times "),
    (re.compile(r"\s*[/÷]\s*"), " divided by "),
    (re.compile(r"\s*\^\s*"), " to the power of "),
    (re.compile(r"(?:(?<=\s)|(?<=^)|(?<=\d))\s*[-−–]\s*(?=\d)"), " minus "),
    (re.compile(r"\s*\+\s*"), " plus "),
)
_NUMBER = r"\d+(?:\.\d+)?"
# Said operator → Python's, longest first so that "divided by" is not read as "by".
_OPERATORS = {
    "plus": "+", "minus": "-", "take away": "-", "times": "*",
    "multiplied by": "*", "x": "*", "divided by": "/", "over": "/", "to the power of": "**",
    "to the power": "**", "raised to": "**", "raised to the power of": "**", "percent of": "/100*",
}  # fmt: skip
_POSTFIX = {"squared": "**2", "cubed": "**3", "percent": "/100"}
_OPERATOR = "|".join(sorted(map(re.escape, _OPERATORS), key=len, reverse=True))
# "half of 250", "a third of 90", "two thirds of 60", "three quarters of 80" (text2num's "a 3rd of 90")
_FRACTION = r"(?:(?:a|\d+) )?(?:half|3rds?|quarters?) of"
_DENOMINATOR = {"half": 2, "3rd": 3, "3rds": 3, "quarter": 4, "quarters": 4}
_TERM = (
    rf"(?:minus )?(?:{_FRACTION} )?(?:(?:the )?(?:square|cube) root of (?:minus )?)?(?:a )?{_NUMBER}"
    rf"(?: (?:{'|'.join(_POSTFIX)}))?"
)
_EXPRESSION = rf"{_TERM}(?: (?:{_OPERATOR}) {_TERM})*"
_ASK = r"(?:what is|what's|how much is|calculate|compute|work out|tell me|what does)? ?"
_SUM = re.compile(rf"{LEAD_IN}{_ASK}(?P<sum>{_EXPRESSION})(?: equal| make| come to)?(?: please)?")
_VERB = re.compile(  # "add 5 and 3", "subtract 3 from 10", "multiply 4 by 6", "divide 10 by 4"
    rf"{LEAD_IN}(?P<verb>add|subtract|take|multiply|divide) (?P<a>{_TERM}) (?:and|to|from|by) (?P<b>{_TERM})"
    r"(?: please)?"
)
_VERB_SUM = {"add": "{a} plus {b}", "subtract": "{b} minus {a}", "take": "{b} minus {a}",
             "multiply": "{a} times {b}", "divide": "{a} divided by {b}"}  # fmt: skip


# Questions about numbers that are not a sum: "is 17 a prime number", "what's a 20 percent tip on
# 45 dollars", "split 90 dollars three ways", "what's 10 factorial", "the average of 3, 4 and 5"
_MONEY = (
    rf"(?:\$ ?)?(?P<n>{_NUMBER})(?: (?P<unit>dollars?|euros?|pounds?|bucks)"
    r"(?: and (?P<cents>\d\d?) cents?)?)?"
)
_ABOUT_NUMBERS = phrases.requests(
    {
        "prime": r"is (?P<n>\d+) (?:a )?prime(?: number)?",
        "even": r"is (?P<n>\d+) (?:an )?(?P<parity>even|odd)(?: number)?",
        # "top": "tip" as an espeak-ng voice's was heard (bench_e2e.py, 2026-12-08), before an amount
        "tip": rf"(?:(?:what's|what is|how much is|calculate) (?:a |the )?(?:(?P<p>{_NUMBER}) percent )?"
        rf"(?:tip|top)|how much (?:should i|do i) tip) (?:on|for) {_MONEY}",
        "split": rf"split {_MONEY} (?:(?P<k>\d+) ways|(?:between|among) (?P<people>\d+)"
        r"(?: people| of us)?)",
        "factorial": r"(?:what's|what is)? ?(?P<n>\d+) factorial"
        r"|(?:what's |what is )?the factorial of (?P<m>\d+)",
        "average": rf"(?:what's|what is) the (?:average|mean) of (?P<ns>{_NUMBER}(?:,? (?:and )?{_NUMBER})+)",
    }
)
USUAL_TIPS = (15, 18, 20)  # percent: "what's the tip on 45 dollars", no rate said
MAX_FACTORIAL = 17  # 18! is over TOO_LARGE
MAX_PRIME = 10**12  # trial division up to its square root: 29 ms for the largest prime below it, here


def about_numbers(said: str) -> str | None:
    """The answer to a question about numbers that is not a sum (`_ABOUT_NUMBERS`), or None."""
    kind, m = phrases.first_match(_ABOUT_NUMBERS, said)
    if m is None:
        return None
    if kind == "prime":
        n = int(m["n"])
        if n > MAX_PRIME:
            return None
        factor = next((f for f in range(2, math.isqrt(n) + 1) if n % f == 0), None)
        if n < 2:
            return f"No, {n} is not a prime number."
        if factor is None:
            return f"Yes, {n} is a prime number."
        return f"No, {n} is not a prime number: it's {factor} times {n // factor}."
    if kind == "even":
        n, parity = int(m["n"]), m["parity"]
        is_it = (n % 2 == 0) == (parity == "even")
        return f"{'Yes' if is_it else 'No'}, {n} is {'' if is_it else 'not '}{parity}."
    if kind == "factorial":
        n = int(m["n"] or m["m"])
        return f"{n} factorial is {math.factorial(n)}." if n <= MAX_FACTORIAL else TOO_LARGE_TO_SAY
    if kind == "average":
        numbers = re.findall(_NUMBER, m["ns"])
        mean = sum(map(float, numbers)) / len(numbers)
        return f"The average of {', '.join(numbers[:-1])} and {numbers[-1]} is {spoken_number(mean)}."
    amount = float(m["n"]) + (int(m["cents"]) / 100 if m["cents"] else 0)
    unit = m["unit"] or ""
    if kind == "tip" and m["p"] is None:  # no rate said: the usual ones
        first, *others = USUAL_TIPS
        said = [f"A {first} percent tip on {_money(amount, unit)} is {_money(amount * first / 100, unit)}"]
        said += [f"{p} percent is {_money(amount * p / 100, unit)}" for p in others]
        return "; ".join(said) + "."
    if kind == "tip":
        tip = amount * float(m["p"]) / 100
        return (
            f"A {m['p']} percent tip on {_money(amount, unit)} is {_money(tip, unit)}:"
            f" {_money(amount + tip, unit)} in all."
        )
    ways = int(m["k"] or m["people"])
    if ways < 2:
        return None
    return f"{_money(amount, unit)} split {ways} ways is {_money(amount / ways, unit)} each."


def _money(amount: float, unit: str) -> str:
    """45 → "45 dollars", 6.75 → "6.75 dollars", 15.0 → "15": cents when there are any."""
    text = f"{amount:.2f}".removesuffix(".00")
    unit = {"buck": "dollar", "bucks": "dollars"}.get(unit, unit)
    return f"{text} {unit.rstrip('s') + 's' * (text != '1')}" if unit else text


class _Unanswerable(ValueError):
    """A sum with no answer to say (a division by zero); its message is the spoken reply."""


def answer(text: str) -> str | None:
    """ "<the sum> is <its value>." for a question that is only a sum, or None for any other text."""
    said = in_digits(text)
    if (known := about_numbers(said)) is not None:
        return known
    if verb := _VERB.fullmatch(said):
        said = _VERB_SUM[verb["verb"]].format(a=verb["a"], b=verb["b"])
    elif sum_ := _SUM.fullmatch(said):
        said = sum_["sum"]
    else:
        return None
    if not re.search(rf"{_OPERATOR}|{'|'.join(_POSTFIX)}|root|{_FRACTION}", said):
        return None  # a number alone ("what is seven") is the LLM's
    try:
        value = _evaluate(_python(said))
    except _Unanswerable as reason:
        return str(reason)
    except (ArithmeticError, ValueError, SyntaxError):
        return None
    spoken = re.sub(r"\ba (?=\d)", "", said.replace("3rd", "third"))
    return f"{spoken[0].upper()}{spoken[1:]} is {spoken_number(value)}."


def in_digits(text: str) -> str:
    """Normalized text with its numbers in digits: "What's 15% of 80?" → "what's 15 percent of 80"."""
    for pattern, words in _SYMBOLS:
        text = pattern.sub(words, text)
    return alpha2digit(normalize(text), "en", threshold=0)


def _python(said: str) -> str:
    """The sum as a Python expression: "the square root of 144 plus 2 squared" → "sqrt(144)+2**2"."""
    out, root_open = [], False
    tokens = rf"{_FRACTION}|{_OPERATOR}|(?:square|cube) root of|{'|'.join(_POSTFIX)}|{_NUMBER}"
    for word in re.findall(tokens, said):
        if fraction := re.fullmatch(rf"(?:(?P<n>a|\d+) )?(?P<d>{'|'.join(_DENOMINATOR)}) of", word):
            numerator = fraction["n"] if fraction["n"] not in (None, "a") else "1"
            out.append(f"({numerator}/{_DENOMINATOR[fraction['d']]})*")
        elif word.endswith("root of"):
            out.append("sqrt(" if word.startswith("square") else "cbrt(")
            root_open = True
        elif word in _OPERATORS:  # "minus" too: "minus 5", as "5 minus 3"
            out.append(_OPERATORS[word])
        elif word in _POSTFIX:
            out.append(_POSTFIX[word])
        else:  # a number: it ends a root's argument ("the square root of minus 4": sqrt(-4))
            out.append(word + ")" * root_open)
            root_open = False
    return "".join(out)


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def _evaluate(expression: str) -> float:
    """Work out `expression`, made by `_python`: numbers, + - * / **, sqrt() and cbrt(), nothing else."""

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            base, exponent = value(node.left), value(node.right)
            if abs(exponent) > MAX_EXPONENT:
                raise _Unanswerable(TOO_LARGE_TO_SAY)
            if base < 0 and exponent != int(exponent):
                raise _Unanswerable(NO_REAL_ANSWER)
            try:
                return base**exponent
            except OverflowError:
                raise _Unanswerable(TOO_LARGE_TO_SAY) from None
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise _Unanswerable("You can't divide by zero: there is no answer.")
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
            argument = value(node.args[0])
            if node.func.id == "sqrt":
                if argument < 0:
                    raise _Unanswerable(NO_REAL_ANSWER)
                return math.sqrt(argument)
            if node.func.id == "cbrt":
                return math.copysign(abs(argument) ** (1 / 3), argument)
        raise ValueError(f"not a sum: {expression}")

    result = value(ast.parse(expression, mode="eval").body)
    if not math.isfinite(result) or abs(result) >= TOO_LARGE:
        raise _Unanswerable(TOO_LARGE_TO_SAY)
    return result


def spoken_number(value: float, significant: int = SIGNIFICANT) -> str:
    """84 → "84"; 14.285714… → "about 14.2857"; 0.1 + 0.2 → "0.3" (float noise is not "about");
    -3 → "minus 3" (piper's reading of "-3" is not to be relied on). A whole number is said whole,
    however many digits (below TOO_LARGE)."""
    magnitude = abs(value)
    if float(magnitude).is_integer():
        text, exact = str(int(magnitude)), True
    else:
        rounded = float(f"{magnitude:.{significant}g}")
        text = f"{rounded:.{significant}f}".rstrip("0").rstrip(".")
        exact = math.isclose(rounded, magnitude, rel_tol=1e-12, abs_tol=1e-12)
    text = "minus " + text if value < 0 else text
    text = "0" if text == "minus 0" else text
    return text if exact else f"about {text}"
