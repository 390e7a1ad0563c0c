"""The stopwatch by voice, on a clock the test moves: started, read, stopped, started again, reset."""

import pytest

from assistant.stopwatch import Stopwatch


def _watch():
    now = [100.0]
    return Stopwatch(clock=lambda: now[0]), now


def test_it_counts_up_while_running_and_holds_while_stopped():
    watch, now = _watch()
    assert watch.answer("how long has the stopwatch been running") == (
        "The stopwatch isn't running. Say start the stopwatch."
    )
    assert watch.answer("Start the stopwatch.") == "Stopwatch started."
    now[0] += 5
    assert watch.answer("start a stopwatch") == "The stopwatch is already running: 5 seconds."
    now[0] += 60
    assert watch.answer("What's on the stopwatch?") == "1 minute and 5 seconds."
    now[0] += 7
    assert watch.answer("stop the stopwatch") == "Stopwatch stopped at 1 minute and 12 seconds."
    now[0] += 600  # stopped: the reading holds
    assert watch.answer("stop the stopwatch") == "It's stopped at 1 minute and 12 seconds."
    assert watch.answer("check the stopwatch") == "1 minute and 12 seconds, stopped."
    assert watch.answer("resume the stopwatch") == "Stopwatch started again from 1 minute and 12 seconds."
    now[0] += 3600
    assert watch.answer("how long has the stopwatch been running") == "1 hour, 1 minute and 12 seconds."
    assert watch.answer("restart the stopwatch") == "Stopwatch restarted."  # from 0
    now[0] += 2
    assert watch.answer("what's on the stopwatch") == "2 seconds."
    assert watch.answer("reset the stopwatch") == "Stopwatch reset."
    assert watch.answer("stopwatch") == "The stopwatch isn't running. Say start the stopwatch."
    assert watch.answer("start timing") == "Stopwatch started."
    assert watch.answer("stop timing") == "Stopwatch stopped at 0 seconds."


@pytest.mark.parametrize("asked", ["stop", "start the timer", "set a timer", "stop watching"])
def test_other_requests_are_not_taken(asked):
    watch, _ = _watch()
    assert watch.answer(asked) is None
    assert watch.started is None
