"""scripts/eval_asr.py: the pooled real-speech row that the shipping rule reads."""

from __future__ import annotations

import sys
from pathlib import Path

import jiwer
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import eval_asr  # noqa: E402


def row(name: str, system: str, refs: list[str], hyps: list[str]) -> dict:
    return {"set": name, "system": system, **eval_asr.score(refs, hyps)}


def test_pooled_real_equals_wer_over_all_real_utterances_together():
    alsa = (["front center", "noise"], ["front", "noise"])  # 1 error in 3 words
    wz = (["build a factory now", "research the tank"], ["build the factory", "research tank"])
    synth = (["set a timer"], ["set a time"])  # not real speech: stays out of the pool
    results = [
        row("alsa", "ours", *alsa),
        row("wz2100", "ours", *wz),
        row("test_synth", "ours", *synth),
        row("alsa", "peer", *alsa),
    ]
    pooled = {r["system"]: r for r in eval_asr.pooled_real(results)}
    together = jiwer.wer(alsa[0] + wz[0], alsa[1] + wz[1])
    assert pooled["ours"]["wer"] == pytest.approx(together, abs=1e-4)
    assert pooled["ours"]["set"] == "real (alsa+wz2100)" and pooled["ours"]["words"] == 10
    assert pooled["peer"]["set"] == "real (alsa)" and pooled["peer"]["n"] == 2
    assert "| real (alsa+wz2100) | ours | 4 | 10 |" in eval_asr.markdown(list(pooled.values()))
