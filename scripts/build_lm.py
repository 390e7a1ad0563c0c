"""Build the recognizer's word language model: models/asr/lm.bin (KenLM) and lm_words.txt (its lexicon).

Text: the *training* sentences of the dataset (`sentences.json` from make_dataset.py), spoken form,
one per line. The dev and test sentences are left out (dev tunes the decoder's weights, test
measures it), and so is every reference of the real-speech sets in eval_asr.py.

KenLM's `lmplz` and `build_binary` are not on PyPI (its Python module only queries). Build them once
from the same source release:

    apt-get install cmake libboost-program-options-dev libboost-system-dev libboost-thread-dev \\
        libboost-test-dev zlib1g-dev
    pip download kenlm==0.3.0 --no-deps --no-binary kenlm --no-build-isolation -d /tmp/kenlm && \\
        cd /tmp/kenlm && \\
        tar xzf kenlm-0.3.0.tar.gz && cmake -S kenlm-0.3.0 -B build && make -C build -j2 lmplz build_binary

    python scripts/build_lm.py --data /work/data/asr --kenlm-bin /tmp/kenlm/build/bin [--wordnet]

`--wordnet` adds every one-word lemma of WordNet (Debian `wordnet-base`, with its irregular forms)
that the sentences never used ("derrick", "keypad") to the lexicon, and to the model's unigrams,
sharing the probability of an unseen word (the share of words seen once in the sentences); every
other probability stays as the sentences gave it.

`--general` mixes in CMU Sphinx's generic US-English trigram model (72,547 words; the
`en-us.lm.bin` of the pocketsphinx wheel, BSD-2-Clause, read by `sphinx_lm.py`): the sentences
alone know Bible verses, fortunes and commands, not how people talk (perplexity 97 on test_synth's
references, 390-1,680 on the real recordings'). The mix is linear, P = (1 - s)·ours + s·CMU, and
static: one back-off model with every n-gram of either, its back-off weights recomputed so that
each context sums to one (`interpolate_arpa`). SRILM, which does this (`ngram -mix-lm`), is not
free software, and KenLM's `interpolate` is log-linear over its own intermediate files only.
`--general-share` s = 0.25 had the lowest perplexity on the dev sentences (grid 0.1-0.4, step 0.05).

`--conversation` mixes in a third part, a 4-gram of everyday chat: the messages of chitchat-dataset
(BYU's open-domain chat, 7,168 conversations, MIT; a dev extra), spoken form, each sentence with a word
outside the lexicon left out ("haha", typos) after the apostrophes typed chat drops are put back
("dont" -> "don't"), and every 20th conversation held out (the text its share was weighed on). Its
sentences may not be any dev or test sentence, nor any sentence of `--leave-out FILE`: every real
set's references, written by `eval_asr.py --write-references`, so that no evaluation text enters the
model by chance ("thank you" is chat and an Asterisk prompt). P = (1 - s - c)·ours + s·CMU + c·chat,
c = `--conversation-share` 0.1: the largest of 0.05 / 0.1 / 0.15 / 0.25 with no more word errors on
dev than without it (MODEL_CARD.md). The shipped model:

    python scripts/eval_asr.py --sets alsa,wz2100,sphinx,clips,asterisk,mfa,demos,drascula \
        --write-references /tmp/refs.txt
    python scripts/build_lm.py --data /work/data/asr --kenlm-bin /tmp/kenlm/build/bin --wordnet --general \
        --conversation --leave-out /tmp/refs.txt
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_asr import alsa_set, wz2100_set  # noqa: E402 - sibling script
from sphinx_lm import read_trie, write_arpa  # noqa: E402 - sibling script

from assistant.asr.lm_decoder import words_path_for  # noqa: E402
from assistant.asr.text import BLANK, VOCAB, normalize  # noqa: E402

LETTERS = set(VOCAB) - {BLANK, " "}  # what the recognizer spells: a-z and the apostrophe

OUT_DIR = Path("models/asr")
WORDNET = Path("/usr/share/wordnet")
SENTENCE_MARKS = {"<s>", "</s>", "<unk>"}
CONVERSATION_HELD_OUT = 20  # every 20th chat conversation is held out of the model
CONVERSATION_SHARE = 0.1  # chosen on dev word errors (MODEL_CARD.md, forty-first session)


def spelt(word: str) -> bool:
    """Whether the recognizer can spell `word`."""
    return bool(word) and set(word) <= LETTERS


def pocketsphinx_lm() -> Path:
    """The generic US-English LM inside the pocketsphinx wheel (a dev dependency)."""
    spec = importlib.util.find_spec("pocketsphinx")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("error: --general needs pocketsphinx (scripts/setup.sh --dev) or --general-lm PATH")
    return Path(spec.submodule_search_locations[0]) / "model" / "en-us" / "en-us.lm.bin"


def held_out_sentences(data: Path) -> set[str]:
    """The dev and test sentences of the dataset."""
    pool = json.loads((data / "sentences.json").read_text())
    return {label for split in ("dev", "test") for items in pool[split].values() for _, _, label in items}


def training_sentences(data: Path) -> list[str]:
    """Spoken-form training sentences, minus any held-out or real-speech reference."""
    pool = json.loads((data / "sentences.json").read_text())
    held = held_out_sentences(data) | {ref for _, _, ref in alsa_set() + wz2100_set()}
    return [label for items in pool["train"].values() for _, _, label in items if label not in held]


def chitchat_json() -> Path:
    """The messages of chitchat-dataset (a dev dependency): BYU's open-domain chat, MIT."""
    spec = importlib.util.find_spec("chitchat_dataset")
    if spec is None or not spec.submodule_search_locations:
        sys.exit(
            "error: --conversation needs chitchat-dataset (scripts/setup.sh --dev) "
            "or --conversation-json FILE"
        )
    return Path(spec.submodule_search_locations[0]) / "dataset.json"


