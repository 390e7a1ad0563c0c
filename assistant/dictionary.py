"""What words mean, from WordNet: "what does ephemeral mean", "another word for happy", "the
opposite of generous", "what does NASA stand for", "who was Isaac Newton", "what is a platypus".

Asked what "cogent" means, the embedded LLM said it came from Latin words "which means 'belonging to
the kingdom of God'"; "ephemeral", "a metaphorical concept ... often used in contexts related to
technology"; a synonym for happy, "sad"; the opposite of generous, "generous-free". Princeton's
WordNet 3.0 (Debian's wordnet-base, 28 MB, installed by setup.sh) has 155,000 words with their
meanings, synonyms and opposites, and its files are made to be read one line per question: every
index and the sense counts are sorted, and a meaning is found at its byte offset. So they are read
here by binary search over the mapped files, as WordNet's own library does (`bin_search`): 0.1 ms
a request on average, nothing loaded at start. NLTK's reader was tried first: version 3.10 refuses
a root outside its nltk_data folders, needs a `lexnames` file that Debian leaves out, and asks its
downloaded corpus to map WordNet versions.

The most used part of speech comes first (WordNet counts how often each sense was seen in its tagged
texts); one meaning is said, the most common, with a first example where WordNet has one.
Synonyms are the meaning's other words, then its "see also" and "similar to" words ranked by how
often each was seen in that sense; opposites are WordNet's direct antonyms, and where a word has
none, the LLM answers. A word WordNet lacks is said back ("I don't know the word blorp"): it is
most often a misheard one, and the user hears what was heard.

Asked who Isaac Newton was, the LLM said "Alright, I'm glad you're happy with your new adventure";
Mozart, "an Italian musician". WordNet knows 3,815 people by name (instances in its noun.person file), with
their dates: "Isaac Newton (1642 to 1727) was an English mathematician and physicist; ...". Where
several share the name said ("who was Gandhi"), their whole names are said to ask by; where it knows
nobody so called (it is from 2006: "who is Obama"), the LLM answers.

What a thing is ("what is a platypus", "what are black holes", "what is the Eiffel Tower") is its
noun's first meaning: "A platypus is small densely furred aquatic monotreme of Australia ...". Said
without "a" ("what is photosynthesis") only a noun of one meaning is answered: "what is love" and
"what is time" have several, WordNet's first is not the one asked about ("an instance or single
occasion for some event"), and they go to the LLM; after "the" only a proper name ("what is the
weather" is `limits.py`'s). A thing WordNet does not know goes to the LLM.

    dictionary.answer("what does ephemeral mean")  # 'Ephemeral means lasting a very short time, as in ...'
    dictionary.answer("another word for big")      # "Another word for big is large; or vast, or enormous."
    dictionary.answer("the opposite of generous")  # "The opposite of generous is stingy."
    dictionary.answer("who was napoleon")          # "Napoleon I (1769 to 1821) was a French general ..."
    dictionary.answer("what is an atom")           # "An atom is the smallest component of an element ..."
"""

from __future__ import annotations

import functools
import mmap
import os
import re
from dataclasses import dataclass
from pathlib import Path

from assistant import phrases
from assistant.asr.text import normalize
from assistant.phrases import listed

