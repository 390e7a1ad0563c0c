"""Timers, alarms and reminders running on an event loop: set, asked about, cancelled, said when due, kept
across restarts."""

import asyncio
import re
import time
from datetime import UTC, date, datetime, timedelta

import pytest

from assistant import clock
from assistant.config import MemoryConfig
from assistant.memory import Memory
from assistant.timers import (
    Timers,
    next_on,
    parse_request,
)

TEN_PM = datetime(2026, 12, 6, 22, 0)
MONDAY_10_AM = datetime(2026, 12, 7, 10, 0)


def _on_a_test_clock() -> tuple[list[str], list[float], Timers]:
    """Timers on a clock the test moves (as a suspend would: `now[0] += ...`), looked at every 50
    ms, and the list of what they say."""
    said: list[str] = []
    now = [1000.0]
    return said, now, Timers(said.append, clock=lambda: now[0], check_s=0.05)


def test_every_day_is_set_for_each_day_and_said_so():
    async def main():
        timers = Timers(lambda text: None)
        assert timers.answer("wake me up at 7 every day", MONDAY_10_AM) == (
            "Alarm set for 7:00 AM every day, starting tomorrow."
        )
        assert timers.answer("set an alarm for nine on weekends", MONDAY_10_AM) == (
            "Alarm set for 9:00 AM on weekends, starting Saturday."
        )
        assert timers.answer("remind me every monday and friday at six pm to call my mom", MONDAY_10_AM) == (
            "Okay, I'll remind you to call your mom at 6:00 PM on Mondays and Fridays, starting today."
        )
        assert (
            timers.answer("wake me up on thursday at six", MONDAY_10_AM)
            == "Alarm set for 6:00 AM on Thursday."
        )
        assert timers.answer("when is my alarm", MONDAY_10_AM) == (
            "Your alarms are set for 7:00 AM every day, 6:00 AM on Thursday and 9:00 AM on weekends."
        )
        assert timers.answer("cancel my alarm for seven") == "Alarm cancelled."
        assert len(timers.running) == 3
        assert timers.answer("cancel my weekday alarm") == "There is no weekday alarm to cancel."
        assert timers.answer("cancel my weekend alarm") == "Alarm cancelled."  # not Thursday's
        assert timers.answer("cancel the monday alarm") == "There is no monday alarm to cancel."
        assert timers.answer("cancel my thursday alarm") == "Alarm cancelled."  # a one-off on Thursday
        assert len(timers.running) == 1 and timers.running[0].task == "call your mom"
        timers.close()

    asyncio.run(main())


def test_a_repeating_alarm_rings_and_is_set_for_its_next_day(tmp_path):
    """Kept in a real memory file: after it rings, the row holds the next day's time."""
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()
    at = datetime.now() + timedelta(seconds=0.5)
    memory.keep_timer({"key": "k", "kind": "alarm", "seconds": 3600, "link": "to", "task": None,
                       "due_at": (datetime.now(UTC) + timedelta(seconds=0.5)).isoformat(),
                       "at": at.isoformat(), "days": "0123456"})  # fmt: skip

    async def run():
        said: list[str] = []
        timers = Timers(said.append, keep=memory.keep_timer, drop=memory.drop_timer, check_s=0.05)
        timers.restore(memory.kept_timers())
        await asyncio.sleep(0.8)
        when = timers.answer("when is my alarm")
        timers.close()
        return said, when

    said, when = asyncio.run(run())
    assert said == [f"It's {clock.time_of_day(at)}. This is your alarm."]
    assert when == f"Your alarm is set for {clock.time_of_day(at)} every day."
    [row] = memory.kept_timers()
    assert datetime.fromisoformat(row["at"]) == at + timedelta(days=1)
    due = datetime.fromisoformat(row["due_at"]) - datetime.now(UTC)
    assert timedelta(hours=23, minutes=59) < due <= timedelta(days=1)
    memory.close()


