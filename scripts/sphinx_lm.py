"""Read CMU Sphinx's binary trie language model (the generic US-English `en-us.lm.bin` that ships in
the pocketsphinx wheel) and write it as an ARPA text file, for `build_lm.py --general`.

pocketsphinx's own writers cannot convert that file: the header counts 6 more bigrams than the
trie holds (filler bigrams over-counted when the model was built), so `NGramModel.write(..., 'arpa')`
crashes in the trigram section and Debian's `sphinx_lm_convert` fails an assertion. This reader
takes each order's true count from its parent's end pointer instead. Checked against
pocketsphinx's own `NGramModel.prob` on 7,000 n-grams (explicit ones and backed-off ones): the
largest difference is one unit of its integer log base (4.3e-5 in log10).

Layout (little-endian; pocketsphinx's src/lm/ngram_model_trie.c, lm_trie.c, lm_trie_quant.c): a
KenLM-style trie keyed in reverse word order (a unigram is an n-gram's *last* word; its children
at order 2 are the word before), with 16-bit quantized values in log base 1.0001:

    "Trie Language Model", uint8 order, uint32 counts[order]
    int32 quantizer type; per middle order float32 prob_bins[65536], bo_bins[65536];
        float32 longest_prob_bins[65536]
    (counts[0] + 1) × {float32 prob, float32 backoff, uint32 first child}
    per order k ≥ 2, bit-packed: word id | [backoff code | prob code | first child] (middle orders)
        or word id | prob code (the highest order); then 8 bytes of padding
    int32 n, n bytes of NUL-terminated words

    python scripts/sphinx_lm.py IN.lm.bin OUT.arpa
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"Trie Language Model"
CODE_BITS = 16  # each quantized probability or backoff is an index into a 65,536-entry table
LOG10_PER_UNIT = math.log10(1.0001)  # sphinx's logmath base


class SphinxLmError(ValueError):
    """Not a trie LM of the layout above, or a damaged one."""


@dataclass
class Order:
    """One order's n-grams: `words` (n, k) word ids in natural order, log10 `prob` (n,), and log10
    `backoff` (n,) for every order but the highest."""

    words: np.ndarray
    prob: np.ndarray
    backoff: np.ndarray | None


def _bits(mem: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """`width` (≤ 25) bits at each bit offset of the byte array `mem` → uint32 values."""
    byte = offsets >> 3
    word = mem[byte].astype(np.uint32)
    for shift in (8, 16, 24):
        word |= mem[byte + shift // 8].astype(np.uint32) << shift
    return (word >> (offsets & 7).astype(np.uint32)) & np.uint32((1 << width) - 1)


def read_trie(path: Path) -> tuple[list[str], list[Order]]:
    """The vocabulary and every order's n-grams of a sphinx trie LM."""
    data = np.fromfile(path, dtype=np.uint8)
    buf = data.tobytes()
    if not buf.startswith(MAGIC):
        raise SphinxLmError(f"{path}: not a CMU Sphinx trie language model")
    pos = len(MAGIC)
    n_orders = buf[pos]
    pos += 1
    counts = np.frombuffer(buf, "<u4", n_orders, pos).astype(np.int64)
    pos += 4 * n_orders
    vocab = int(counts[0])
    tables: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}  # order → (prob bins, backoff bins)
    if n_orders > 1:
        pos += 4  # quantizer type
        table = 1 << CODE_BITS
        for k in range(2, n_orders):
            probs = np.frombuffer(buf, "<f4", table, pos).astype(np.float64)
            backoffs = np.frombuffer(buf, "<f4", table, pos + 4 * table).astype(np.float64)
            tables[k] = (probs, backoffs)
            pos += 8 * table
        tables[n_orders] = (np.frombuffer(buf, "<f4", table, pos).astype(np.float64), None)
        pos += 4 * table
    unigrams = np.frombuffer(
        buf, np.dtype([("prob", "<f4"), ("backoff", "<f4"), ("next", "<u4")]), vocab + 1, pos
    )
    pos += 12 * (vocab + 1)
    word_bits = vocab.bit_length()

    orders = [Order(np.arange(vocab)[:, None], unigrams["prob"][:vocab].astype(np.float64) * LOG10_PER_UNIT,
                    unigrams["backoff"][:vocab].astype(np.float64) * LOG10_PER_UNIT)]  # fmt: skip
    first_child = unigrams["next"].astype(np.int64)  # (parents + 1,): child ranges of each parent
    reversed_words = np.arange(vocab)[:, None]  # (parents, k - 1): trie order, last word first
    for k in range(2, n_orders + 1):
        middle = k < n_orders
        next_bits = int(counts[k]).bit_length() if middle else 0
        entry_bits = word_bits + (2 * CODE_BITS + next_bits if middle else CODE_BITS)
        size = ((1 + int(counts[k - 1])) * entry_bits + 7) // 8 + 8
        mem = data[pos : pos + size]
        pos += size
        n = int(first_child[-1])  # the true count: the header's may be larger (see above)
        children = np.diff(first_child)
        if mem.size != size or n > counts[k - 1] or (children < 0).any():
            raise SphinxLmError(f"{path}: damaged trie at order {k}")
        offsets = np.arange(n + 1, dtype=np.int64) * entry_bits  # (n + 1,)
        word = _bits(mem, offsets[:n], word_bits).astype(np.int64)
        if (word >= vocab).any():
            raise SphinxLmError(f"{path}: word id out of range at order {k}")
        reversed_words = np.concatenate(
            (reversed_words[np.repeat(np.arange(len(children)), children)], word[:, None]), axis=1
        )  # (n, k)
        probs, backoffs = tables[k]
        if middle:
            backoff = backoffs[_bits(mem, offsets[:n] + word_bits, CODE_BITS)] * LOG10_PER_UNIT
            prob = probs[_bits(mem, offsets[:n] + word_bits + CODE_BITS, CODE_BITS)] * LOG10_PER_UNIT
            first_child = _bits(mem, offsets + word_bits + 2 * CODE_BITS, next_bits).astype(np.int64)
        else:
            backoff = None
            prob = probs[_bits(mem, offsets[:n] + word_bits, CODE_BITS)] * LOG10_PER_UNIT
        orders.append(Order(reversed_words[:, ::-1], prob, backoff))
    size = int(np.frombuffer(buf, "<i4", 1, pos)[0])
    words = buf[pos + 4 : pos + 4 + size].decode("utf-8", "replace").split("\0")[:vocab]
    if len(words) != vocab:
        raise SphinxLmError(f"{path}: {len(words)} words for {vocab} unigrams")
    return words, orders


