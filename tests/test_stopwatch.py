"""The stopwatch by voice, on a clock the test moves: started, read, lapped, stopped, started again, reset."""

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


def test_laps_keep_the_reading_and_each_laps_own_time():
    watch, now = _watch()
    assert watch.answer("lap") == "The stopwatch isn't running. Say start the stopwatch."
    assert watch.answer("read my laps") == "No laps yet. Say lap while the stopwatch runs."
    watch.answer("start the stopwatch")
    now[0] += 65
    assert watch.answer("lap") == "Lap 1 at 1 minute and 5 seconds."
    now[0] += 58
    assert watch.answer("take a split") == "Lap 2 at 2 minutes and 3 seconds: 58 seconds for that lap."
    now[0] += 61
    assert watch.answer("new lap") == "Lap 3 at 3 minutes and 4 seconds: 1 minute and 1 second for that lap."
    watch.answer("stop the stopwatch")
    assert watch.answer("how many laps") == "3 laps."
    assert watch.answer("what were my lap times") == (
        "Lap 1: 1 minute and 5 seconds; lap 2: 58 seconds; lap 3: 1 minute and 1 second."
    )
    assert watch.answer("reset the stopwatch") == "Stopwatch reset."
    assert watch.answer("read the laps") == "No laps yet. Say lap while the stopwatch runs."


@pytest.mark.parametrize(
    "asked", ["stop", "start the timer", "set a timer", "stop watching", "lapdog", "lap of luxury"]
)
def test_other_requests_are_not_taken(asked):
    watch, _ = _watch()
    assert watch.answer(asked) is None
    assert watch.started is None
