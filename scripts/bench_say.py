"""How soon `assistant say TEXT` is heard, measured from outside, on a virtual speaker.

A private PulseAudio server (the test suite's `Pulse`, from tests/conftest.py) records its null
sink's monitor while `assistant say` runs as a subprocess, as a user would start it. Per run: the
command's start → its first sound on the speaker (the first sample above -40 dBFS; this includes
starting Python and loading the voice), the sound's length, and the whole command's time.

`--repo PATH` runs another checkout's code (a `git worktree` of an older commit) with this
checkout's virtual environment, so two versions are compared on the same machine in one session.

    python scripts/bench_say.py                      # the paragraph below, 3 runs
    python scripts/bench_say.py --repo /tmp/old --runs 5
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import RECORD_RATE, Pulse  # noqa: E402

PARAGRAPH = (
    "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. "
    "A voice assistant should start speaking as soon as it can. Waiting for the whole text to be "
    "synthesized first makes a long reply feel slow. Every sentence after the first can be made "
    "while the first one plays."
)
AUDIBLE = 0.01  # -40 dBFS


def say_once(pulse: Pulse, repo: Path, text: str) -> dict:
    env = {**pulse.env, "PYTHONPATH": str(repo)}
    argv = [sys.executable, "-m", "assistant.cli", "say", text]
    pulse.speaker.clear()
    start = time.perf_counter_ns()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=repo)
    took_ns = time.perf_counter_ns() - start
    if done.returncode != 0:
        raise SystemExit(f"say failed: {done.stderr.strip()}")
    audio, first_ns = pulse.speaker.timed(start)
    loud = np.flatnonzero(np.abs(audio) > AUDIBLE)
    return {
        "first_sound_ms": (first_ns - start) / 1e6 + loud[0] * 1000 / RECORD_RATE,
        "sound_s": np.ptp(loud) / RECORD_RATE,
        "command_ms": took_ns / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repo", type=Path, default=REPO, help="checkout whose code runs (default: this one)"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--text", default=PARAGRAPH)
    args = parser.parse_args()
    pulse = Pulse(Path(tempfile.mkdtemp(prefix="bench-say-pulse-"))).start()
    try:
        rows = [say_once(pulse, args.repo.resolve(), args.text) for _ in range(args.runs)]
    finally:
        pulse.stop()
    commit = subprocess.run(
        ["git", "-C", str(args.repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"`assistant say` of {len(args.text)} characters, {args.runs} runs, "
        f"code of {commit} ({os.cpu_count()} cores)"
    )
    print("| | p50 | min | max |\n|---|---:|---:|---:|")
    for key in ("first_sound_ms", "sound_s", "command_ms"):
        values = [row[key] for row in rows]
        print(f"| {key} | {np.median(values):.1f} | {min(values):.1f} | {max(values):.1f} |")


if __name__ == "__main__":
    main()