DEFAULT_DIR = Path("/usr/share/wordnet")  # Debian's wordnet-base; $WNSEARCHDIR (WordNet's own) overrides it
MISSING = "I can't look words up: WordNet isn't installed (Debian: apt-get install wordnet-base)."
MAX_WORDS = 3  # "black hole", "hot under the collar": a name of a few words, not a sentence
MAX_SYNONYMS = 3
MAX_PEOPLE = 3  # "who was Ford": six in WordNet, three names said
MAX_ABOUT_CHARS = 160  # a person's description, cut at a clause: about ten seconds said
_PEOPLE = 18  # WordNet's lexicographer file noun.person (lexnames(5WN))
_QUANTITY = 23  # noun.quantity: "ninety", said bare, is a misheard word or a sum, not a thing asked about
_TITLES = {"Sir", "Saint", "St.", "King", "Queen", "President", "Madame", "Pope", "Lord", "Lady", "Emperor"}
_FILES = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
_SENSE_KEY_TYPE = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}  # WordNet's ss_type numbers in a sense key
# Words that name nothing to look up: "what does that mean", "what does he mean" (WordNet has "He", helium).
_NOT_A_WORD = set(
    "it that this these those he she they them him her his hers its their theirs we us you your yours"
    " i me my mine our ours what which who all everything something anything nothing".split()
)
_WORD = rf"(?P<word>[a-z']+(?: [a-z']+){{0,{MAX_WORDS - 1}}})"
_THE_WORD = r"(?:the (?:word|term|phrase|expression|name) )?"
# what is asked: a meaning ("meaning", "define", "verb"), an abbreviation's words ("stands"),
# "synonyms", the "opposite", or who someone was ("who")
_PATTERNS = {
    "meaning": rf"(?:what does|what do) {_THE_WORD}{_WORD} mean",
    "verb": r"what does it mean to (?P<word>[a-z']+)",
    # "look up" alone is a search ("look up the weather"); "the meaning of life" is the LLM's
    "define": r"(?:what is meant by|(?:what's|what is|tell me|give me) the (?:meaning|definition) of|define"
    rf"|definition of|meaning of|look up the word) {_THE_WORD}(?!life$){_WORD}",
    "stands": rf"(?:what does {_WORD} stand for|(?:what's|what is) (?P<short>[a-z' ]+) short for)",
    "synonyms": rf"(?:(?:what's|what is|what are|tell me|give me|say)? ?(?:a|another|some other|other) "
    rf"(?:word|words|synonym|synonyms) for|(?:a )?synonyms? (?:for|of)|(?:what's|what is) another way to say)"
    rf" {_THE_WORD}{_WORD}",
    "opposite": rf"(?:(?:what's|what is|tell me|give me|say)? ?(?:the|an|a) )?(?:opposite|antonym) (?:of|for)"
    rf" {_THE_WORD}{_WORD}",
    "who": rf"(?:who (?:was|is|were)|who's) {_WORD}",
    # "what is a platypus", "what's an atom", "what are black holes": a thing's first meaning;
    # without "a" ("what is photosynthesis") only a noun of one meaning: "what is love" is the LLM's
    "thing": rf"(?:what's|what is|whats) (?P<article>a|an) {_WORD}",
    "things": rf"(?:what are|what're) {_WORD}",
    "named": rf"(?:what's|what is|whats) the {_WORD}",  # a proper name only: "the Eiffel Tower"
    "bare": rf"(?:what's|what is|whats) (?!\w+ing$){_WORD}",  # not "what is happening"
}
_REQUESTS = phrases.requests(_PATTERNS, tail=r"(?: please)?")


def answer(text: str, root: Path | None = None) -> str | None:
    """A word's meaning, synonyms, opposite or expansion, or who someone was, as asked; None for any
    other request (or, where WordNet does not know the opposite or the person, for the LLM to try)."""
    kind, m = phrases.first_match(_REQUESTS, normalize(text))
    if kind is None:
        return None
    said = m["word"] or m["short"]
    if kind == "stands" and re.fullmatch(r"[a-z]( [a-z])+", said):
        said = said.replace(" ", "")  # "f b i", as the recognizer writes letters said one by one
    if said.split()[0] in _NOT_A_WORD:
        return None  # "what does that mean": about the conversation, the LLM's
    wordnet = WordNet.at(root or wordnet_dir())
    if kind in ("thing", "things", "named", "bare"):  # none known: the LLM's ("what is a good name")
        return _thing(wordnet, said, kind, m["article"] if kind == "thing" else None) if wordnet else None
    if kind == "who":  # the LLM's where WordNet has no such person ("who is alex"), or no WordNet
        return _person(wordnet, said) if wordnet is not None else None
    if wordnet is None:
        return MISSING
    entries = wordnet.entries(said, pos="v" if kind == "verb" else None)
    if not entries and kind == "stands":
        return f"I don't know what {said.upper()} stands for."
    if not entries:
        return None if kind == "verb" else f"I don't know the word {said}."  # "what does it mean to be happy"
    if kind in ("meaning", "verb", "define"):
        return _meaning(entries[0].senses[0])
    if kind == "stands":
        return _expansion(said, [sense for entry in entries for sense in entry.senses])
    if kind == "synonyms":
        return _synonyms(wordnet, entries)
    return _opposite(wordnet, [sense for entry in entries for sense in entry.senses])


def wordnet_dir() -> Path:
    return Path(os.environ.get("WNSEARCHDIR") or DEFAULT_DIR)


