"""The terminal's state line (the answers' lines are tested through the pipeline: test_pipeline.py)."""

import io

from assistant.console import Console
from assistant.frames import Turn


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_state_line_shows_listening_only_where_a_microphone_listens():
    spoken, typed = Console(_Terminal()), Console(_Terminal(), typed=True)
    for console in (spoken, typed):
        console.state("thinking")
        console.state("listening")
    assert spoken.out.getvalue() == "\r\033[K[thinking]\r\033[K[listening]"
    assert typed.out.getvalue() == "\r\033[K[thinking]\r\033[K"  # `chat` showed "[listening]> " at its prompt


def test_chat_shows_its_prompt_again_after_an_announcement():
    """A due timer's announcement wrote over "> " while input() waited: the user typed at a blank line."""
    console = Console(_Terminal(), show_latency=False, typed=True)
    typed, announced = Turn(1, "set a timer for one second"), Turn(2, "", answer_text="Your timer is done.")
    for turn in (typed, announced):
        console.answer_piece(turn, turn.answer_text or "Timer set.")
        console.turn_done(turn, {})
        console.state("listening")
    shown = console.out.getvalue()
    assert shown.endswith("assistant: Your timer is done.\n\r\033[K> ")  # the prompt back for the user
    assert "Timer set.\n\r\033[K\r" in shown  # after a typed turn, input() writes the prompt itself


def test_a_piped_console_shows_no_state_line():
    console = Console(io.StringIO())
    console.state("thinking")
    assert console.out.getvalue() == ""


def test_the_latency_line_leaves_out_a_rate_the_turn_did_not_have():
    console = Console(io.StringIO())
    turn = Turn(1, "hello")
    console.turn_done(turn, {"durations_ms": {"llm_ttft": 52.4, "turn_total": 394.0}, "tokens_per_s": 79.2})
    console.turn_done(
        turn, {"durations_ms": {"turn_total": 1.0}, "tokens_per_s": 0.0}
    )  # failed before the LLM
    assert console.out.getvalue().splitlines() == [
        "  (llm_ttft=52ms turn_total=394ms, 79 tok/s)",
        "  (turn_total=1ms)",
    ]