def conversation_sentences(dataset: Path, vocabulary: set[str]) -> tuple[list[str], list[str]]:
    """Spoken-form sentences of chitchat-dataset's messages (`dataset.json`: conversation → "messages",
    a list of turns, each a list of {"text": ...}), as (the model's, held out): every
    CONVERSATION_HELD_OUT-th conversation is held out, the text its share is weighed on. Typed
    chat drops apostrophes ("dont", "youre", "im"): a word outside `vocabulary` gets the apostrophe
    that makes it a word of it. A sentence with any other word outside `vocabulary` ("haha", "idk",
    typos) is left out, so the chat adds no spelling of its own to the lexicon."""

    def repaired(word: str) -> str:
        if word == "im":  # "im" is a CMU word (an abbreviation); in chat it is always "i'm"
            return "i'm"
        if word in vocabulary:
            return word
        for cut in (len(word) - 1, len(word) - 2, len(word) - 3):
            if cut > 0 and (fixed := f"{word[:cut]}'{word[cut:]}") in vocabulary:
                return fixed
        return word

    kept: list[str] = []
    held_out: list[str] = []
    for n, conversation in enumerate(json.loads(dataset.read_text()).values()):
        into = held_out if n % CONVERSATION_HELD_OUT == 0 else kept
        for turn in conversation["messages"]:
            for message in turn:
                for piece in re.split(r"(?<=[.!?])\s+|\n+", message["text"]):
                    words = [repaired(w) for w in normalize(piece).split()]
                    if words and all(w in vocabulary for w in words):
                        into.append(" ".join(words))
    return kept, held_out