def test_a_repeating_reminder_kept_while_no_assistant_ran_says_so_then_waits_for_its_next_day(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()
    at = datetime.now() - timedelta(hours=2)
    memory.keep_timer({"key": "k", "kind": "reminder", "seconds": 3600, "link": "to",
                       "task": "take your pills", "at": at.isoformat(), "days": "0123456",
                       "due_at": (datetime.now(UTC) - timedelta(hours=2)).isoformat()})  # fmt: skip

    async def run():
        said: list[str] = []
        timers = Timers(said.append, keep=memory.keep_timer, drop=memory.drop_timer, check_s=0.05)
        timers.restore(memory.kept_timers())
        await asyncio.sleep(0.2)
        timers.close()
        return said, timers

    said, timers = asyncio.run(run())
    assert said == ["Reminder, 2 hours late: take your pills."]
    [row] = memory.kept_timers()
    assert datetime.fromisoformat(row["at"]) == at + timedelta(days=1)
    memory.close()


def test_a_reminder_every_hour_goes_off_each_hour_and_is_kept_so(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()

    async def main():
        said, now, timers = _on_a_test_clock()
        timers.keep, timers.drop = memory.keep_timer, memory.drop_timer
        assert timers.answer("remind me every hour to drink water") == (
            "Okay, I'll remind you to drink water every hour, the next in 1 hour."
        )
        now[0] += 3600
        await asyncio.sleep(0.2)
        assert said == ["Reminder: drink water."]
        assert (
            timers.answer("what are my reminders")
            == "I'll remind you to drink water every hour, the next in 1 hour."
        )
        [row] = memory.kept_timers()
        assert row["every_s"] == 3600
        assert timedelta(minutes=59) < datetime.fromisoformat(row["due_at"]) - datetime.now(UTC)
        now[0] += 3 * 3600 + 60  # asleep three hours: said once, late, then on its step again
        await asyncio.sleep(0.2)
        assert said[1:] == ["Reminder, 2 hours and 1 minute late: drink water."]
        assert timers.answer("what are my reminders") == (
            "I'll remind you to drink water every hour, the next in 59 minutes."
        )
        assert timers.answer("cancel the reminder to drink water") == "Reminder cancelled."
        assert memory.kept_timers() == []

    asyncio.run(main())
    memory.close()


def test_a_timer_is_paused_resumed_and_given_more_or_less_time():
    """ "Pause the timer" and "add five minutes to the timer" went to the LLM ("You can add five minutes
    to the timer.") and nothing changed."""

    async def main():
        errors = []  # a callback's exception (a timer gone off twice) is the loop's, not the test's
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: errors.append(context))
        said, now, timers = _on_a_test_clock()
        assert timers.answer("pause the timer") == "There is no timer to pause."
        timers.answer("set a pasta timer for ten minutes")
        now[0] += 60
        assert timers.answer("pause the timer") == "Timer paused with 9 minutes left."
        assert timers.answer("pause the timer") == "The timer is already paused."
        now[0] += 3600
        await asyncio.sleep(0.2)
        assert said == []  # paused: not due
        assert timers.answer("how much time is left") == "Paused with 9 minutes left."
        assert timers.answer("add five minutes to the timer") == "5 minutes added: 14 minutes left."
        assert timers.answer("resume the pasta timer") == "Pasta timer resumed: 14 minutes left."
        assert timers.answer("resume the timer") == "The timer is not paused."
        assert (
            timers.answer("take fifteen minutes off the timer")
            == "Your pasta timer has only 14 minutes left."
        )
        assert timers.answer("take four minutes off the timer") == "4 minutes taken off: 10 minutes left."
        timers.answer("set a timer for one hour")
        assert timers.answer("add a minute to the timer") == (
            "Which one? You have the pasta timer and the timer for 1 hour: say, for example, add a minute to"
            " the pasta timer."
        )
        assert (
            timers.answer("add a minute to the timer for one hour")
            == "1 minute added: 1 hour and 1 minute left."
        )
        assert timers.answer("pause all timers") == "2 timers paused."
        assert timers.answer("how long is left on the pasta timer") == "Paused with 10 minutes left."
        assert timers.answer("how much time is left") == (
            "The pasta timer is paused with 10 minutes left and the timer for 1 hour is paused with 1 hour"
            " and 1 minute left."
        )
        assert timers.answer("restart the timer for one hour") == "Timer for one hour restarted: 1 hour left."
        assert timers.answer("start the pasta timer again") == "Pasta timer resumed: 10 minutes left."
        now[0] += 600
        await asyncio.sleep(0.2)
        assert said == ["Your pasta timer is done."]
        assert timers.answer("how long until the rice timer is done") == "There is no rice timer running."
        now[0] += 1800  # the hour's timer, running, started again from its full length: said once
        assert timers.answer("restart the timer") == "Timer restarted: 1 hour left."
        now[0] += 3600
        await asyncio.sleep(0.2)
        assert said == ["Your pasta timer is done.", "Your timer for 1 hour is done."]
        assert timers.close() == 0 and errors == []

    asyncio.run(main())


def test_a_paused_timer_stays_paused_across_a_restart(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()

    async def run():
        said: list[str] = []
        timers = Timers(said.append, keep=memory.keep_timer, drop=memory.drop_timer)
        timers.answer("set an egg timer for five minutes")
        timers.answer("pause the egg timer")
        timers.close()
        restarted = Timers(said.append, keep=memory.keep_timer, drop=memory.drop_timer, check_s=0.05)
        restarted.restore(memory.kept_timers())
        left = restarted.answer("how much time is left")
        resumed = restarted.answer("resume the timer")
        restarted.close()
        return left, resumed

    assert asyncio.run(run()) == ("Paused with 5 minutes left.", "Timer resumed: 5 minutes left.")
    [row] = memory.kept_timers()
    assert row["paused_left"] is None
    assert timedelta(minutes=4, seconds=59) < datetime.fromisoformat(row["due_at"]) - datetime.now(UTC)
    memory.close()


@pytest.mark.parametrize(
    "asked",
    ["remind me every two years to renew the passport", "remind me every other year to see the dentist"],
)
def test_a_step_it_cannot_keep_is_said_not_asked_when(asked):
    """It was "When? ..." and then a reminder "every other year to see the dentist", once."""
    timers = Timers(lambda text: None)
    assert timers.answer(asked, MONDAY_10_AM).startswith("I can repeat an alarm or a reminder every day")
    assert timers.running == [] and timers.asked is None
    for task in ("check every month of the calendar", "pay the monthly bill", "book the yearly checkup"):
        request = parse_request(f"remind me to {task} at five p m", MONDAY_10_AM)  # a word of the task
        assert (request.what, request.task, request.months) == ("remind", task, 0)


def test_a_reminder_every_two_days_goes_off_and_is_set_for_two_days_on():
    async def main():
        said, now, timers = _on_a_test_clock()
        assert timers.answer("remind me every other day at nine to feed the fish", MONDAY_10_AM) == (
            "Okay, I'll remind you to feed the fish every 2 days, the next at 9:00 AM tomorrow."
        )
        [reminder] = timers.running
        first = reminder.at
        now[0] = reminder.due + 1
        await asyncio.sleep(0.2)
        assert said == ["Reminder: feed the fish."]
        assert reminder in timers.running and reminder.at.time() == first.time()  # again at nine
        assert reminder.at > first and (reminder.at - first).days % 2 == 0
        timers.close()

    asyncio.run(main())


def test_a_monthly_reminder_goes_off_is_set_for_the_next_month_and_kept_across_a_restart(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()

    async def main():
        said, now, timers = _on_a_test_clock()
        timers.keep, timers.drop = memory.keep_timer, memory.drop_timer
        assert timers.answer("remind me on the first of every month to pay the rent", MONDAY_10_AM) == (
            "At what time on the 1st of every month? Say, for example: at 9 AM."
        )
        assert timers.answer("at nine", MONDAY_10_AM) == (
            "Okay, I'll remind you to pay the rent at 9:00 AM on the 1st of every month, starting January 1."
        )
        assert timers.answer("what are my reminders", MONDAY_10_AM) == (
            "I'll remind you to pay the rent at 9:00 AM on the 1st of every month, the next on January 1."
        )
        [reminder] = timers.running
        assert memory.kept_timers()[0]["months"] == 1 and memory.kept_timers()[0]["month_day"] == 1
        restarted = Timers(lambda text: None)
        assert restarted.restore(memory.kept_timers()) == []
        assert (restarted.running[0].months, restarted.running[0].month_day) == (1, 1)
        restarted.close()
        now[0] = reminder.due + 1
        await asyncio.sleep(0.2)
        assert said == ["Reminder: pay the rent."]
        assert reminder in timers.running and (reminder.at.day, reminder.at.hour, reminder.at.minute) == (
            1,
            9,
            0,
        )
        assert reminder.at > datetime.now()  # the next month's 1st, from the real clock
        timers.close()

    asyncio.run(main())
    memory.close()


def test_a_monthly_reminder_kept_with_a_day_of_no_month_is_dropped():
    timers = Timers(lambda text: None)
    row = {
        "key": "k",
        "kind": "reminder",
        "seconds": 60,
        "due_at": "2027-01-01T09:00:00+00:00",
        "at": "2027-01-01T09:00:00",
        "task": "pay",
        "months": 1,
        "month_day": 32,
        "link": "to",
    }
    assert timers.restore([row]) == [row] and timers.running == []


def test_one_day_of_a_step_of_days_or_months_is_skipped_not_the_whole_reminder():
    """It cancelled the reminder every other day outright; now, as one on weekdays, it skips that day."""

    async def main():
        timers = Timers(lambda text: None)
        timers.answer("remind me every other day at nine to feed the fish", MONDAY_10_AM)  # Tuesday first
        assert timers.answer("cancel my reminder for tomorrow", MONDAY_10_AM) == (
            "Skipped your reminder for 9:00 AM tomorrow: the next is on Thursday."
        )
        timers.answer("cancel my reminder", MONDAY_10_AM)
        timers.answer("remind me on the eighth of every month at nine to pay the rent", MONDAY_10_AM)
        assert timers.answer("skip my next reminder", MONDAY_10_AM) == (
            "Skipped your reminder for 9:00 AM tomorrow: the next is on January 8."
        )
        [reminder] = timers.running
        assert (reminder.at, reminder.months, reminder.month_day) == (datetime(2027, 1, 8, 9, 0), 1, 8)
        timers.close()

    asyncio.run(main())


def test_a_later_day_skipped_is_kept_across_a_restart(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()

    async def run():
        timers = Timers(lambda text: None, keep=memory.keep_timer, drop=memory.drop_timer)
        timers.answer("wake me up at seven on weekdays", MONDAY_10_AM)  # next: Tuesday
        timers.answer("skip my alarm on friday", MONDAY_10_AM)
        timers.close()
        restarted = Timers(lambda text: None, keep=memory.keep_timer, drop=memory.drop_timer)
        assert restarted.restore(memory.kept_timers()) == []
        skips = restarted.alarms[0].skips
        restarted.close()
        return skips

    assert asyncio.run(run()) == {date(2026, 12, 11)}
    assert memory.kept_timers()[0]["skips"] == "2026-12-11"
    memory.close()


def test_one_day_of_a_repeating_alarm_is_skipped_and_a_one_off_cancelled():
    async def main():
        timers = Timers(lambda text: None)
        timers.answer("wake me up at seven on weekdays", MONDAY_10_AM)
        timers.answer("set an alarm for nine tomorrow", MONDAY_10_AM)
        assert timers.answer("skip tomorrow's alarm", MONDAY_10_AM) == (
            "Skipped your alarm for 7:00 AM tomorrow: the next is on Wednesday."
            " Cancelled your alarm for 9:00 AM tomorrow."
        )
        assert timers.answer(
            "cancel my alarm for friday", MONDAY_10_AM
        ) == (  # was "I can only skip the next"
            "Skipped your alarm for 7:00 AM on Friday, December 11, 2026: the other days as ever."
        )
        assert timers.alarms[0].skips == {date(2026, 12, 11)}
        assert timers.answer("skip my alarm on saturday", MONDAY_10_AM) == "There is no alarm for saturday."
        assert (
            timers.answer("when is my next alarm", MONDAY_10_AM)
            == "Your next alarm is at 7:00 AM on Wednesday."
        )
        # set again by the skip from the real clock: hours away from now, whatever the hour
        until = timers.answer("how long until my alarm goes off", MONDAY_10_AM)
        assert re.fullmatch(
            r"Your alarm goes off in (?:1 day, )?\d+ hours.*, at 7:00 AM on Wednesday\.", until
        ), until
        assert timers.answer("skip my next alarm", MONDAY_10_AM) == (
            "Skipped your alarm for 7:00 AM on Wednesday: the next is on Thursday."
        )
        [alarm] = timers.alarms
        assert (alarm.at, alarm.days) == (datetime(2026, 12, 10, 7, 0), "01234")
        # when Thursday's has rung, the next is Monday's: Friday is skipped
        assert next_on(alarm.at, alarm.days, alarm.at, alarm.skips) == datetime(2026, 12, 14, 7, 0)
        timers.answer("remind me to call my mom in an hour", MONDAY_10_AM)
        assert timers.answer("what's my next reminder", MONDAY_10_AM) == (
            "Your next reminder is to call your mom in 1 hour."
        )
        assert timers.answer("how long until my reminder", MONDAY_10_AM) in {
            "Your reminder to call your mom goes off in 1 hour.",
            "Your reminder to call your mom goes off in 59 minutes and 59 seconds.",
        }
        timers.close()

    asyncio.run(main())


def test_an_alarm_is_moved_to_another_time():
    async def main():
        timers = Timers(lambda text: None)
        assert timers.answer("move my alarm to eight", MONDAY_10_AM) == "There is no alarm to move."
        timers.answer("wake me up at seven", MONDAY_10_AM)
        assert (
            timers.answer("move my alarm to seven thirty", MONDAY_10_AM) == "Alarm moved to 7:30 AM tomorrow."
        )
        assert timers.answer("move my alarm to seven p m", MONDAY_10_AM) == "Alarm moved to 7:00 PM."
        assert timers.answer("change my alarm to six thirty a m", MONDAY_10_AM) == (
            "Alarm moved to 6:30 AM tomorrow."
        )
        timers.answer("set an alarm for nine on weekends", MONDAY_10_AM)
        assert timers.answer("move my alarm to ten", MONDAY_10_AM).startswith(
            "Which one? You have alarms for"
        )
        assert timers.answer("move my alarm for nine to ten a m", MONDAY_10_AM) == (
            "Alarm moved to 10:00 AM on weekends."
        )
        assert [(t.at, t.days) for t in timers.alarms] == [
            (datetime(2026, 12, 8, 6, 30), ""), (datetime(2026, 12, 12, 10, 0), "56")
        ]  # fmt: skip
        timers.close()

    asyncio.run(main())


def test_one_asked_back_for_its_time_is_set_by_the_answer_alone():
    """ "For how long?" was answered "ten minutes", which went to the LLM: the user had to say the
    whole request again."""

    async def main():
        said, now, timers = _on_a_test_clock()
        assert timers.answer("set a timer") == "For how long? Say, for example: five minutes."
        assert timers.asking
        assert timers.answer("ten minutes") == "Timer set for 10 minutes."
        assert not timers.asking and timers.answer("ten minutes") is None  # asked once, answered once
        assert timers.answer("set the pasta timer") == "For how long? Say, for example: five minutes."
        assert (
            timers.answer("for eight minutes please") == "Pasta timer set for 8 minutes. You have 2 timers."
        )
        assert timers.answer("remind me to call my mom", MONDAY_10_AM) == (
            "When? Say, for example: in ten minutes, or at 5 PM."
        )
        assert timers.answer("at noon", MONDAY_10_AM) == "Okay, I'll remind you to call your mom at 12:00 PM."
        assert timers.answer("wake me up every weekday", MONDAY_10_AM) == (
            "For what time? Say, for example: 7:30 AM."
        )
        assert timers.answer("make it six thirty", MONDAY_10_AM) == (
            "Alarm set for 6:30 AM on weekdays, starting tomorrow."  # a wake-up: the morning's
        )
        timers.answer("set an alarm", MONDAY_10_AM)
        assert timers.answer("in an hour", MONDAY_10_AM) == "Alarm set for 11:00 AM."
        # the day said without its time is kept: not 9 PM today, "tomorrow to call your mom"
        assert timers.answer("remind me tomorrow to call my mom", MONDAY_10_AM) == (
            "At what time tomorrow? Say, for example: at 5 PM."
        )
        assert (
            timers.answer("at nine", MONDAY_10_AM)
            == "Okay, I'll remind you to call your mom at 9:00 AM tomorrow."
        )
        assert (
            timers.answer("wake me up on friday", MONDAY_10_AM)
            == "For what time Friday? Say, for example: 7:30 AM."
        )
        assert timers.answer("six thirty", MONDAY_10_AM) == "Alarm set for 6:30 AM on Friday."
        timers.answer("set a timer")
        assert timers.answer("what is the capital of france") is None  # something else: the LLM's ...
        assert timers.answer("five minutes") is None  # ... and the question is dropped
        timers.answer("set a timer")
        now[0] += 31  # too late to be the answer
        assert timers.answer("five minutes") is None
        timers.answer("set a timer")
        assert timers.answer("the pasta") is None  # no time: not an answer
        timers.answer("set a timer")
        assert timers.answer("?") is None  # nothing said
        timers.close()

    asyncio.run(main())


def test_snooze_sets_the_alarm_that_rang_again():
    async def main():
        said, now, timers = _on_a_test_clock()
        almost_seven = datetime(2026, 12, 7, 6, 59)
        assert timers.answer("snooze", almost_seven) == "There is no alarm to snooze."
        assert timers.answer("wake me up at seven", almost_seven) == "Alarm set for 7:00 AM."
        now[0] += 60
        await asyncio.sleep(0.2)
        assert said == ["It's 7:00 AM. This is your alarm."]
        seven = datetime(2026, 12, 7, 7, 0)
        assert timers.answer("snooze", seven) == "Snoozed until 7:09 AM."
        assert timers.answer("when is my alarm", seven) == "Your alarm is set for 7:09 AM."
        now[0] += 9 * 60
        await asyncio.sleep(0.2)
        assert said[1:] == ["It's 7:09 AM. This is your alarm."]
        now[0] += 31 * 60  # too long after it rang: nothing to snooze
        assert timers.answer("snooze", datetime(2026, 12, 7, 7, 40)) == "There is no alarm to snooze."
        assert not timers.running

    asyncio.run(main())


def test_one_of_several_is_cancelled_by_what_it_is_for():
    """ "Cancel my alarm for seven" went to the LLM ("I'm sorry for your loss. I'll make sure to cancel
    my alarm at 10:59 AM tomorrow.") and the alarm still rang."""

    async def main():
        timers = Timers(lambda text: None)
        ten_am = datetime(2026, 12, 7, 10, 0)
        for asked in ("set a timer for ten minutes", "set a timer for five minutes", "wake me up at seven",
                      "set an alarm for 6:30 pm", "remind me to call my mom at noon",
                      "remind me about the meeting at three"):  # fmt: skip
            timers.answer(asked, ten_am)
        assert timers.answer("cancel the timer for ten minutes") == "Timer cancelled."
        assert timers.answer("how much time is left") == "5 minutes left."
        assert timers.answer("cancel my alarm for seven", ten_am) == "Alarm cancelled."
        assert timers.answer("cancel the alarm for eight") == "There is no alarm for eight to cancel."
        assert timers.answer("when is my alarm", ten_am) == "Your alarm is set for 6:30 PM."
        assert timers.answer("cancel the reminder to call my mom") == "Reminder cancelled."
        assert (
            timers.answer("what are my reminders", ten_am) == "I'll remind you about the meeting at 3:00 PM."
        )
        assert len(timers.running) == 3
        timers.close()

    asyncio.run(main())


def test_a_named_timer_is_said_by_its_name_and_cancelled_by_it(tmp_path):
    """ "Set a pasta timer for ten minutes" went to the LLM, and no timer was set."""
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()

    async def main():
        said: list[str] = []
        timers = Timers(said.append, keep=memory.keep_timer, drop=memory.drop_timer)
        assert timers.answer("set a pasta timer for ten minutes") == "Pasta timer set for 10 minutes."
        assert (
            timers.answer("set an egg timer for one second")
            == "Egg timer set for 1 second. You have 2 timers."
        )
        assert timers.answer("cancel the rice timer") == "There is no rice timer to cancel."
        await asyncio.sleep(1.3)
        assert said == ["Your egg timer is done."]
        assert timers.answer("how much time is left").startswith("9 minutes and")
        timers.close()
        restarted = Timers(said.append)
        restarted.restore(memory.kept_timers())  # the name is kept with it
        assert restarted.running[0].title == "pasta timer"
        assert restarted.answer("cancel the pasta timer") == "Timer cancelled."
        assert not restarted.running

    asyncio.run(main())
    memory.close()


def test_a_timer_goes_off_when_due_and_can_be_asked_about_and_cancelled():
    async def main():
        said: list[tuple[float, str]] = []
        timers = Timers(lambda text: said.append((time.monotonic(), text)))
        assert timers.answer("how much time is left") == "There is no timer running."
        start = time.monotonic()
        assert timers.answer("set a timer for one second") == "Timer set for 1 second."
        assert timers.answer("set a timer for two minutes") == "Timer set for 2 minutes. You have 2 timers."
        assert timers.answer("how much time is left") == (
            "The timer for 1 second has 1 second left and the timer for 2 minutes has 2 minutes left."
        )
        await asyncio.sleep(1.3)
        assert [text for _, text in said] == ["Your timer for 1 second is done."]
        assert 1.0 <= said[0][0] - start < 1.2
        assert timers.answer("how much time is left") in {
            "1 minute and 59 seconds left.",
            "1 minute and 58 seconds left.",
        }
        assert timers.answer("cancel the timer") == "Timer cancelled."
        assert timers.answer("cancel the timer") == "There is no timer to cancel."
        assert timers.answer("set a timer for one second") == "Timer set for 1 second."
        assert timers.close() == 1
        await asyncio.sleep(1.3)
        assert len(said) == 1  # cancelled and closed timers say nothing
        assert timers.answer("what is the capital of france") is None

    asyncio.run(main())


def test_an_alarm_goes_off_at_its_time_and_can_be_asked_about_and_cancelled():
    async def main():
        said: list[str] = []
        alarms = Timers(said.append)
        almost_seven = datetime(2026, 12, 7, 6, 59, 59)  # one real second before 7 AM, for the alarm
        assert alarms.answer("when is my alarm", almost_seven) == "There is no alarm set."
        assert alarms.answer("wake me up at seven", almost_seven) == "Alarm set for 7:00 AM."
        assert alarms.answer("set an alarm for 6:30 am", almost_seven) == "Alarm set for 6:30 AM tomorrow."
        assert alarms.answer("when is my alarm", almost_seven) == (
            "Your alarms are set for 7:00 AM and 6:30 AM tomorrow."
        )
        assert alarms.answer("how much time is left", almost_seven) == "There is no timer running."
        await asyncio.sleep(1.3)
        assert said == ["It's 7:00 AM. This is your alarm."]
        assert alarms.answer("cancel the timer") == "There is no timer to cancel."  # alarms are not timers
        assert alarms.answer("cancel the alarm") == "Alarm cancelled."
        assert alarms.answer("set an alarm for pasta") == "For what time? Say, for example: 7:30 AM."
        assert not alarms.running

    asyncio.run(main())


def test_a_timer_due_while_the_computer_slept_is_said_on_waking_and_says_how_late():
    """A suspend stops the event loop's clock; `Timers.clock` (here one the test moves, as a sleep
    would) does not: what fell due in it is said within check_s of waking, as late."""

    async def main():
        said, now, timers = _on_a_test_clock()
        eight_pm = datetime(2026, 12, 6, 20, 0)
        assert timers.answer("set a timer for five minutes") == "Timer set for 5 minutes."
        assert timers.answer("wake me up at seven", eight_pm) == "Alarm set for 7:00 AM tomorrow."
        assert timers.answer("set a timer for ten hours") == "Timer set for 10 hours. You have 2 timers."
        await asyncio.sleep(0.2)
        assert said == []  # awake, no time passed on its clock: nothing is due
        now[0] += 2 * 3600  # asleep two hours
        await asyncio.sleep(0.2)
        assert said == [
            "Your timer for 5 minutes ended 1 hour and 55 minutes ago, while this computer was asleep."
        ]
        assert timers.answer("how much time is left") == "8 hours left."
        now[0] += 8 * 3600 + 2  # asleep until 6:00:02, ten hours after eight
        await asyncio.sleep(0.2)
        assert said[1:] == ["Your timer for 10 hours is done."]  # two seconds late: on time
        now[0] += 2.5 * 3600  # asleep until 8:30
        await asyncio.sleep(0.2)
        assert said[2:] == ["Your alarm for 7:00 AM is 1 hour and 30 minutes late: this computer was asleep."]
        assert not timers.running

    asyncio.run(main())


def test_a_reminder_says_what_it_is_for_when_due_and_can_be_asked_about():
    """The LLM said "I'll be calling you at 6 pm tomorrow" and set nothing."""

    async def main():
        said, now, timers = _on_a_test_clock()
        five_pm = datetime(2026, 12, 6, 17, 0)
        assert timers.answer("remind me to call my mom in ten minutes", five_pm) == (
            "Okay, I'll remind you to call your mom in 10 minutes."
        )
        assert timers.answer("remind me to take out the trash at 7 pm", five_pm) == (
            "Okay, I'll remind you to take out the trash at 7:00 PM."
        )
        assert timers.answer("remind me to buy milk", five_pm).startswith("When?")
        assert timers.answer("how much time is left") == "There is no timer running."  # not timers
        now[0] += 60
        assert timers.answer("what are my reminders", five_pm) == (
            "I'll remind you to call your mom in 9 minutes and to take out the trash at 7:00 PM."
        )
        now[0] += 9 * 60
        await asyncio.sleep(0.2)
        assert said == ["Reminder: call your mom."]
        assert timers.answer("cancel the reminder") == "Reminder cancelled."
        assert not timers.running

    asyncio.run(main())


def test_those_not_yet_due_outlive_a_restart_in_the_memory_file(tmp_path):
    """Kept in a real SQLite file while set; a new run (a new Timers on the file) runs them again,
    and one that fell due while no assistant ran goes off at once, saying so."""
    cfg = MemoryConfig(path=str(tmp_path / "memory.db"))

    async def first_run(memory):
        timers = Timers(lambda text: None, keep=memory.keep_timer, drop=memory.drop_timer)
        ten_am = datetime.now().replace(hour=10, minute=0)
        timers.answer("set a timer for twenty minutes")
        timers.answer("remind me to call my mom in an hour", ten_am)
        timers.answer("set a timer for five minutes")
        timers.answer("wake me up at seven", ten_am)
        assert timers.answer("cancel the alarm") == "Alarm cancelled."
        return timers.close()

    memory = Memory(cfg).build()
    assert asyncio.run(first_run(memory)) == 3
    kept = memory.kept_timers()
    assert [(row["kind"], row["seconds"], row["task"]) for row in kept] == [
        ("timer", 300, None), ("timer", 1200, None), ("reminder", 3600, "call your mom")
    ]  # fmt: skip
    # as if the assistant had been stopped for two hours and ten minutes since
    for row in kept:
        moved = datetime.fromisoformat(row["due_at"]) - timedelta(hours=2, minutes=10)
        memory.keep_timer(row | {"due_at": moved.isoformat()})
    memory.close()

    async def second_run(memory):
        said: list[str] = []
        timers = Timers(said.append, keep=memory.keep_timer, drop=memory.drop_timer, check_s=0.05)
        assert timers.restore(memory.kept_timers()) == []  # none unreadable
        assert len(timers.running) == 3
        await asyncio.sleep(0.3)
        return said, timers.close()

    memory = Memory(cfg).build()
    said, still = asyncio.run(second_run(memory))
    assert said == [
        "Your timer for 5 minutes ended 2 hours and 5 minutes ago, while the assistant was not running.",
        "Your timer for 20 minutes ended 1 hour and 50 minutes ago, while the assistant was not running.",
        "Reminder, 1 hour and 10 minutes late: call your mom.",
    ]
    assert still == 0 and memory.kept_timers() == []  # gone off: no longer kept
    memory.close()


def test_a_restored_alarm_not_yet_due_rings_at_its_time(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()
    due = datetime.now(UTC) + timedelta(seconds=0.5)
    at = datetime.now() + timedelta(seconds=0.5)
    memory.keep_timer({"key": "k", "kind": "alarm", "seconds": 3600, "due_at": due.isoformat(),
                       "at": at.isoformat(), "task": None, "link": "to"})  # fmt: skip

    async def run():
        said: list[str] = []
        timers = Timers(said.append, keep=memory.keep_timer, drop=memory.drop_timer, check_s=0.05)
        timers.restore(memory.kept_timers())
        assert timers.answer("when is my alarm", datetime.now()).startswith("Your alarm is set for")
        await asyncio.sleep(0.2)
        assert said == []
        await asyncio.sleep(0.6)
        return said

    assert asyncio.run(run()) == [f"It's {clock.time_of_day(at)}. This is your alarm."]
    assert memory.kept_timers() == []
    memory.close()


def test_a_kept_row_that_cannot_be_read_is_dropped_and_the_others_run(tmp_path):
    memory = Memory(MemoryConfig(path=str(tmp_path / "memory.db"))).build()
    due = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    good = {
        "key": "good",
        "kind": "timer",
        "seconds": 3600,
        "due_at": due,
        "at": None,
        "task": None,
        "link": "to",
    }
    memory.keep_timer(good)
    memory.keep_timer(good | {"key": "bad", "due_at": "next tuesday"})  # a file edited by hand
    memory.keep_timer(good | {"key": "bad days", "days": "weekdays"})  # set again at which time?
    memory.keep_timer(good | {"key": "bad pause", "paused_left": "a while"})

    async def run():
        timers = Timers(lambda text: None, keep=memory.keep_timer, drop=memory.drop_timer)
        unreadable = timers.restore(memory.kept_timers())
        left = timers.answer("how much time is left")
        timers.close()
        return unreadable, left

    unreadable, left = asyncio.run(run())
    assert sorted(row["key"] for row in unreadable) == ["bad", "bad days", "bad pause"]
    assert left.startswith("59 minutes and") or left == "1 hour left."
    assert [row["key"] for row in memory.kept_timers()] == ["good"]
    memory.close()
