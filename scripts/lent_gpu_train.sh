#!/bin/bash
# Fine-tune the recognizer on a lent GPU machine (an H100 with its own PyTorch, no network, a
# 64 MiB working tree per command, each command at most 10 minutes, the machine kept only while
# commands follow each other within seconds). Run from the repository root on that machine:
#
#   bash scripts/lent_gpu_train.sh start 1 470    # unpack part 1, start training, watch 470 s
#   bash scripts/lent_gpu_train.sh add 2 450      # unpack part 2 (joins at the next epoch), watch
#   bash scripts/lent_gpu_train.sh finish 3       # unpack part 3, wait for the time budget to end
#   bash scripts/lent_gpu_train.sh finish 0       # or unpack nothing (carry no .gpu), just wait
#
# or, where the machine is lent for less (15 minutes of device time, one command of 10), all in one:
#
#   MAX_MINUTES=7.5 bash scripts/lent_gpu_train.sh once 1   # unpack part 1, train, bring snapshots
#
# LR sets the peak learning rate (default 1.2e-3), INIT the checkpoint to start from (default the
# shipped one; another one travels in .gpu/), WORKERS the loader processes (default 14), REPEAT the
# trainer's --repeat (e.g. "kokoro=6 piper=6"), PASSES its --passes (default 4; 1 or 2 where the set
# grows during the run, so that new shards join sooner), FULL_SHARE its --full-context-share (the
# share of full-context batches, default 0.5; 0.7 in the nineteenth session's run).
#
# ESPEAK=N also synthesizes N fresh training utterances of espeak-ng's training voices there, with
# make_dataset.py's rooms, noise and colouring, in ESPEAK_JOBS processes (default 8) beside the
# trainer, which starts HEAD_START seconds later (default 30) and takes the new shards at each epoch.
# espeak-ng costs ~5 ms of a core per second of speech, so 8 cores make tens of hours in minutes,
# where the working tree carries ~5 h of Opus. Needs .gpu/espeak/ (the Debian packages espeak-ng,
# libespeak-ng1, espeak-ng-data, libsonic0 and libpcaudio.so.0 built from
# scripts/pcaudio_stub.c: that machine has neither ALSA nor PulseAudio, and writing WAV files opens
# no audio device), .gpu/sentences.json.xz (the dataset's training sentences) and .gpu/rirs16.npz
# (its room responses as float16), which `bash scripts/lent_gpu_train.sh prepare-espeak` makes
# here (DATA_HERE: the dataset, default /work/data/asr).
#
# Prepared here, in ignored folders that each command carries:
#   .gpu/train_part_N.zip, .gpu/dev_part_1.zip   scripts/pack_dataset.py (training audio as Opus;
#           with ESPEAK, --engines kokoro,piper,flite,festival: the voices that machine cannot make)
#   .gpu/espeak/, .gpu/sentences.json.xz, .gpu/rirs16.npz   for ESPEAK: `... prepare-espeak` (above)
#   .whl/   cp312 manylinux wheels of what that machine lacks: kaldi-native-fbank, soundfile, cffi,
#           pycparser, num2words, jiwer, rapidfuzz (pip download --no-deps --only-binary=:all:
#           --python-version 3.12 ...), plus docopt.py copied from a virtual environment (sdist only)
# The trainer runs in its own session (setsid), so it outlives each command; its cosine schedule
# ends with --max-minutes. Files left in $OUT come back: logs, and snapshots for averaging.
set -u
MODE=$1
if [ "$MODE" = prepare-espeak ]; then  # here, not on the lent machine
  here=${DATA_HERE:-/work/data/asr}
  mkdir -p .gpu/espeak || exit 1
  (cd .gpu/espeak && apt-get download espeak-ng libespeak-ng1 espeak-ng-data libsonic0) || exit 1
  gcc -shared -fPIC -O2 -Wl,-soname,libpcaudio.so.0 -o .gpu/espeak/libpcaudio.so.0 scripts/pcaudio_stub.c || exit 1
  python3 - "$here" <<'PY' || exit 1
import json, lzma, sys
import numpy as np
here = sys.argv[1]
data = json.load(open(f"{here}/sentences.json"))
# the training sentences only: the lent machine synthesizes no held-out split
data = {**data, "dev": {k: [] for k in data["dev"]}, "test": {k: [] for k in data["test"]}}
with lzma.open(".gpu/sentences.json.xz", "wt", preset=9) as f:
    json.dump(data, f)
z = np.load(f"{here}/rirs.npz")
np.savez(".gpu/rirs16.npz", *[z[k].astype(np.float16) for k in z.files])
PY
  du -sh .gpu/espeak .gpu/sentences.json.xz .gpu/rirs16.npz
  exit 0
fi
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site
DATA=/tmp/asr RUN=/tmp/run
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  cp .whl/docopt.py /tmp/site/
fi

report() {  # the log's last evaluations and steps, and the GPU's state
  grep -E '"(dev|epoch|time budget reached|stopped|start)"' $RUN/train.log | cut -c1-260 | tail -12
  grep '"train"' $RUN/train.log | tail -3 | cut -c1-260
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
  [ -f /tmp/synth.out ] && echo "espeak-ng: $(cat $DATA/train/shard_espeak_*.jsonl | wc -l) utterances; $(tail -c 300 /tmp/synth.out | tr '\r' '\n' | tail -2)"
  cp $RUN/train.log $OUT/ 2>/dev/null
  tail -c 3000 /tmp/train.out > $OUT/train.out.tail
}