def wordnet_words(root: Path = WORDNET) -> list[str]:
    """WordNet's one-word lemmas and irregular forms spelt in the recognizer's letters (no "_", "-",
    digits or dots: "ice_cream" and "a.m." are left out)."""
    if not (root / "index.noun").is_file():
        sys.exit(f"error: no WordNet at {root} (apt-get install wordnet-base)")
    words: set[str] = set()
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (root / f"index.{pos}").read_text(errors="replace").splitlines():
            if not line.startswith(" "):  # the license header is indented
                words.add(line.split(" ", 1)[0])
        for line in (root / f"{pos}.exc").read_text(errors="replace").splitlines():
            words.update(line.split())  # "went go": both are words
    return sorted(filter(spelt, words))


def add_unigrams(arpa: Path, words: list[str], mass: float) -> int:
    """Add `words` missing from the ARPA file's unigrams, sharing probability `mass` evenly, with no
    backoff; returns how many were added. The rest is not renormalized (the beam search compares
    scores and needs no exact distribution)."""
    lines = arpa.read_text().split("\n")
    start = lines.index("\\1-grams:") + 1
    end = lines.index("", start)  # the section ends at a blank line
    known = {line.split("\t")[1] for line in lines[start:end]}
    new = [w for w in words if w not in known]
    logp = math.log10(mass / max(len(new), 1))
    count = next(i for i, line in enumerate(lines) if line.startswith("ngram 1="))
    lines[count] = f"ngram 1={end - start + len(new)}"
    arpa.write_text("\n".join(lines[:end] + [f"{logp:.6f}\t{w}\t0" for w in new] + lines[end:]))
    return len(new)


def arpa_ngrams(path: Path) -> list[list[tuple[str, ...]]]:
    """Every explicit n-gram of an ARPA file, per order (index 0: the unigrams)."""
    orders: list[list[tuple[str, ...]]] = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("\\") and line.endswith("-grams:"):
                orders.append([])
            elif line and orders and not line.startswith("\\"):
                orders[-1].append(tuple(line.split()[1 : 1 + len(orders)]))
    return orders


class Conditional:
    """log10 P(word | history) of an ARPA or KenLM model, through its back-offs; None for a word
    outside its vocabulary (its <unk> is a share for all unknown words, not this word's)."""

    def __init__(self, path: Path) -> None:
        import kenlm  # noqa: PLC0415 - a dev dependency, only this step needs it

        self._kenlm, self.model = kenlm, kenlm.Model(str(path))
        self._states: dict[tuple[str, ...], object] = {}  # history → its KenLM state

    def __call__(self, history: tuple[str, ...], word: str) -> float | None:
        if word not in self.model:
            return None
        return self.model.BaseScore(self._state(history), word, self._kenlm.State())

    def _state(self, history: tuple[str, ...]):
        history = history[max(0, len(history) - self.model.order + 1) :]  # what the model can see
        state = self._states.get(history)
        if state is None:
            state, rest = self._kenlm.State(), history
            if history[:1] == ("<s>",):
                self.model.BeginSentenceWrite(state)
                rest = history[1:]
            else:
                self.model.NullContextWrite(state)
            for word in rest:
                after = self._kenlm.State()
                self.model.BaseScore(state, word, after)
                state = after
            self._states[history] = state
        return state

    def forget(self) -> None:
        self._states.clear()


