#!/usr/bin/env bash
# One step from a fresh Debian/Ubuntu machine to a working assistant:
# Debian packages (audio stack, TTS voices for tests), a Python 3.11 venv in .venv, the package.
#   scripts/setup.sh          runtime only
#   scripts/setup.sh --dev    plus test and training tools (pytest, jiwer, pocketsphinx, ...)
set -euo pipefail
cd "$(dirname "$0")/.."

DEV=0
[ "${1:-}" = "--dev" ] && DEV=1

RUNTIME_DEBS="libportaudio2 libsndfile1 libasound2-plugins pulseaudio pulseaudio-utils alsa-utils libspeexdsp1 tzdata wordnet-base"
# Tests synthesize speech with these voices, distort the virtual speaker (swh-plugins) and build
# llama.cpp from source.
DEV_DEBS="espeak-ng flite sox swh-plugins build-essential cmake"
DEBS="$RUNTIME_DEBS"
[ $DEV = 1 ] && DEBS="$DEBS $DEV_DEBS"

missing=$(for p in $DEBS; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"; done)
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "setup: please install these Debian packages first (as root): apt-get install $missing" >&2; exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11), "Python 3.11 is required"' 
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/pip install -q --upgrade pip wheel
# The CPU build of torch first, so nothing later pulls a CUDA build.
.venv/bin/pip install -q "torch==2.13.0"
# llama.cpp is compiled for this CPU (-march=native). On CPUs with AMX (Intel Xeon 4th generation
# and later) that brings in its AMX matrix kernels, which crash on the first prefill of the embedded
# model (segfault in ggml_backend_amx_mul_mat, llama.cpp issue 20824): build without them. GCC keeps
# an explicit -mno-... over what -march=native turns on, whatever their order.
if [ "$(uname -m)" = x86_64 ] && grep -qw amx_int8 /proc/cpuinfo; then
  NO_AMX="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_C_FLAGS='$NO_AMX' -DCMAKE_CXX_FLAGS='$NO_AMX'"
fi
if [ $DEV = 1 ]; then .venv/bin/pip install -q -e ".[dev]"; else .venv/bin/pip install -q -e .; fi
# The LLM must prefill here, not segfault at the first question (the same check as `assistant
# doctor`): a llama.cpp wheel pip built earlier (its cache ignores CMAKE_ARGS) is rebuilt once,
# from source, with the flags above, and replaces the crashing wheel in pip's cache, so the next
# setup on this machine takes the good one instead of rebuilding again.
LLM_CHECK="from assistant.config import Config; from assistant.doctor import check_llm; check_llm(Config())"
if ! llm_check=$(.venv/bin/python -c "$LLM_CHECK" 2>&1); then
  # Only a crash is the build's fault; any other failure (a missing model package) says so and stops.
  grep -q "llama.cpp crashed" <<<"$llm_check" || { echo "setup: LLM check: ${llm_check##*$'\n'}" >&2; exit 1; }
  echo "setup: llama.cpp crashed on this CPU; rebuilding it (about 6 minutes)" >&2
  .venv/bin/pip cache remove "llama_cpp_python" >/dev/null 2>&1 || true
  .venv/bin/pip install -q --force-reinstall --no-deps "$(.venv/bin/pip freeze | grep -i '^llama[-_]cpp[-_]python==')"
  .venv/bin/python -c "$LLM_CHECK"
fi
echo "setup: ready (.venv/bin/assistant)"
