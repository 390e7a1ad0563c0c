"""Boundary errors and speed of the endpointer on espeak-ng sentences in white noise.

Each sentence is trimmed to its true boundaries (10 ms frames within 40 dB of the loudest), scaled to
-26 dBFS, put between 1 s of silence before and 1.2 s after, with white noise at each SNR ("clean" is
-70 dBFS noise). Errors are detected minus true, in ms (negative: early).

    python scripts/bench_vad.py                      # defaults from VadConfig
    python scripts/bench_vad.py --aggressiveness 3 --frame-ms 30

Then what the pitch check (`[vad] min_pitched_ms`, `assistant.vad.PitchDetector`) lets through:
utterances made of short words said alone (espeak-ng, five voices, and whispered), of the ALSA
test recordings (a person; `/usr/share/sounds/alsa`, alsa-utils), and of cough-like noise bursts
(`cough_noise`, 300-500 ms), with the check and without it (`min_pitched_ms = 0`), clean and in
white noise.

    python scripts/bench_vad.py --pitch-only         # only that table

Last, how long the capture resampler (`assistant.audio.devices.Resampler16k`) holds audio back
before the endpointer sees it, per device rate, against soxr's "LQ" stream it replaced: every
millisecond there is one more before an onset holds a barge-in or an endpoint fires.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf
from scipy.signal import resample_poly

from assistant.audio.files import read_audio
from assistant.config import VadConfig
from assistant.vad import Endpointer, SpeechEnd, SpeechStart, level_db

SR = 16000  # Hz
NS_PER_SAMPLE = 1_000_000_000 // SR  # ns
BLOCK = 320  # samples per accepted block (20 ms)
SENTENCES = [
    "Turn on the lights in the kitchen please",
    "What is the weather like tomorrow",
    "Set a timer for ten minutes",
    "Hello",
    "Please remind me to call my sister at six",
    "How far away is the moon",
]

WORDS = ["Stop.", "Wait.", "Six.", "Yes.", "No.", "Enough."]  # said alone: the least voice an utterance has
VOICES = ["en", "en-us", "en+f3", "en-us+m7", "en-gb-x-rp+f2"]  # espeak-ng voices and variants
ALSA = Path("/usr/share/sounds/alsa")


def cough_noise(ms: int, seed: int = 0, db: float = -14.0) -> np.ndarray:
    """A cough-like burst: `ms` of band-limited noise (300-3000 Hz) with a 10 ms attack and a decay,
    at `db` dBFS RMS. (float32, 16 kHz)"""
    rng = np.random.default_rng(seed)
    n = SR * ms // 1000
    spectrum = np.fft.rfft(rng.standard_normal(4 * n))
    freqs = np.fft.rfftfreq(4 * n, 1 / SR)
    spectrum[(freqs < 300) | (freqs > 3000)] = 0
    noise = np.fft.irfft(spectrum)[:n]
    burst = noise * np.minimum(1.0, np.arange(n) / (0.01 * SR)) * np.exp(-np.arange(n) / (0.4 * n))
    return (burst * 10 ** ((db - level_db(burst)) / 20)).astype(np.float32)


def synthesize(text: str, path: Path, voice: str = "en") -> np.ndarray:
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True, capture_output=True)
    wave, rate = sf.read(path, dtype="float32")
    g = math.gcd(SR, rate)
    return resample_poly(wave, SR // g, rate // g).astype(np.float32)


def trimmed(wave: np.ndarray, below_peak_db: float = 40.0) -> np.ndarray:
    hop = SR // 100
    db = np.array([level_db(wave[i : i + hop]) for i in range(0, len(wave) - hop + 1, hop)])
    active = np.flatnonzero(db > db.max() - below_peak_db)
    clip = wave[active[0] * hop : (active[-1] + 1) * hop]
    return clip * np.float32(10 ** ((-26.0 - level_db(clip)) / 20))


LEAD_S, TAIL_S = 1.0, 1.2  # s of silence before and after each clip


def endpointed(cfg: VadConfig, clip: np.ndarray, snr_db: float | None, seed: int) -> list:
    """The endpointer's events on `clip` between LEAD_S and TAIL_S of silence, in white noise
    `snr_db` under the clip's level (None: -70 dBFS), fed in BLOCK-sample blocks."""
    signal = np.concatenate([np.zeros(int(LEAD_S * SR)), clip, np.zeros(int(TAIL_S * SR))])
    noise_db = -70.0 if snr_db is None else level_db(clip) - snr_db
    signal = signal + np.random.default_rng(seed).standard_normal(len(signal)) * 10 ** (noise_db / 20)
    signal = signal.astype(np.float32)
    ep = Endpointer(cfg).build()
    events = []
    for i in range(0, len(signal), BLOCK):
        events += ep.accept(signal[i : i + BLOCK], i * NS_PER_SAMPLE)
    return events


def measure(cfg: VadConfig, clip: np.ndarray, snr_db: float | None, seed: int) -> tuple | None:
    events = endpointed(cfg, clip, snr_db, seed)
    starts = [e for e in events if isinstance(e, SpeechStart)]
    ends = [e for e in events if isinstance(e, SpeechEnd)]
    if len(starts) != 1 or len(ends) != 1:
        return None
    lead = int(LEAD_S * SR)
    on_ms = (starts[0].t_ns - lead * NS_PER_SAMPLE) / 1e6
    off_ms = (ends[0].t_ns_speech_end - (lead + len(clip)) * NS_PER_SAMPLE) / 1e6
    return on_ms, off_ms


