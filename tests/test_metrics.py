"""The latency log schema, summaries and the plot."""

import json

from assistant import metrics
from assistant.frames import Turn


def _turn(turn_id: int, offsets_ms: dict[str, float]) -> Turn:
    turn = Turn(turn_id, "hello")
    for name, ms in offsets_ms.items():
        turn.mark(name, int(1_000_000_000 + ms * 1e6))
    turn.counters.update(prompt_tokens=50, reused_tokens=40, generated_tokens=12, tokens_per_s=80.0)
    return turn


VOICE_TURN = {
    "speech_start": 0,
    "speech_end": 900,
    "endpoint": 1400,
    "asr_final": 1420,
    "turn_start": 1421,
    "prompt_built": 1430,
    "llm_first_token": 1480,
    "first_clause": 1600,
    "tts_first_audio": 1700,
    "playback_start": 1720,
    "llm_done": 2000,
    "turn_end": 4000,
}
# Started ahead of the endpoint (`Pipeline.start_ahead`): the answer's first audio waits for it.
AHEAD_TURN = {
    "speech_start": 0,
    "speech_end": 900,
    "asr_final": 1030,
    "turn_start": 1031,
    "prompt_built": 1035,
    "llm_first_token": 1045,
    "first_clause": 1130,
    "endpoint": 1220,
    "tts_first_audio": 1260,
    "playback_start": 1275,
    "llm_done": 1500,
    "turn_end": 3000,
}


def test_mark_keeps_the_first_timestamp():
    turn = Turn(1, "x")
    turn.mark("a", 5)
    turn.mark("a", 9)
    assert turn.marks["a"] == 5


def test_record_schema_and_derived_durations(tmp_path):
    log = metrics.LatencyLog(tmp_path / "sub" / "latency.jsonl")
    log.append(metrics.turn_record(_turn(1, VOICE_TURN)))
    record = json.loads((tmp_path / "sub" / "latency.jsonl").read_text())
    assert set(record) == {
        "schema",
        "turn",
        "time",
        "interrupted",
        "speaker_error",
        "error",
        "answered_by",
        "marks_ns",
        "marks_ms",
        "durations_ms",
        "prompt_tokens",
        "reused_tokens",
        "generated_tokens",
        "tokens_per_s",
    }
    assert record["speaker_error"] is None and record["error"] is None  # played whole, nothing failed
    assert record["answered_by"] is None  # a Turn no stage answered (AnswerStage sets it)
    d = record["durations_ms"]
    assert d["voice_to_voice"] == 820 and d["llm_ttft"] == 50 and d["endpointing"] == 500
    assert d["prompt_build"] == 9 and d["turn_total"] == 2579 and d["asr_final"] == 520
    assert record["marks_ms"]["speech_start"] == 0 and record["reused_tokens"] == 40
    assert list(record["marks_ns"]) == list(VOICE_TURN)  # chronological


def test_typed_turn_has_no_voice_durations():
    typed = {
        k: v
        for k, v in VOICE_TURN.items()
        if k not in ("speech_start", "speech_end", "endpoint", "asr_final")
    }
    d = metrics.durations_ms(_turn(1, typed).marks)
    assert "voice_to_voice" not in d and "text_to_voice" in d


def test_summary_percentiles_and_torn_last_line(tmp_path):
    path = tmp_path / "latency.jsonl"
    log = metrics.LatencyLog(path)
    for i in range(1, 21):
        log.append(metrics.turn_record(_turn(i, {"turn_start": 0, "prompt_built": i, "turn_end": 100})))
    with open(path, "a") as f:
        f.write('[1, 2]\n{"schema": 2}\n\n')  # not records: `latency` crashed on the list
        f.write('{"schema": 1, "tur')  # a crash mid-write
    records, skipped = metrics.read_records(path, last=10)
    assert [r["turn"] for r in records] == list(range(11, 21)) and skipped == 3
    summary = metrics.summarize(records)
    assert summary["prompt_build"]["n"] == 10
    assert summary["prompt_build"]["p50"] == 15.5 and 19 < summary["prompt_build"]["p95"] <= 20
    assert "| prompt_build | 10 |" in metrics.format_table(summary)


def test_plot_writes_a_png(tmp_path):
    records = [metrics.turn_record(_turn(i, VOICE_TURN)) for i in range(3)]
    metrics.plot(records, tmp_path / "p.png")
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_the_breakdown_of_a_turn_started_ahead_adds_up_to_voice_to_voice():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = [metrics.turn_record(_turn(i, marks)) for i, marks in enumerate((VOICE_TURN, AHEAD_TURN))]
    fig, ax = plt.subplots()
    metrics.draw_breakdown(ax, records)
    for x, record in enumerate(records):
        bars = sorted(
            (b.get_y(), b.get_height()) for b in ax.patches if abs(b.get_x() + b.get_width() / 2 - x) < 1e-6
        )
        # end to end, without gaps or overlaps: what the user waited for, split by stage
        assert all(abs(y0 + h0 - y1) < 1e-6 for (y0, h0), (y1, _) in zip(bars, bars[1:], strict=False))
        assert (
            bars[0][0] == 0 and abs(sum(h for _, h in bars) - record["durations_ms"]["voice_to_voice"]) < 1e-6
        )
    assert (
        records[1]["durations_ms"]["asr_final"] == 130 and records[1]["durations_ms"]["voice_to_voice"] == 375
    )
    plt.close(fig)


def test_what_answered_a_turn_is_read_from_older_lines_by_their_marks():
    """Lines from before the log said what answered: the LLM's marks tell its turns."""
    assert metrics.answered_by({"answered_by": "units", "marks_ns": {}}) == "units"
    assert metrics.answered_by({"marks_ns": {"turn_start": 1, "prompt_built": 2}}) == "llm"
    assert metrics.answered_by({"marks_ns": {"turn_start": 1, "tts_first_audio": 2}}) == "other"