@dataclass(frozen=True)
class Synset:
    """One meaning: its part of speech ("n", "v", "a", "s" for an adjective satellite, "r"), its
    words with their lexicographer ids, the lexicographer file it came from, its pointers
    (symbol, target offset, target part of speech, source/target word numbers in hex) and gloss."""

    pos: str
    lex_file: int
    words: tuple[tuple[str, int], ...]
    pointers: tuple[tuple[str, int, str, str], ...]
    gloss: str

    def lemmas(self) -> list[str]:
        return [word for word, _ in self.words]


@dataclass(frozen=True)
class Sense:
    """A word (as WordNet spells it, "black_hole") in one of its meanings."""

    word: str
    synset: Synset


@dataclass(frozen=True)
class Entry:
    """A word as one part of speech: how many of its senses WordNet's tagged texts used, its senses."""

    pos: str
    tagged: int
    senses: list[Sense]


class WordNet:
    """WordNet 3.0's database files (wndb(5WN)), read by binary search where they are sorted."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    @functools.cache
    def at(root: Path) -> WordNet | None:
        """The database in `root`, or None where its files are not there."""
        return WordNet(root) if (root / "index.noun").is_file() else None

    def entries(self, said: str, pos: str | None = None) -> list[Entry]:
        """The word's parts of speech, most used first, each with its meanings in WordNet's order
        (most common first). Inflected forms ("geese", "procrastinating") are looked up as their base."""
        found = []
        for part in [pos] if pos else ["n", "v", "a", "r"]:
            for lemma in self._base_forms(said, part):
                if (line := self._line(f"index.{_FILES[part]}", lemma)) is not None:
                    found.append(self._index_entry(lemma, part, line))
                    break
        return sorted(found, key=lambda entry: -entry.tagged)  # stable: noun, verb, adjective, adverb

    def seen(self, sense: Sense) -> tuple[int, int]:
        """(sense number, times seen in WordNet's tagged texts) of a word in this meaning; (0, 0)
        where it was never seen. From cntlist.rev by the sense's key."""
        line = self._line("cntlist.rev", self._sense_key(sense))
        if line is None:
            return 0, 0
        _, number, count = line.split()
        return int(number), int(count)

    def synset(self, pos: str, offset: int) -> Synset:
        data = self._map(f"data.{_FILES[pos]}")
        line = data[offset : data.find(b"\n", offset)].decode()
        fields, _, gloss = line.partition(" | ")
        # offset lex_filenum ss_type w_cnt(hex) [word lex_id(hex)]... p_cnt [symbol offset pos src/target]...
        f = fields.split()
        n_words = int(f[3], 16)
        words = tuple((_plain(f[4 + 2 * i]), int(f[5 + 2 * i], 16)) for i in range(n_words))
        at = 4 + 2 * n_words
        pointers = tuple(
            (f[at + 1 + 4 * i], int(f[at + 2 + 4 * i]), f[at + 3 + 4 * i], f[at + 4 + 4 * i])
            for i in range(int(f[at]))
        )
        return Synset(f[2], int(f[1]), words, pointers, gloss.strip())

    def related(self, synset: Synset, symbols: str, word_number: int = 0) -> list[Synset | Sense]:
        """The meanings a synset points to with these symbols ("&" similar to, "^" see also, from the
        synset or any of its words), or with `word_number` (1-based), the words that word's lexical
        pointers ("!" antonym) name."""
        targets = []
        for symbol, offset, pos, source_target in synset.pointers:
            if symbol not in symbols:
                continue
            source, target = int(source_target[:2], 16), int(source_target[2:], 16)
            if word_number and source != word_number:
                continue
            to = self.synset(pos, offset)
            targets.append(Sense(to.words[target - 1][0], to) if target and word_number else to)
        return targets

    def _index_entry(self, lemma: str, pos: str, line: str) -> Entry:
        # lemma pos synset_cnt p_cnt [ptr_symbol]... sense_cnt tagsense_cnt synset_offset...
        f = line.split()
        n_pointers = int(f[3])
        offsets = [int(offset) for offset in f[6 + n_pointers :]]
        senses = [Sense(lemma, self.synset(pos, offset)) for offset in offsets]
        return Entry(pos, int(f[5 + n_pointers]), senses)

    def _base_forms(self, said: str, pos: str) -> list[str]:
        """The lemma as said, its irregular base ("geese" → "goose", from the .exc lists), then
        WordNet's detachment rules (morph.c): "-ies" → "-y", "-ing" → "-e" or nothing, ..."""
        lemma = said.replace(" ", "_")
        forms = [lemma, lemma.replace("_", "-")] if "_" in lemma else [lemma]
        if (line := self._line(f"{_FILES[pos]}.exc", lemma)) is not None:
            forms += line.split()[1:]
        forms += [lemma[: -len(ending)] + base for ending, base in _DETACH[pos] if lemma.endswith(ending)]
        return forms

    def _sense_key(self, sense: Sense) -> str:
        """lemma%ss_type:lex_filenum:lex_id:head_word:head_id (senseidx(5WN)); a satellite's head is
        the first word of the adjective its "&" pointer names."""
        synset = sense.synset
        lex_id = next(lex_id for word, lex_id in synset.words if word.lower() == sense.word.lower())
        head = ""
        if synset.pos == "s":
            head_synset = self.related(synset, "&")[0]
            head_word, head_id = head_synset.words[0]
            head = f"{head_word.lower()}:{head_id:02d}"
        kind = _SENSE_KEY_TYPE[synset.pos]
        return f"{sense.word.lower()}%{kind}:{synset.lex_file:02d}:{lex_id:02d}:{head or ':'}"

    def _line(self, name: str, key: str) -> str | None:
        """The line of a sorted file that starts with `key` and a space, or None."""
        data, wanted = self._map(name), key.encode() + b" "
        low, high = 0, len(data)
        while low < high:
            middle = (low + high) // 2
            start = data.rfind(b"\n", 0, middle) + 1
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            line = data[start:end]
            if line.startswith(wanted):
                return line.decode()
            if line.startswith(b"  ") or line < wanted:  # the licence at the top sorts before every word
                low = end + 1
            else:
                high = start
        return None

    @functools.cache  # noqa: B019 - one WordNet per folder (`at`), its maps live as long as the process
    def _map(self, name: str) -> mmap.mmap:
        with open(self.root / name, "rb") as file:
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


# WordNet's morph.c detachment rules, per part of speech: "ending>what replaces it".
_DETACH = {
    pos: [tuple(rule.split(">")) for rule in rules.split()]
    for pos, rules in {
        "n": "s> ses>s xes>x zes>z ches>ch shes>sh men>man ies>y",
        "v": "s> ies>y es>e es> ed>e ed> ing>e ing>",
        "a": "er> est> er>e est>e",
        "r": "",
    }.items()
}


def _meaning(sense: Sense) -> str:
    """'Ephemeral means lasting a very short time, as in "the ephemeral joys of childhood".'"""
    definition, example = _gloss_parts(sense)
    word = _cased(sense)  # "DNA", not "Dna"
    pos = sense.synset.pos
    if pos == "n":  # "Melancholy is a feeling ...": "a melancholy" would take it for a thing counted
        said = f"{word[0].upper()}{word[1:]} is {definition}"
    elif pos == "v":
        said = f"To {word} means to {definition}"
    else:
        said = f"{word[0].upper()}{word[1:]} means {definition}"
    return f'{said}, as in "{example}".' if example else f"{said}."


def _thing(wordnet: WordNet, said: str, kind: str, article: str | None) -> str | None:
    """ "A platypus is small densely furred aquatic monotreme of Australia ...": a noun's first meaning,
    for "what is a ..." (said with its article), "what are ..." (the singular, "a" or "an" by its
    first letter), "what is the ..." of a proper name, or "what is ..." of a noun of one meaning
    ("what is photosynthesis"; "what is love" is the LLM's); None for any other."""
    entries = wordnet.entries(said, pos="n")
    if not entries or (kind == "bare" and len(entries[0].senses) > 1):
        return None
    sense = entries[0].senses[0]
    if kind == "bare" and sense.synset.lex_file == _QUANTITY:  # "what's ninety" (heard for "my name")
        return None
    name = _cased(sense)
    proper = name[0].isupper()
    if kind == "named" and not proper:
        return None  # "what is the weather": limits.py's ("the Moon" is a name in WordNet)
    verb = "is"
    if kind == "named" or (proper and kind == "thing"):
        name = f"the {name}"
    elif kind == "things" and _spoken(sense.word) == said:  # "glasses", "hours": WordNet's own plural
        verb = "are"
    elif kind in ("thing", "things"):  # "a platypus", "an atom"; "black holes" as "a black hole"
        name = f"{article or _a_or_an(name)} {name}"
    return f"{name[0].upper()}{name[1:]} {verb} {_definition(sense.synset)}."


def _a_or_an(word: str) -> str:
    """ "a" or "an", by the letter and the usual sound of a few beginnings ("a unicorn", "an hour")."""
    if re.match(r"(?:uni|use|usu|uti|eu|one\b)", word, re.IGNORECASE):
        return "a"
    return "an" if re.match(r"(?:[aeiou]|hour|honest|honou?r|heir)", word, re.IGNORECASE) else "a"


def _cased(sense: Sense) -> str:
    """The word as its meaning's own lemma writes it ("DNA", "Eiffel Tower"), spaces for "_"."""
    lemma = next((w for w in sense.synset.lemmas() if w.lower() == sense.word.lower()), sense.word)
    return _spoken(lemma)


def _definition(synset: Synset) -> str:
    """The gloss before its examples, without a leading note: "(of the elements) as if showing
    violent anger", "(New Testament) disciple of Jesus"."""
    return re.sub(r"^\([^)]*\) ", "", synset.gloss.split('; "')[0]).rstrip(";. ")


def _gloss_parts(sense: Sense) -> tuple[str, str | None]:
    """The definition and the gloss's first example that uses the word: 'lasting a very short time;
    "the ephemeral joys of childhood"; ...'."""
    definition, examples = _definition(sense.synset), sense.synset.gloss.split('; "')[1:]
    examples = [example.replace("--", ", ") for example in examples]  # "Don't run--you'll be out of breath"
    word = _spoken(sense.word).lower()
    stem = word[:-2] if len(word) > 4 else word  # "procrastinating", "procrastinated": the word's start
    uses = [example.strip('"; ') for example in examples if stem in example.lower()]
    return definition, (uses[0] if uses else None)


def _synonyms(wordnet: WordNet, entries: list[Entry]) -> str:
    """Words for the most common meaning of the word's most used part of speech that has any, an
    adjective before a noun used as much ("fast": the adjective's "rapid", not the adverb's none or
    the noun's "fasting"): the meaning's own words first, then those of its "see also" and "similar
    to" meanings that are common in it (their word's first or second sense), most seen first. A word
    built on one already said is left out ("large", then not "larger")."""
    word = entries[0].senses[0].word
    used_first = sorted(entries, key=lambda entry: (-entry.tagged, "avnr".index(entry.pos)))
    found = next((words for entry in used_first if (words := _near(wordnet, entry.senses[0]))), [])
    chosen: list[str] = []
    for lemma in found:
        if not any(lemma.lower().startswith(earlier.lower()) for earlier in [word, *chosen]):
            chosen.append(lemma)
    if not chosen:
        return f"I don't know another word for {_spoken(word)}."
    first, *others = [_spoken(lemma) for lemma in chosen[:MAX_SYNONYMS]]
    also = f"; or {listed(others, 'or')}" if others else ""
    return f"Another word for {_spoken(word)} is {first}{also}."


def _near(wordnet: WordNet, sense: Sense) -> list[str]:
    """The other words of a meaning, then its neighbours' words, most seen in that sense first."""
    own = [lemma for lemma in sense.synset.lemmas() if lemma.lower() != sense.word.lower()]
    nearby = []
    for synset in wordnet.related(sense.synset, "^&"):
        for lemma in synset.lemmas():
            number, count = wordnet.seen(Sense(lemma, synset))
            if 1 <= number <= 2 and lemma.lower() != sense.word.lower():
                nearby.append((-count, lemma))
    return own + [lemma for _, lemma in sorted(nearby)]


def _expansion(said: str, senses: list[Sense]) -> str | None:
    """'NASA stands for National Aeronautics and Space Administration.' from the meanings that have
    the abbreviation among their words: the words whose initials spell it, or where none do and
    WordNet writes it in capitals, the meaning's first word ("DNA": deoxyribonucleic acid). Two at
    most ("ATM": asynchronous transfer mode, or automated teller machine); None where WordNet has
    no expansion ("ASAP", "laser"), for the LLM."""
    found, written = [], said.upper()
    for sense in senses:
        lemmas = sense.synset.lemmas()
        if not (same := [lemma for lemma in lemmas if lemma.lower() == said]):
            continue
        written = same[0] if same[0].isupper() else written
        spelled = [lemma for lemma in lemmas if _initials(lemma) == said]
        if not spelled and same[0].isupper() and lemmas[0] != same[0]:
            spelled = lemmas[:1]
        found += [_spoken(lemma) for lemma in spelled[:1]]
    found = list(dict.fromkeys(found))[:2]
    return f"{written} stands for {', or '.join(found)}." if found else None


def _initials(lemma: str) -> str:
    """First letters of a name of several words, small ones (and, of, the) left out:
    "National_Aeronautics_and_Space_Administration" → "nasa"."""
    words = re.split(r"[_-]", lemma.lower())
    if len(words) < 2:
        return ""
    return "".join(word[0] for word in words if word not in ("and", "of", "the", "for", "a"))


def _opposite(wordnet: WordNet, senses: list[Sense]) -> str | None:
    """WordNet's direct antonyms of the word, from its most common meaning that has one."""
    for sense in senses:
        number = 1 + [lemma.lower() for lemma in sense.synset.lemmas()].index(sense.word.lower())
        opposites = [_spoken(target.word) for target in wordnet.related(sense.synset, "!", number)]
        if opposites:
            return f"The opposite of {_spoken(sense.word)} is {listed(list(dict.fromkeys(opposites)), 'or')}."
    return None  # "ancient": no antonym in WordNet, only its meaning's neighbours: the LLM's


def _person(wordnet: WordNet, said: str) -> str | None:
    """'Isaac Newton (1642 to 1727) was an English mathematician and physicist; ...' for a person
    WordNet knows by that name (an instance in its people's file); where several share it ("who
    was Gandhi"), their whole names, to ask by; None where it knows nobody so called."""
    people = [
        sense.synset
        for entry in wordnet.entries(said, "n")
        for sense in entry.senses
        if sense.synset.lex_file == _PEOPLE and any(pointer[0] == "@i" for pointer in sense.synset.pointers)
    ]
    if len(people) > 1:
        names = list(dict.fromkeys(_whole_name(person, said) for person in people))
        shown = listed(names) if len(names) <= MAX_PEOPLE else ", ".join(names[:MAX_PEOPLE]) + " and others"
        called = f"I know {len(people)} people called {_titled(said)}"
        return f"{called}: {shown}. Ask me about one by the whole name."
    if not people:
        return None
    definition = _definition(people[0])
    dates = re.search(r" \(([^()]*\d[^()]*)\)$", definition)  # "(1642-1727)", "(born in 1958)"
    if dates:
        definition = definition[: dates.start()]
    lived = re.sub(r"(\d)-(\d)", r"\1 to \2", dates[1]) if dates else ""
    past = lived and not lived.startswith("born")  # "(born in 1958)", or no dates: "Santa Claus is ..."
    clauses = definition.split("; ")
    while len(clauses) > 1 and len("; ".join(clauses)) > MAX_ABOUT_CHARS:
        clauses.pop()  # Einstein's has three: the first ones say who he was
    named = _whole_name(people[0], said) + (f" ({lived})" if lived else "")
    return f"{named} {'was' if past else 'is'} {_article('; '.join(clauses))}."


def _whole_name(person: Synset, said: str) -> str:
    """The name as said where it is one of the person's ("marie curie"), else the first of several
    words that is not a title ("Isaac Newton", not "Sir Isaac Newton"; "Ludwig van Beethoven")."""
    names = person.lemmas()
    if as_said := [name for name in names if name.lower() == said.replace(" ", "_") and "_" in name]:
        return _spoken(as_said[0])
    whole = [
        name for name in names if "_" in name and name[0].isupper() and name.split("_")[0] not in _TITLES
    ]
    return _spoken((whole or names)[0])


def _article(description: str) -> str:
    """A description with its article: "an English mathematician", "the 16th President", "the
    youngest son"; "the mother of Jesus" as it is."""
    first = description.split()[0]
    if first in ("a", "an", "the", "one") or first.endswith("'s"):
        return description
    if re.fullmatch(r"\d+(?:st|nd|rd|th)|\w+est|first|last|only", first):
        return f"the {description}"
    vowel = first[0].lower() in "aeiou" and not re.match(r"(?i)uni|eu|use|one", first)
    return f"{'an' if vowel else 'a'} {description}"


def _titled(said: str) -> str:
    return " ".join(word.capitalize() for word in said.split())


def _plain(word: str) -> str:
    """A data file's word without its adjective position marker: "laughing(a)" → "laughing"."""
    return re.sub(r"\([a-z]+\)$", "", word)


def _spoken(word: str) -> str:
    return word.replace("_", " ")