def utterances(cfg: VadConfig, clip: np.ndarray, snr_db: float | None, seed: int) -> int:
    """How many utterances the endpointer makes of `clip` (`endpointed`)."""
    return sum(isinstance(e, SpeechStart) for e in endpointed(cfg, clip, snr_db, seed))


def pitch_table(cfg: VadConfig) -> None:
    """Utterances made of each set with the pitch check (cfg) and without it, per SNR."""
    sets: dict[str, list[np.ndarray]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, voices in (("short words", VOICES), ("whispered words", ["en+whisper"])):
            sets[name] = [trimmed(synthesize(w, Path(tmp) / "w.wav", v)) for v in voices for w in WORDS]
    if ALSA.is_dir():  # a person saying "Front center", ... (alsa-utils)
        sets["ALSA recordings (a person)"] = [
            trimmed(read_audio(path, SR)) for path in sorted(ALSA.glob("*.wav"))
        ]
    sets["coughs 300-500 ms"] = [cough_noise(ms, seed) for ms in (300, 400, 500) for seed in range(20)]
    unchecked = cfg.model_copy(update={"min_pitched_ms": 0})
    print(f"\nutterances made, with the pitch check (min_pitched_ms={cfg.min_pitched_ms}) / without it")
    print("| set | clips | clean | 10 dB | 5 dB |")
    print("|---|---|---|---|---|")
    for name, clips in sets.items():
        cells = []
        for snr in (None, 10, 5):
            checked = sum(utterances(cfg, clip, snr, i) for i, clip in enumerate(clips))
            plain = sum(utterances(unchecked, clip, snr, i) for i, clip in enumerate(clips))
            cells.append(f"{checked} / {plain}")
        print(f"| {name} | {len(clips)} | " + " | ".join(cells) + " |")


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--aggressiveness", type=int, default=VadConfig().aggressiveness)
    parser.add_argument("--frame-ms", type=int, default=VadConfig().frame_ms)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--pitch-only", action="store_true", help="only the pitch check's table")
    args = parser.parse_args()
    cfg = VadConfig(aggressiveness=args.aggressiveness, frame_ms=args.frame_ms)
    if args.pitch_only:
        pitch_table(cfg)
        return
    with tempfile.TemporaryDirectory() as tmp:
        clips = {s: trimmed(synthesize(s, Path(tmp) / "s.wav")) for s in SENTENCES}
    print(f"aggressiveness={cfg.aggressiveness} frame_ms={cfg.frame_ms}; errors in ms (onset, end)")
    for snr in (None, 20, 15, 10):
        errors, misses = [], 0
        for text, clip in clips.items():
            for seed in range(args.seeds):
                found = measure(cfg, clip, snr, seed)
                misses += found is None
                errors += [found] if found else []
                if seed == 0:
                    print(f"  {'clean' if snr is None else f'{snr} dB':>6}  {text[:40]:40s} {found}")
        on, off = np.abs(np.array(errors)).T if errors else (np.zeros(1), np.zeros(1))
        label = "clean" if snr is None else f"{snr} dB"
        print(
            f"  {label:>6}  |onset| mean {on.mean():.0f} max {on.max():.0f}"
            f"   |end| mean {off.mean():.0f} max {off.max():.0f}   not one utterance: {misses}"
        )
    clip = np.tile(np.concatenate(list(clips.values())), 3)
    t0 = time.perf_counter()
    ep = Endpointer(cfg).build()
    for i in range(0, len(clip), BLOCK):
        ep.accept(clip[i : i + BLOCK], i * NS_PER_SAMPLE)
    print(f"speed: {len(clip) / SR / (time.perf_counter() - t0):.0f}x real time on one core")
    pitch_table(cfg)
    resampler_delay()


def resampler_delay(blocks: int = 500, block_ms: int = 10) -> None:
    """ms of audio pushed into the capture resampler that has not come out yet, after each block."""
    import soxr

    from assistant.audio.devices import Resampler16k

    print(f"capture resampler: audio held back after each {block_ms} ms block, ms mean / max")
    rng = np.random.default_rng(0)
    for rate in (44_100, 48_000):
        ours = Resampler16k(rate, frame=SR * block_ms // 1000)
        lq = soxr.ResampleStream(rate, SR, 1, "float32", "LQ")
        held_ours, held_lq, pushed, out_lq = [], [], 0, 0
        for _ in range(blocks):
            block = rng.standard_normal(rate * block_ms // 1000).astype(np.float32) * 0.1
            ours.push(block, 0)
            pushed, out_lq = pushed + len(block), out_lq + len(lq.resample_chunk(block))
            held_ours.append(ours.held_back() / SR * 1000)
            held_lq.append((pushed * SR / rate - out_lq) / SR * 1000)
        ours_ms, lq_ms = np.array(held_ours[10:]), np.array(held_lq[10:])
        print(
            f"  {rate} Hz: Resampler16k {ours_ms.mean():.1f} / {ours_ms.max():.1f}"
            f"   soxr LQ {lq_ms.mean():.1f} / {lq_ms.max():.1f}"
        )


if __name__ == "__main__":
    main()