PART=$2
mkdir -p $DATA/train $DATA/dev
# decoded once to WAV here, so the loader processes need not decode Opus for every utterance
# part 0: none (`finish 0` ends a run whose parts are all in, with no .gpu carried)
if [ "$PART" != 0 ]; then
  [ -f .gpu/dev_part_1.zip ] && python3 scripts/pack_dataset.py --unpack .gpu/dev_part_1.zip --into $DATA/dev --jobs 16
  python3 scripts/pack_dataset.py --unpack .gpu/train_part_$PART.zip --into $DATA/train --jobs 16 || exit 1
  # shard_*: make_dataset.py also leaves manifest.jsonl, all its shards again
  echo "part $PART: $(cat $DATA/train/shard_*.jsonl | wc -l) utterances in $DATA/train"
fi

synth_espeak() {  # in the background; shards join $DATA/train as they finish
  local lib=/tmp/deb/usr/lib/x86_64-linux-gnu
  mkdir -p /tmp/deb && for f in .gpu/espeak/*.deb; do dpkg -x "$f" /tmp/deb || return 1; done
  cp .gpu/espeak/libpcaudio.so.0 $lib/
  export PATH=/tmp/deb/usr/bin:$PATH LD_LIBRARY_PATH=$lib ESPEAK_DATA_PATH=$lib
  espeak-ng --version || return 1
  python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/sentences.json.xz'), open('$DATA/sentences.json', 'wb'))"
  python3 -c "import numpy as np; z = np.load('.gpu/rirs16.npz'); np.savez('$DATA/rirs.npz', *[z[k].astype(np.float32) for k in z.files])"
  # setsid: a command's other processes end with it, and in `start` mode the synthesis must outlive it
  # (on 2026-11-28 it stopped at 96,200 of 130,000 when `start` returned)
  setsid nohup python3 scripts/make_dataset.py --out $DATA --engines espeak --train "$ESPEAK" --dev 0 --test 0 \
    --jobs "${ESPEAK_JOBS:-8}" --seed "${SEED:-26}" > /tmp/synth.out 2>&1 < /dev/null &
  sleep "${HEAD_START:-30}"
  echo "espeak-ng: $(cat $DATA/train/shard_espeak_*.jsonl 2>/dev/null | wc -l) utterances after ${HEAD_START:-30} s"
}

if [ "$MODE" = start ] || [ "$MODE" = once ]; then
  if [ "${ESPEAK:-0}" -gt 0 ]; then synth_espeak || exit 1; fi
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  python3 -c "import torch, kaldi_native_fbank, soundfile, jiwer, num2words; print(torch.__version__)" || exit 1
  # The loader processes only read WAV and apply the 8 kHz channel; log-mel is computed on the GPU
  # (--device-features). On 2026-11-25, with 14 loaders decoding Opus and computing features, the
  # GPU waited on them at ~600 utterances/s.
  # --passes 4 keeps per-epoch costs small while the set is one part.
  # --repeat ${REPEAT:-} is left unquoted: it is a list of ENGINE=K words, or none.
  setsid nohup python3 scripts/train_asr.py --data $DATA --out $RUN --init "${INIT:-models/asr/conformer_ctc.pt}" \
    --lr "${LR:-1.2e-3}" --warmup 400 --schedule cosine --max-steps 1000000 --max-minutes "${MAX_MINUTES:-24}" \
    --curriculum-steps 0 --narrowband 0.2 --batch-seconds 800 --passes "${PASSES:-4}" --workers "${WORKERS:-14}" --device-features --threads 2 \
    --snapshot-every 250 --eval-every 500 --log-every 50 --precision auto \
    --full-context-share "${FULL_SHARE:-0.5}" --repeat ${REPEAT:-} > /tmp/train.out 2>&1 < /dev/null &
  echo $! > $RUN.pid
fi
running() { kill -0 "$(cat $RUN.pid)" 2> /dev/null; }

if [ "$MODE" = start ] || [ "$MODE" = add ]; then
  end=$((SECONDS + $3))
  while [ $SECONDS -lt $end ]; do
    sleep 20
    if ! running; then
      echo "the trainer is not running"; tail -30 /tmp/train.out; report; exit 3
    fi
  done
  report
  cp "$(ls -d $RUN/snapshots/* | tail -1)" $OUT/  # in case the machine is lost before the next command
  exit 0
fi

if [ "$MODE" = finish ] || [ "$MODE" = once ]; then
  while running; do  # the newest snapshot keeps coming back, in case time runs out
    sleep 15
    cp "$(ls -d $RUN/snapshots/* | tail -1)" $OUT/latest.pt
  done
  rm -f $OUT/latest.pt
  report
  # the final snapshot and those three and six snapshots before it, for averaging here; 3 × 16 MB
  # stays inside what comes back (8 files, 16 MiB each)
  S=$(ls -d $RUN/snapshots/*)
  for f in $( (echo "$S" | tail -1; echo "$S" | tail -4 | head -1; echo "$S" | tail -7 | head -1) | sort -u); do
    cp "$f" $OUT/
  done
  ls -la $OUT
fi
