#!/bin/bash
# The first answer after `assistant run` starts against the later ones, per stage of the latency log.
# `assistant run` on a private PulseAudio server (null sinks as mic and speaker, nothing recording the
# speaker), four espeak-ng questions played into the mic 12 s apart, 14 s after start. Prints one row
# per turn; "playback_start" is TTS audio ready -> first sample out. Needs pulseaudio, espeak-ng.
#   scripts/bench_first_answer.sh [REPO] [WORK_DIR]     # defaults: this checkout, /tmp/bench-first-answer
#   PYTHON=/path/.venv/bin/python scripts/bench_first_answer.sh /tmp/worktree   # another commit's code
set -euo pipefail
REPO=$(cd "${1:-$(dirname "$0")/..}" && pwd); ST=${2:-/tmp/bench-first-answer}
PY=${PYTHON:-$REPO/.venv/bin/python}  # `-m assistant.cli` from REPO runs REPO's code
rm -rf "$ST"; mkdir -p "$ST/pulse"
export XDG_STATE_HOME=$ST PULSE_RUNTIME_PATH=$ST/pulse
pulseaudio -n --daemonize=yes --exit-idle-time=-1 -L "module-null-sink sink_name=spk" \
  -L "module-null-sink sink_name=micsink" -L "module-remap-source master=micsink.monitor source_name=mic" \
  -L module-native-protocol-unix 2>/dev/null
trap 'pulseaudio -k 2>/dev/null || true' EXIT
sleep 1; pactl set-default-source mic; pactl set-default-sink spk
i=0
for q in "What is the largest ocean?" "How many legs does a spider have?" "What color is the sky?" \
  "Name a large animal."; do espeak-ng -v en-us -w "$ST/q$i.wav" "$q"; i=$((i + 1)); done
cd "$REPO"
timeout 75 "$PY" -m assistant.cli run > "$ST/run.out" 2>&1 &
sleep 14
for i in 0 1 2 3; do paplay --device=micsink "$ST/q$i.wav"; sleep 12; done
wait || true
"$PY" - "$ST/assistant/latency.jsonl" <<'PY'
import json, sys
keys = ["asr_final", "prompt_build", "llm_ttft", "clause_wait", "tts_first_audio", "playback_start", "voice_to_voice"]
print("| turn | " + " | ".join(keys) + " |\n|---|" + "---:|" * len(keys))
for n, line in enumerate(open(sys.argv[1])):
    d = json.loads(line)["durations_ms"]
    print(f"| {n} | " + " | ".join(f"{d[k]:.0f}" if k in d else "-" for k in keys) + " |")
PY
