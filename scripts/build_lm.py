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
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_asr import alsa_set, wz2100_set  # noqa: E402 - sibling script

from assistant.asr.lm_decoder import words_path_for  # noqa: E402
from assistant.asr.text import BLANK, VOCAB  # noqa: E402

LETTERS = set(VOCAB) - {BLANK, " "}  # what the recognizer spells: a-z and the apostrophe

OUT_DIR = Path("models/asr")
WORDNET = Path("/usr/share/wordnet")


def training_sentences(data: Path) -> list[str]:
    """Spoken-form training sentences, minus any held-out or real-speech reference."""
    pool = json.loads((data / "sentences.json").read_text())
    held = {label for split in ("dev", "test") for items in pool[split].values() for _, _, label in items}
    held |= {ref for _, _, ref in alsa_set() + wz2100_set()}
    return [label for items in pool["train"].values() for _, _, label in items if label not in held]


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
    return sorted(w for w in words if w and all(c in LETTERS for c in w))


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
    args = p.parse_args()

    sentences = training_sentences(args.data)
    counts = Counter(w for s in sentences for w in s.split())
    words = sorted(counts)
    dictionary = wordnet_words() if args.wordnet else []
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        text, arpa = Path(tmp) / "text.txt", Path(tmp) / "lm.arpa"
        text.write_text("\n".join(sentences) + "\n")
        subprocess.run(
            [args.kenlm_bin / "lmplz", "-o", str(args.order), "--prune", *args.prune.split(),
             "-S", "20%", "-T", tmp, "--discount_fallback"],
            stdin=text.open(), stdout=arpa.open("w"), check=True,
        )  # fmt: skip
        if dictionary:
            # Good-Turing: the chance that the next word is one never seen is about the share of
            # words seen once; the dictionary's new words share that.
            unseen = sum(c == 1 for c in counts.values()) / sum(counts.values())
            added = add_unigrams(arpa, dictionary, unseen)
            print(f"{added} WordNet words added to the unigrams, {unseen:.2%} of the probability in all")
            words = sorted({*words, *dictionary})
        # trie + 8-bit quantized probabilities: a few MB, loaded by mmap.
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