def interpolate_arpa(paths: list[Path], weights: list[float], out: Path) -> list[str]:
    """Write `out`, one ARPA back-off model of P = Σ weights[i]·paths[i] (the weights sum to 1);
    return its words (the sentence marks left out), sorted.

    Every n-gram of any model is kept, with the mixture's probability (each model backing off
    as it would). A history's back-off weight then takes what its explicit n-grams leave,
    (1 - Σ P(w | h)) / (1 - Σ P(w | h minus its first word)), the second sum in the *mixed*
    model, as SRILM's static mix does. Words outside the recognizer's letters (CMU's "a.",
    "t.v.") are left out."""
    if len(paths) != len(weights) or abs(sum(weights) - 1.0) > 1e-6 or min(weights) < 0:
        raise ValueError(f"mixture weights {weights} for {len(paths)} models: one each, >= 0, summing to 1")
    models = [Conditional(p) for p in paths]
    grams = [arpa_ngrams(p) for p in paths]
    n_orders = max(len(g) for g in grams)
    probs: list[dict[tuple[str, ...], float]] = []  # per order: n-gram → log10 P of the mixture
    for k in range(n_orders):
        union: set[tuple[str, ...]] = set()
        for g in grams:
            if k < len(g):
                union.update(n for n in g[k] if all(w in SENTENCE_MARKS or spelt(w) for w in n))
        table = {}
        for ngram in sorted(union):
            history, word = ngram[:-1], ngram[-1]
            p = 0.0
            if word != "<s>":  # a sentence never continues with its start
                for model, weight in zip(models, weights, strict=True):
                    logp = model(history, word)
                    p += 0.0 if logp is None else weight * 10**logp
            table[ngram] = math.log10(p) if p > 0 else -99.0  # -99: ARPA's "never"
        probs.append(table)
        for model in models:
            model.forget()

    backoffs: dict[tuple[str, ...], float] = {}

    def mixed(ngram: tuple[str, ...]) -> float:
        """log10 P of the written model, through the back-off weights found so far."""
        p = probs[len(ngram) - 1].get(ngram)
        if p is not None:
            return p
        if len(ngram) == 1:
            return -99.0
        return backoffs.get(ngram[:-1], 0.0) + mixed(ngram[1:])

    for k in range(1, n_orders):  # histories of k words, from the (k + 1)-grams
        followers: dict[tuple[str, ...], list[str]] = {}
        for ngram in probs[k]:
            followers.setdefault(ngram[:-1], []).append(ngram[-1])
        for history, words in followers.items():
            left = 1.0 - sum(10 ** probs[k][history + (w,)] for w in words)
            shorter = 1.0 - sum(10 ** mixed(history[1:] + (w,)) for w in words)
            backoffs[history] = math.log10(max(left, 1e-9) / max(shorter, 1e-9))

    with open(out, "w") as f:
        f.write("\\data\\\n" + "".join(f"ngram {k}={len(t)}\n" for k, t in enumerate(probs, 1)) + "\n")
        for k, table in enumerate(probs, 1):
            f.write(f"\\{k}-grams:\n")
            for ngram in sorted(table):
                b = backoffs.get(ngram) if k < n_orders else None
                tail = f"\t{b:.6f}\n" if b is not None else "\n"
                f.write(f"{table[ngram]:.6f}\t{' '.join(ngram)}{tail}")
            f.write("\n")
        f.write("\\end\\\n")
    return sorted(w for (w,) in probs[0] if w not in SENTENCE_MARKS)


