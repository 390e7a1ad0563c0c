"""How well a wake phrase (`[wake] phrases`, `assistant/wake.py`) is heard by our recognizer.

Held-out synthetic voices (`make_dataset.py`'s: never trained on) say requests after each phrase,
the same requests without one, and sentences that begin like a phrase; each is recognized as the
listener's final is (full context, the language model's beam search) and put through `WakeGate`
as the listener does. Per phrase:

- found: requests said after the phrase that were taken as requests, and the word error rate of
  what they asked once the phrase was taken off (against the request);
- false: requests said without it, and the look-alike sentences, taken as requests all the same.

Last, "stop listening" (`wake.is_sleep`): how often the sentences that put it to sleep are heard
as such, and how often the requests and look-alikes are (they must not be). "wake up", which wakes
it, is a phrase as the others: `--phrases "wake up"`.

    python scripts/bench_wake.py                       # 12 voices
    python scripts/bench_wake.py --phrases computer "hey jarvis" --voices 4
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import jiwer
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from make_dataset import Item, split_voices, synth_espeak, synth_flite  # noqa: E402 (beside this script)

from assistant.asr.features import SAMPLE_RATE  # noqa: E402
from assistant.asr.recognizer import StreamingRecognizer  # noqa: E402
from assistant.asr.text import normalize  # noqa: E402
from assistant.config import AsrConfig, VadConfig, WakeConfig  # noqa: E402
from assistant.wake import WakeGate, is_sleep  # noqa: E402

PHRASES = ["computer", "hey assistant", "jarvis", "hey jarvis"]
REQUESTS = [
    "what time is it",
    "set a timer for ten minutes",
    "tell me a joke",
    "what is twelve times seven",
    "how do you spell rhythm",
    "turn on the kitchen lights",
    "what day is it tomorrow",
    "say that again",
    "how far away is the moon",
    "remind me to call my mom in an hour",
]
# said without a phrase, beginning like one: a wake phrase must not hear these
LOOK_ALIKES = [
    "the computer is slow today",
    "come here for a second",
    "hey guess what happened",
    "a system update is ready",
    "jars of jam are on the shelf",
    "assist me with the boxes",
]
SLEEP = ["stop listening", "go to sleep", "please stop listening"]  # put it to sleep


def voices(n: int, seed: int) -> list[str]:
    """`n` held-out voices: flite's awb and espeak-ng's held-out accents and variants."""
    held = split_voices(heldout=True, engines=("espeak", "flite"))
    espeak = random.Random(seed).sample(held["espeak"], max(0, n - len(held.get("flite", []))))
    return held.get("flite", [])[:n] + espeak


_PREROLL = np.zeros(VadConfig().preroll_ms * SAMPLE_RATE // 1000, np.float32)


def synthesize(voice: str, text: str, tmp: str) -> np.ndarray:
    """`text` said by `voice`, after `[vad] preroll_ms` of silence: the listener hands the recognizer
    an utterance with that much from before its onset, and espeak-ng and flite start speaking at
    once. Without it the recognizer lost the first word far more often ("much time is left")."""
    item = Item(key="x", voice=voice, spoken=text, label=text, rate=1.0, pitch=0.5)
    samples = synth_flite(item, tmp) if voice.startswith("flite:") else synth_espeak(item, tmp)
    return np.concatenate((_PREROLL, samples))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phrases", nargs="+", default=PHRASES)
    ap.add_argument("--voices", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    recognizer = StreamingRecognizer.from_settings(AsrConfig()).build()
    chosen = voices(args.voices, args.seed)
    heard: dict[str, str] = {}  # spoken text + voice → the recognizer's final

    def hear(voice: str, text: str, tmp: str) -> str:
        if (voice, text) not in heard:
            heard[voice, text] = recognizer.transcribe_apart(synthesize(voice, text, tmp))
        return heard[voice, text]

    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for phrase in args.phrases:
            gate = WakeGate(WakeConfig(phrases=[phrase]))
            found, refs, hyps, misses, taken = 0, [], [], [], []
            false_plain = false_alike = 0
            for voice in chosen:
                for request in REQUESTS:
                    asked = gate.strip(hear(voice, f"{phrase}, {request}", tmp))
                    if asked is None:
                        misses.append(heard[voice, f"{phrase}, {request}"])
                    else:
                        found += 1
                        refs.append(request)
                        hyps.append(normalize(asked) or "<nothing>")
                for text in [*REQUESTS, *LOOK_ALIKES]:  # said without the phrase
                    if gate.strip(hear(voice, text, tmp)) is not None:
                        taken.append(heard[voice, text])
                        false_plain += text in REQUESTS
                        false_alike += text not in REQUESTS
            n = len(chosen) * len(REQUESTS)
            wer = jiwer.wer(refs, hyps) if refs else float("nan")
            rows.append((phrase, found, n, wer, false_plain, n, false_alike, len(chosen) * len(LOOK_ALIKES)))
            if misses:
                print(f"{phrase!r} missed, e.g.: " + "; ".join(repr(m) for m in misses[:4]))
            if taken:
                print(f"{phrase!r} taken without it: " + "; ".join(repr(t) for t in taken[:4]))
        asleep = [(text, is_sleep(hear(voice, text, tmp))) for voice in chosen for text in SLEEP]
        others = [(v, t) for v in chosen for t in [*REQUESTS, *LOOK_ALIKES]]  # must not put it to sleep
        wrongly = [heard[v, t] for v, t in others if is_sleep(hear(v, t, tmp))]
        missed = [heard[v, t] for v in chosen for t in SLEEP if not is_sleep(heard[v, t])]
        if missed:
            print("'stop listening' missed, e.g.: " + "; ".join(repr(m) for m in missed[:4]))
    print(f"\n{len(chosen)} held-out voices: {', '.join(chosen)}")
    print(f"{len(heard)} utterances recognized in {time.perf_counter() - started:.0f} s\n")
    print("| phrase | found | WER of the request after it | requests without it taken | look-alikes taken |")
    print("|---|---|---|---|---|")
    for phrase, found, n, wer, fp, n2, fa, n3 in rows:
        print(f"| {phrase} | {found}/{n} ({found / n:.0%}) | {wer:.1%} | {fp}/{n2} | {fa}/{n3} |")
    print("\n| put to sleep by | heard as such |\n|---|---|")
    for text in SLEEP:
        print(f"| {text} | {sum(ok for t, ok in asleep if t == text)}/{len(chosen)} |")
    print(f"| (the requests and look-alikes) | {len(wrongly)}/{len(others)} |")


if __name__ == "__main__":
    main()
