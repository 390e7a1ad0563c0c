"""Choose the language model's weights on the dev set (training voices, held-out sentences).

The dev utterances, with the 200 ms flush the live recognizer feeds, go once through the network:
at full context, as the shipped recognizer's final pass reads them (`full_context_final`), or with
`--final streaming` in streaming chunks; then every (lm_weight, word_score, prior_weight) point of the
grid decodes the same log-probs. Prints a table of dev WER; put the best point in config.toml's
[asr]. Never tune on test_synth or the real-speech sets: they measure.

The CTC prior the beam search divides out (`prior_weight`, see assistant/asr/lm_decoder.py) is
estimated here too, from the same log-probs: each symbol's posterior averaged over every dev frame.
`--write-prior` stores it in the checkpoint (`ConformerCTC.log_prior`); do that for every new
checkpoint before evaluating it, or its LM rows divide out no prior.

    python scripts/tune_lm.py --checkpoint models/asr/conformer_ctc.pt --n 400
    python scripts/tune_lm.py --checkpoint runs/x/candidate.pt --write-prior --prior-weights 0.6 \
        --lm-weights 1.8 --word-scores 0
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from eval_asr import read_audio  # noqa: E402 - sibling script

from assistant.asr.lm_decoder import DecoderWeights, LexiconDecoder  # noqa: E402
from assistant.asr.model import checkpoint_meta, load_checkpoint, save_checkpoint  # noqa: E402
from assistant.asr.recognizer import FLUSH_MS, SAMPLE_RATE, greedy_text, log_probs_batch  # noqa: E402
from assistant.asr.text import VOCAB  # noqa: E402


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checkpoint", type=Path, default=Path("models/asr/conformer_ctc.pt"))
    p.add_argument("--data", type=Path, default=Path("/work/data/asr"))
    p.add_argument("--lm", type=Path, default=Path("models/asr/lm.bin"))
    p.add_argument("--n", type=int, default=400, help="dev utterances")
    p.add_argument("--chunk-ms", type=int, default=320)
    p.add_argument("--left-chunks", type=int, default=4)
    p.add_argument(
        "--final", choices=("full", "streaming"), default="full", help="the log-probs the final is read from"
    )
    p.add_argument("--lm-weights", type=floats, default=floats("0.8,1.2,1.6,2.0,2.4"))
    p.add_argument("--word-scores", type=floats, default=floats("-1,0,1"))
    p.add_argument("--prior-weights", type=floats, default=floats("0,0.4,0.6,0.8"))
    p.add_argument(
        "--write-prior", action="store_true", help="store the dev estimate of the CTC prior in --checkpoint"
    )
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()

    import jiwer  # noqa: PLC0415
    import torch  # noqa: PLC0415

    torch.set_num_threads(args.threads)
    rows = [json.loads(line) for line in (args.data / "dev" / "manifest.jsonl").open()][: args.n]
    refs = [r["text"] for r in rows]
    model = load_checkpoint(args.checkpoint)
    flush = np.zeros(FLUSH_MS * SAMPLE_RATE // 1000, np.float32)
    log_probs: list[np.ndarray] = []
    chunk_ms = args.chunk_ms if args.final == "streaming" else None  # None: full context
    for i in range(0, len(rows), 8):
        waves = [np.concatenate((read_audio(r["audio"]), flush)) for r in rows[i : i + 8]]
        log_probs += log_probs_batch(model, waves, chunk_ms, args.left_chunks)

    log_prior = estimate_log_prior(log_probs)
    shown = (f"{symbol!r} {x:.2f}" for symbol, x in zip(VOCAB, log_prior, strict=True))
    print("log CTC prior:", ", ".join(shown))
    if args.write_prior:
        model.log_prior.copy_(torch.from_numpy(log_prior))
        source = f"dev, {len(rows)} utterances, {args.final} final"
        save_checkpoint(model, args.checkpoint, **{**checkpoint_meta(args.checkpoint), "log_prior": source})
        print(f"wrote the prior into {args.checkpoint}")

    def wer(hyps: list[str]) -> float:
        return jiwer.wer(refs, [h or "<empty>" for h in hyps])

    greedy = wer([greedy_text(lp) for lp in log_probs])
    print(f"dev: {len(refs)} utterances, {args.final} final; greedy CTC WER {greedy:.4f}\n")
    print("| lm_weight | word_score | prior_weight | dev WER | ms per utterance |")
    print("|---:|---:|---:|---:|---:|")
    best = (1.0, 0.0, 0.0, 0.0)
    for lm_weight, word_score, prior_weight in itertools.product(
        args.lm_weights, args.word_scores, args.prior_weights
    ):
        weights = DecoderWeights(lm_weight=lm_weight, word_score=word_score, prior_weight=prior_weight)
        decoder = LexiconDecoder(args.lm, weights).build(log_prior=log_prior)
        t0 = time.perf_counter()
        score = wer([decoder.decode(lp) for lp in log_probs])
        ms = 1000 * (time.perf_counter() - t0) / len(log_probs)
        print(f"| {lm_weight} | {word_score} | {prior_weight} | {score:.4f} | {ms:.1f} |")
        best = min(best, (score, lm_weight, word_score, prior_weight))
    print(
        f"\nbest: lm_weight = {best[1]}, word_score = {best[2]}, prior_weight = {best[3]} "
        f"(dev WER {best[0]:.4f})"
    )


def estimate_log_prior(log_probs: list[np.ndarray]) -> np.ndarray:
    """ln of each symbol's posterior averaged over every frame of every utterance (V,)."""
    frames = np.concatenate(log_probs).astype(np.float64)  # (ΣT, V)
    return (logsumexp(frames, axis=0) - np.log(len(frames))).astype(np.float32)


if __name__ == "__main__":
    main()