def lmplz(kenlm_bin: Path, order: int, prune: str, text: Path, arpa: Path, tmp: str) -> None:
    """KenLM's modified Kneser-Ney estimate of `text` (one sentence a line) → `arpa`."""
    with text.open() as source, arpa.open("w") as sink:
        subprocess.run(
            [kenlm_bin / "lmplz", "-o", str(order), "--prune", *prune.split(),
             "-S", "20%", "-T", tmp, "--discount_fallback"],
            stdin=source, stdout=sink, check=True,
        )  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("/work/data/asr"))
    p.add_argument("--kenlm-bin", type=Path, required=True, help="folder with lmplz and build_binary")
    p.add_argument("--order", type=int, default=4)
    p.add_argument(
        "--prune", default="0 0 1", help="lmplz --prune: n-grams seen this often or less are dropped"
    )
    p.add_argument("--out", type=Path, default=OUT_DIR)
    p.add_argument("--wordnet", action="store_true", help="add WordNet's one-word lemmas (see above)")
    p.add_argument("--general", action="store_true", help="mix in CMU's generic English LM (see above)")
    p.add_argument("--general-lm", type=Path, help="its sphinx trie file; default: pocketsphinx's en-us")
    p.add_argument("--general-share", type=float, default=0.25, help="its weight in the mix")
    p.add_argument("--conversation", action="store_true", help="mix in a 4-gram of everyday chat (see above)")
    p.add_argument(
        "--conversation-json", type=Path, help="chitchat-dataset's dataset.json; default: the installed one's"
    )
    p.add_argument(
        "--conversation-share", type=float, default=CONVERSATION_SHARE, help="its weight in the mix"
    )
    p.add_argument(
        "--leave-out",
        type=Path,
        metavar="FILE",
        help="sentences (one per line) the conversation part may not hold: every evaluation set's "
        "references (eval_asr.py --write-references)",
    )
    args = p.parse_args()

    sentences = training_sentences(args.data)
    counts = Counter(w for s in sentences for w in s.split())
    words = sorted(counts)
    dictionary = wordnet_words() if args.wordnet else []
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        text, arpa = Path(tmp) / "text.txt", Path(tmp) / "lm.arpa"
        text.write_text("\n".join(sentences) + "\n")
        lmplz(args.kenlm_bin, args.order, args.prune, text, arpa, tmp)
        if dictionary:
            # Good-Turing: the chance that the next word is one never seen is about the share of
            # words seen once; the dictionary's new words share that.
            unseen = sum(c == 1 for c in counts.values()) / sum(counts.values())
            added = add_unigrams(arpa, dictionary, unseen)
            print(f"{added} WordNet words added to the unigrams, {unseen:.2%} of the probability in all")
            words = sorted({*words, *dictionary})
        parts, shares = [arpa], [1.0]
        if args.general:
            general = Path(tmp) / "general.arpa"
            cmu_words, orders = read_trie(args.general_lm or pocketsphinx_lm())
            write_arpa(cmu_words, orders, general)
            parts.append(general)
            shares.append(args.general_share)
            # the mix's lexicon, to which the conversation's sentences must keep
            words = sorted({*words, *filter(spelt, cmu_words)} - SENTENCE_MARKS)
        if args.conversation:
            held = held_out_sentences(args.data)
            if args.leave_out:
                held |= set(args.leave_out.read_text().splitlines())
            chat, _ = conversation_sentences(args.conversation_json or chitchat_json(), set(words))
            chat = [s for s in chat if s not in held]
            chat_text, chat_arpa = Path(tmp) / "chat.txt", Path(tmp) / "chat.arpa"
            chat_text.write_text("\n".join(chat) + "\n")
            lmplz(args.kenlm_bin, args.order, args.prune, chat_text, chat_arpa, tmp)
            parts.append(chat_arpa)
            shares.append(args.conversation_share)
            print(f"{len(chat)} conversation sentences, {sum(len(s.split()) for s in chat)} words")
        if len(parts) > 1:
            shares[0] = 1.0 - sum(shares[1:])
            mixed = Path(tmp) / "mixed.arpa"
            words = interpolate_arpa(parts, shares, mixed)
            arpa = mixed
            print(f"mixed, shares {shares} (ours first): {len(words)} words")
        # trie + 8-bit quantized probabilities, loaded by mmap: 5 MB alone, 29 MB with --general,
        # 31 MB with --conversation too.
        subprocess.run(
            [args.kenlm_bin / "build_binary", "-q", "8", "-b", "8", "trie", arpa, args.out / "lm.bin"],
            check=True,
        )
    words_path_for(args.out / "lm.bin").write_text("\n".join(words) + "\n")
    size = (args.out / "lm.bin").stat().st_size / 1e6
    n_words = sum(counts.values())
    print(f"{len(sentences)} sentences, {n_words} words, {len(words)} distinct;", end=" ")
    print(f"{args.order}-gram → {args.out / 'lm.bin'} ({size:.1f} MB)")


if __name__ == "__main__":
    main()
