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
    phone = (["please hold"], ["please hold the"])  # asterisk: narrowband, out of the wideband pool
    synth = (["set a timer"], ["set a time"])  # not real speech: stays out of every pool
    results = [
        row("alsa", "ours", *alsa),
        row("wz2100", "ours", *wz),
        row("asterisk", "ours", *phone),
        row("test_synth", "ours", *synth),
        row("alsa", "peer", *alsa),
        row("asterisk", "peer", *phone),
    ]
    pooled = {(r["set"], r["system"]): r for r in eval_asr.pooled_real(results)}
    wideband = pooled["real wideband (alsa+wz2100)", "ours"]
    assert wideband["wer"] == pytest.approx(jiwer.wer(alsa[0] + wz[0], alsa[1] + wz[1]), abs=1e-4)
    assert wideband["words"] == 10
    everything = pooled["real (alsa+wz2100+asterisk)", "ours"]
    refs, hyps = alsa[0] + wz[0] + phone[0], alsa[1] + wz[1] + phone[1]
    assert everything["wer"] == pytest.approx(jiwer.wer(refs, hyps), abs=1e-4)
    assert everything["words"] == 12 and everything["n"] == 5
    # The peer ran on alsa alone of the wideband sets: no wideband pool, which would repeat alsa's row.
    assert set(pooled) == {
        ("real wideband (alsa+wz2100)", "ours"),
        ("real (alsa+wz2100+asterisk)", "ours"),
        ("real (alsa+asterisk)", "peer"),
    }
    assert "| real wideband (alsa+wz2100) | ours | 4 | 10 |" in eval_asr.markdown(list(pooled.values()))
