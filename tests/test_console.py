"""The terminal's state line (the answers' lines are tested through the pipeline: test_pipeline.py)."""

import io

from assistant.console import Console


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


def test_a_piped_console_shows_no_state_line():
    console = Console(io.StringIO())
    console.state("thinking")
    assert console.out.getvalue() == ""
