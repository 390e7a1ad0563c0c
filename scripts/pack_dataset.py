"""Re-encode a dataset split as Ogg Opus in size-capped zip parts, to carry it to a lent GPU machine.

    python scripts/pack_dataset.py --split train --out .gpu --parts 3 --part-mb 38,44
    python scripts/pack_dataset.py --split dev --out .gpu --parts 1 --part-mb 1.2

The FLAC training set (34 h, 2.1 GB) is too large for a lent machine's working tree, which carries
64 MiB per command with the repository (about 21 MB) inside; Opus at ~11 kbit/s makes an hour of
speech about 5 MB. Below ~10 kbit/s libopus drops the band above 4 kHz (measured on 40 training
utterances: -18.7 dB at 4-6 kHz and -46 dB at 6-8 kHz at 9.4 kbit/s), which would teach the
recognizer a narrowband world, so the level used keeps the full band (-0.2 dB at 4-6 kHz at 10.8
kbit/s). Utterances go in a seeded random order, so every part is a random sample of the split.

Each part is one uncompressed zip (one file, so no per-file overhead in the transfer):
``train_part_1.zip`` holds ``shard_p1_00000/*.ogg`` and ``shard_p1_00000.jsonl`` with audio paths
relative to the split directory, so parts unpack into one directory one after another (the trainer
re-reads its manifest every epoch). On the training machine

    python scripts/pack_dataset.py --unpack .gpu/train_part_1.zip --into /tmp/asr/train --jobs 16

decodes a part once into 16-bit WAV (decoding Opus cost about as much as the features in every
loader process: about 6 ms per 4-second utterance each, measured here) and moves its shards into
the split, audio before manifests. scripts/lent_gpu_train.sh does both there and trains.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import sys
import tempfile
import zipfile
from multiprocessing import Pool
from pathlib import Path

import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_asr import engine_of, read_manifest  # noqa: E402

SHARD_SIZE = 200  # utterances per shard, as make_dataset
OPUS_LEVEL = 0.985  # libsndfile's compression level → ~10.8 kbit/s with the 8 kHz band intact
ZIP_ENTRY_BYTES = 200  # a stored entry's headers, about, for the size cap


def encode(row: dict) -> tuple[dict, bytes]:
    wave, sr = sf.read(row["audio"], dtype="float32")
    buf = io.BytesIO()
    sf.write(buf, wave, sr, format="OGG", subtype="OPUS", compression_level=OPUS_LEVEL)
    return row, buf.getvalue()


class Part:
    """One zip being written: whole shards, each manifest after its audio."""

    def __init__(self, path: Path, index: int) -> None:
        self.path, self.index = path, index
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_STORED)
        self.size, self.count, self.hours = 0, 0, 0.0
        self.lines: list[str] = []

    def shard(self) -> str:
        return f"shard_p{self.index}_{self.count // SHARD_SIZE:05d}"

    def add(self, row: dict, blob: bytes) -> None:
        name = f"{self.shard()}/{Path(row['audio']).stem}.ogg"
        self.zip.writestr(name, blob)
        self.lines.append(json.dumps({**row, "audio": name}))
        self.size += len(blob) + ZIP_ENTRY_BYTES
        self.count += 1
        self.hours += row["duration"] / 3600
        if self.count % SHARD_SIZE == 0:
            self.finish_shard(self.count - 1)

    def finish_shard(self, last: int) -> None:
        if self.lines:
            shard = f"shard_p{self.index}_{last // SHARD_SIZE:05d}"
            self.zip.writestr(f"{shard}.jsonl", "\n".join(self.lines) + "\n")
            self.lines = []

    def close(self) -> None:
        self.finish_shard(self.count - 1)
        self.zip.close()
        mb = self.path.stat().st_size / 1e6
        print(f"{self.path}: {self.count} utterances, {self.hours:.2f} h, {mb:.1f} MB", flush=True)


def of_engines(rows: list[dict], engines: list[str]) -> list[dict]:
    """The rows whose voice comes from one of `engines`."""
    return [r for r in rows if engine_of(r) in engines]


def engines_first(rows: list[dict], first: list[str]) -> list[dict]:
    """`rows` (already shuffled) with N of each ENGINE=N in `first` moved to the front: a part that
    can carry a few hours then holds the voices a run is meant to learn from, beside a random rest."""
    head: list[dict] = []
    for engine, n in (item.split("=") for item in first):
        head += [r for r in rows if engine_of(r) == engine][: int(n)]
    taken = {id(r) for r in head}
    return head + [r for r in rows if id(r) not in taken]


def decode_to_wav(path: Path) -> None:
    wave, sr = sf.read(path, dtype="int16")
    sf.write(path.with_suffix(".wav"), wave, sr, subtype="PCM_16")
    path.unlink()


def unpack(part: Path, into: Path, jobs: int) -> int:
    """Extract a part, decode its audio to WAV, then move its shards into ``into``: each shard's
    audio first, its manifest after, since a trainer may be reading the directory."""
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=into.parent) as tmp:
        stage = Path(tmp)
        zipfile.ZipFile(part).extractall(stage)
        with Pool(jobs) as pool:
            pool.map(decode_to_wav, sorted(stage.glob("shard_*/*.ogg")), chunksize=32)
        count = 0
        for manifest in sorted(stage.glob("shard_*.jsonl")):
            rows = [json.loads(line) for line in manifest.open()]
            for row in rows:
                row["audio"] = str(Path(row["audio"]).with_suffix(".wav"))
            manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
            shutil.rmtree(into / manifest.stem, ignore_errors=True)  # unpacked before: replaced
            shutil.move(stage / manifest.stem, into / manifest.stem)
            manifest.replace(into / manifest.name)  # one rename: never a half-written manifest
            count += len(rows)
    return count


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=Path("/work/data/asr"))
    p.add_argument("--split", default="train")
    p.add_argument("--out", type=Path, help="folder for the zips")
    p.add_argument("--unpack", type=Path, help="a part to unpack (with --into) instead of packing")
    p.add_argument("--into", type=Path, help="the split directory --unpack adds the part to")
    p.add_argument("--parts", type=int, default=1)
    p.add_argument(
        "--part-mb",
        type=lambda v: [float(x) for x in v.split(",")],
        default=[40.0],
        help="size of each zip in MB, one figure or one per part (the last repeats)",
    )
    p.add_argument(
        "--first",
        action="append",
        default=[],
        metavar="ENGINE=N",
        help="put N random utterances of ENGINE's voices first (e.g. kokoro=3500), then the rest shuffled",
    )
    p.add_argument(
        "--engines",
        help="pack only these voices (make_dataset's engine names, e.g. kokoro,piper,flite,festival): "
        "espeak-ng's can be synthesized on the lent machine itself (scripts/lent_gpu_train.sh)",
    )
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.unpack:
        if not args.into:
            p.error("--unpack needs --into DIR")
        print(f"{args.unpack} → {args.into}: {unpack(args.unpack, args.into, args.jobs)} utterances")
        return
    if not args.out:
        p.error("give --out DIR to pack, or --unpack PART --into DIR")

    rows = read_manifest(args.data / args.split)
    if args.engines:
        rows = of_engines(rows, args.engines.split(","))
    random.Random(args.seed).shuffle(rows)
    rows = engines_first(rows, args.first)
    args.out.mkdir(parents=True, exist_ok=True)

    def new_part(index: int) -> Part:
        return Part(args.out / f"{args.split}_part_{index}.zip", index)

    part = new_part(1)
    with Pool(args.jobs) as pool:
        for row, blob in pool.imap(encode, rows, chunksize=8):
            cap = args.part_mb[min(part.index, len(args.part_mb)) - 1] * 1e6
            if part.size + len(blob) + ZIP_ENTRY_BYTES > cap:
                part.close()
                if part.index == args.parts:
                    return
                part = new_part(part.index + 1)
            part.add(row, blob)
    part.close()


if __name__ == "__main__":
    main()