def write_arpa(words: list[str], orders: list[Order], path: Path) -> None:
    """ARPA text, each order sorted by its words."""
    vocab = np.array(words, dtype=object)
    with open(path, "w") as f:
        f.write("\\data\\\n" + "".join(f"ngram {k}={len(o.prob)}\n" for k, o in enumerate(orders, 1)))
        for k, o in enumerate(orders, 1):
            f.write(f"\n\\{k}-grams:\n")
            texts = [" ".join(t) for t in zip(*(vocab[o.words[:, j]] for j in range(k)), strict=True)]
            rank = sorted(range(len(texts)), key=texts.__getitem__)
            if o.backoff is None:
                f.writelines(f"{o.prob[i]:.6f}\t{texts[i]}\n" for i in rank)
            else:
                f.writelines(f"{o.prob[i]:.6f}\t{texts[i]}\t{o.backoff[i]:.6f}\n" for i in rank)
        f.write("\n\\end\\\n")


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        words, orders = read_trie(Path(sys.argv[1]))
    except (OSError, SphinxLmError) as e:
        sys.exit(f"error: {e}")
    write_arpa(words, orders, Path(sys.argv[2]))
    print(", ".join(f"{len(o.prob)} {k}-grams" for k, o in enumerate(orders, 1)))


if __name__ == "__main__":
    main()
