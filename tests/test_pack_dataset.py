"""scripts/pack_dataset.py and the trainer's lent-machine options: Opus parts unpack into one split
that the trainer reads, with the 4-8 kHz band intact; a time budget ends the cosine and the run."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import pack_dataset  # noqa: E402
import train_asr  # noqa: E402

CHECKPOINT = Path(__file__).resolve().parents[1] / "models" / "asr" / "conformer_ctc.pt"
TEXTS = ["set a timer", "what time is it", "turn on the lights", "play some music", "stop", "hello there"]


def band_db(wave: np.ndarray, lo: float, hi: float) -> float:
    spectrum = np.abs(np.fft.rfft(wave)) ** 2
    freqs = np.fft.rfftfreq(len(wave), 1 / 16000)
    return 10 * np.log10(spectrum[(freqs >= lo) & (freqs < hi)].sum() + 1e-12)


def make_split(root: Path) -> Path:
    """A split of band-limited noise bursts (speech-like spectra to 8 kHz) as make_dataset writes it."""
    split = root / "train"
    (split / "shard_00000").mkdir(parents=True)
    rng = np.random.default_rng(0)
    rows = []
    for i, text in enumerate(TEXTS):
        n = int(16000 * (1.0 + 0.3 * i))
        wave = np.convolve(rng.normal(0, 0.1, n), np.hanning(3) / 2, mode="same").astype(np.float32)
        wave *= np.hanning(n).astype(np.float32) ** 0.2
        path = split / "shard_00000" / f"train_{i}.flac"
        sf.write(path, wave, 16000)
        rows.append({"audio": str(path), "text": text, "voice": "test", "duration": n / 16000})
    (split / "shard_00000.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return split


def test_parts_unpack_into_one_split_the_trainer_reads(tmp_path, monkeypatch):
    split = make_split(tmp_path / "data")
    out = tmp_path / "packed"
    argv = ["pack_dataset.py", "--data", str(tmp_path / "data"), "--out", str(out), "--parts", "3"]
    monkeypatch.setattr(sys, "argv", [*argv, "--part-mb", "0.012", "--jobs", "1"])
    pack_dataset.main()
    zips = sorted(out.glob("train_part_*.zip"))
    assert len(zips) >= 2  # the cap split the set
    assert all(z.stat().st_size <= 0.012e6 + 2000 for z in zips)  # a part ends before its cap (+ directory)
    assert all(n.endswith((".ogg", ".jsonl")) for z in zips for n in zipfile.ZipFile(z).namelist())
    unpacked = tmp_path / "unpacked" / "train"
    assert sum(pack_dataset.unpack(z, unpacked, jobs=1) for z in zips) >= 4
    assert not list(unpacked.parent.glob("tmp*"))  # the staging folder is gone
    pack_dataset.unpack(zips[0], unpacked, jobs=1)  # again: replaced, not nested
    assert not list(unpacked.glob("shard_*/shard_*"))
    rows = train_asr.read_manifest(unpacked)
    assert sorted(r["text"] for r in rows) == sorted(TEXTS)[: len(rows)]
    assert len(rows) >= 4  # at most the rows of the part that did not fit are missing
    originals = {r["text"]: r for r in train_asr.read_manifest(split)}
    for row in rows:
        assert Path(row["audio"]).is_file() and row["audio"].endswith(".wav")  # decoded once
        decoded = train_asr.load_wave(row["audio"])
        source = train_asr.load_wave(originals[row["text"]]["audio"])
        assert abs(len(decoded) - len(source)) < 160
        n = min(len(decoded), len(source))
        for lo, hi in ((0, 4000), (4000, 6000), (6000, 8000)):  # the full band survives the codec
            assert abs(band_db(decoded[:n], lo, hi) - band_db(source[:n], lo, hi)) < 3.0, (lo, hi)


def test_time_budget_ends_the_cosine_whatever_the_step():
    peak = 1e-3
    assert train_asr.learning_rate(500, peak, 100, "cosine", 10**6, time_progress=0.0) == pytest.approx(
        peak, rel=1e-3
    )
    assert train_asr.learning_rate(500, peak, 100, "cosine", 10**6, time_progress=1.0) == pytest.approx(
        0.05 * peak
    )
    assert train_asr.learning_rate(500, peak, 100, "cosine", 10**6, time_progress=0.5) == pytest.approx(
        0.525 * peak
    )
    # the step schedule still ends the cosine when it comes first
    assert train_asr.learning_rate(1000, peak, 100, "cosine", 1000, time_progress=0.1) == pytest.approx(
        0.05 * peak
    )


@pytest.mark.parametrize("features", [[], ["--device-features"]], ids=["loader-features", "device-features"])
def test_a_time_budget_stops_training_with_a_snapshot_and_passes_repeat_the_rows(
    tmp_path, monkeypatch, features
):
    if not CHECKPOINT.is_file():
        pytest.skip(f"no recognizer checkpoint at {CHECKPOINT}")
    make_split(tmp_path / "data")
    run = tmp_path / "run"
    args = ["--data", str(tmp_path / "data"), "--out", str(run), "--init", str(CHECKPOINT)]
    args += ["--max-minutes", "0.001", "--passes", "3", "--batch-seconds", "4", "--workers", "0", *features]
    monkeypatch.setattr(sys, "argv", ["train_asr.py", *args, "--curriculum-steps", "0", "--threads", "1"])
    trainer = train_asr.Trainer(train_asr.parse_args())
    trainer.build()
    trainer.run()
    log = [json.loads(line) for line in (run / "train.log").open()]
    rows = train_asr.read_manifest(tmp_path / "data" / "train")
    one_pass = len(train_asr.duration_batches(rows, 4, 0))
    assert next(e for e in log if e["msg"] == "epoch")["batches"] == 3 * one_pass
    assert any(e["msg"] == "time budget reached" for e in log)
    assert log[-1]["msg"] == "stopped" and log[-1]["step"] < 3 * one_pass  # it stopped early
    assert (run / "last.pt").is_file()
    assert (run / "snapshots" / f"step_{log[-1]['step']:06d}.pt").is_file()


def test_first_puts_the_named_engines_voices_ahead_of_a_random_rest():
    rows = [{"voice": f"{engine}:v{i}", "i": i} for i, engine in enumerate(["espeak", "kokoro"] * 10)]
    ordered = pack_dataset.engines_first(rows, ["kokoro=3"])
    assert [r["voice"].split(":")[0] for r in ordered[:3]] == ["kokoro"] * 3
    assert [r["i"] for r in ordered[:3]] == [1, 3, 5]  # the first three in the (shuffled) order given
    assert sorted(r["i"] for r in ordered) == list(range(20))  # nothing lost, nothing twice
    assert pack_dataset.engines_first(rows, []) == rows


def test_engines_keeps_only_the_named_engines_voices():
    rows = [{"voice": f"{engine}:v{i}", "i": i} for i, engine in enumerate(["espeak", "kokoro", "piper"] * 4)]
    kept = pack_dataset.of_engines(rows, ["kokoro", "piper"])
    assert [r["i"] for r in kept] == [1, 2, 4, 5, 7, 8, 10, 11]  # in order, espeak's left out
    assert pack_dataset.of_engines(rows, ["flite"]) == []
