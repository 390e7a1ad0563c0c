"""What the LLM's rescoring of finals (`[asr] rescore_weight`) costs per final, on real recordings.

    python scripts/bench_rescore.py                       # eval_asr's real wideband pool, 1 and 2 threads
    python scripts/bench_rescore.py --sets dev --threads 1 --data /work/data/asr

Each utterance's final log-probs come from the shipped two-pass final (the whole utterance at full
context, as `finalize` reads it); the beam search's best sentences then go to `LlmRescorer.pick`,
timed alone. How many finals need the LLM at all (more than one sentence within the margin), how
many tokens it prefills, and the milliseconds it adds, per thread count: the rescorer's cost on the
way to the answer, measured on the kind of audio it will hear.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_asr  # noqa: E402

from assistant.asr.lm_decoder import LexiconDecoder  # noqa: E402
from assistant.asr.model import load_checkpoint  # noqa: E402
from assistant.asr.recognizer import FLUSH_MS, log_probs_batch  # noqa: E402
from assistant.asr.rescorer import DEV_TUNED_WEIGHT, LlmRescorer  # noqa: E402
from assistant.config import DEFAULT_ASR_CHECKPOINT, DEFAULT_ASR_LM, AsrConfig  # noqa: E402

WEIGHT = DEV_TUNED_WEIGHT  # config.toml's default, 0, is off


def final_log_probs(model, sets: list[str], data: Path) -> list[np.ndarray]:
    """The (T, V) log-probs the two-pass final decodes: each utterance and its flush silence."""
    loaders = eval_asr.set_loaders(data, 400)
    flush = np.zeros(FLUSH_MS * 16, np.float32)
    waves = [np.r_[wave, flush] for name in sets for _, wave, _ in loaders[name]()]
    return [lp for i in range(0, len(waves), 8) for lp in log_probs_batch(model, waves[i : i + 8], None)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sets",
        default=",".join(eval_asr.POOLS["real wideband"]),
        help="comma-separated sets of eval_asr.py (default: its real wideband pool)",
    )
    parser.add_argument(
        "--data", type=Path, default=Path("/work/data/asr"), help="make_dataset.py output (dev)"
    )
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    torch.set_num_threads(2)
    model = load_checkpoint(DEFAULT_ASR_CHECKPOINT)
    finals = final_log_probs(model, args.sets.split(","), args.data)
    # The shipped beam search: it divides out the checkpoint's CTC prior ([asr] prior_weight).
    decoder = LexiconDecoder(DEFAULT_ASR_LM).build(log_prior=model.log_prior.numpy())
    asr = AsrConfig()
    candidates = [decoder.nbest(lp, asr.rescore_nbest) for lp in finals]
    print(
        f"{len(finals)} finals of {args.sets}; weight {WEIGHT}, nbest {asr.rescore_nbest}, margin "
        f"{asr.rescore_margin}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n"
    )
    print(
        "| threads | finals needing the LLM | tokens prefilled, mean of those "
        "| ms added: median | p90 | max | mean over all finals |"
    )
    print("|---|---|---|---|---|---|---|")
    for threads in args.threads:
        rescorer = LlmRescorer(asr.rescore_model_path, WEIGHT, asr.rescore_nbest, asr.rescore_margin, threads)
        rescorer.build()
        times, tokens = [], []
        for cands in candidates:
            start = time.perf_counter()
            rescorer.pick(cands)
            elapsed = 1000 * (time.perf_counter() - start)
            if rescorer.last_prefilled:  # the LLM was asked
                times.append(elapsed)
                tokens.append(rescorer.last_prefilled)
        rescorer.close()
        cells = [
            threads,
            f"{len(times)} of {len(finals)}",
            f"{np.mean(tokens):.1f}",
            *(f"{f(times):.0f}" for f in (np.median, lambda t: np.percentile(t, 90), np.max)),
            f"{sum(times) / len(finals):.0f}",
        ]
        print("| " + " | ".join(map(str, cells)) + " |")


if __name__ == "__main__":
    main()
