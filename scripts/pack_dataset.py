"""Re-encode a dataset split as Ogg Opus in size-capped parts, to carry it to a training machine.

    python scripts/pack_dataset.py --split train --out .gpu/train --parts 3 --part-mb 38,44

The FLAC training set (34 h, 2.1 GB) is too large to copy to a lent GPU machine whose working tree
may carry 64 MiB per command; Opus at ~11 kbit/s makes each hour about 5 MB. Below ~10 kbit/s
libopus drops the band above 4 kHz (measured: -18.7 dB at 4-6 kHz, -46 dB at 6-8 kHz at 9.4
kbit/s), which would teach the recognizer a narrowband world, so the default level keeps the full
band (-0.2 dB at 4-6 kHz at 10.8 kbit/s). Utterances go in a seeded random order, so every part is
a random sample of the split; a part ends when its audio reaches ``--part-mb``.

Each part is a split directory of its own: ``part_1/shard_p1_00000/*.ogg`` and
``part_1/shard_p1_00000.jsonl`` with audio paths relative to the split directory, so parts can be
copied into one directory one after another (the trainer re-reads its manifest every epoch).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
from multiprocessing import Pool
from pathlib import Path

import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scripts.train_asr import read_manifest  # noqa: E402

SHARD_SIZE = 200  # utterances per shard, as make_dataset
OPUS_LEVEL = 0.985  # libsndfile's compression level → ~10.8 kbit/s with the 8 kHz band intact


def encode(row: dict) -> tuple[dict, bytes]:
    wave, sr = sf.read(row["audio"], dtype="float32")
    buf = io.BytesIO()
    sf.write(buf, wave, sr, format="OGG", subtype="OPUS", compression_level=OPUS_LEVEL)
    return row, buf.getvalue()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("/work/data/asr"))
    p.add_argument("--split", default="train")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--parts", type=int, default=1)
    p.add_argument(
        "--part-mb",
        type=lambda v: [float(x) for x in v.split(",")],
        default=[40.0],
        help="encoded audio per part in MB, one figure or one per part (the last repeats)",
    )
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    rows = read_manifest(args.data / args.split)
    random.Random(args.seed).shuffle(rows)
    part, size, count, hours = 1, 0, 0, 0.0
    manifest: Path | None = None  # the open shard's manifest, renamed to .jsonl once finished

    def finish_shard() -> None:
        nonlocal manifest
        if manifest:
            manifest.rename(manifest.with_suffix(""))  # shard_….jsonl.tmp → shard_….jsonl
            manifest = None

    with Pool(args.jobs) as pool:
        for row, blob in pool.imap(encode, rows, chunksize=8):
            if size + len(blob) > args.part_mb[min(part, len(args.part_mb)) - 1] * 1e6:
                finish_shard()
                print(f"part {part}: {count} utterances, {hours:.2f} h, {size / 1e6:.1f} MB", flush=True)
                if part == args.parts:
                    return
                part, size, count, hours = part + 1, 0, 0, 0.0
            split_dir = args.out / f"part_{part}"
            shard = f"shard_p{part}_{count // SHARD_SIZE:05d}"
            if count % SHARD_SIZE == 0:
                finish_shard()
                (split_dir / shard).mkdir(parents=True, exist_ok=True)
                manifest = split_dir / f"{shard}.jsonl.tmp"
            name = f"{shard}/{Path(row['audio']).stem}.ogg"
            (split_dir / name).write_bytes(blob)
            with manifest.open("a") as f:
                f.write(json.dumps({**row, "audio": name}) + "\n")
            size, count, hours = size + len(blob), count + 1, hours + row["duration"] / 3600
    finish_shard()
    print(f"part {part}: {count} utterances, {hours:.2f} h, {size / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main()
