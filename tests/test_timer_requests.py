"""Requests about timers, alarms and reminders: spoken durations and times of day, what is asked,
and when the repeating ones fall next."""

import time
from datetime import date, datetime

import pytest

from assistant.timer_requests import (
    Request,
    fill,
    next_clock_time,
    next_in_months,
    next_step,
    parse_duration,
    parse_request,
    seconds_until,
    spoken_duration,
)

TEN_PM = datetime(2026, 12, 6, 22, 0)


@pytest.mark.parametrize(
    ("words", "seconds"),
    [
        ("five minutes", 300),
        ("twenty five minutes", 1500),  # as the normalizer spells 25
        ("a minute", 60),
        ("ninety seconds", 90),
        ("an hour and a half", 5400),
        ("one hour and thirty minutes", 5400),
        ("one minute thirty seconds", 90),
        ("half an hour", 1800),
        ("a minute and a half", 90),
        ("five minute", 300),  # "a five minute timer"
        ("two days", 172800),  # "remind me in two days to ...": was asked back "For how long?"
        ("a week", 604800),
        ("the pasta", None),
        ("ten", None),
        ("", None),
    ],
)
def test_spoken_durations(words, seconds):
    assert parse_duration(words) == seconds


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("Set a timer for 5 minutes.", Request("set", 300)),
        ("set a five minute timer", Request("set", 300)),
        ("Timer for 10 minutes", Request("set", 600)),
        ("Hey, can you start a timer for an hour and a half, please?", Request("set", 5400)),
        ("set a timer for the pasta", Request("set", None)),  # a timer, but how long: asked back
        ("Cancel the timer.", Request("cancel")),
        ("stop all timers", Request("cancel")),
        ("cancel my alarm", Request("cancel", kind="alarm")),
        ("cancel tomorrow's alarm", Request("cancel", kind="alarm", when="tomorrow")),
        ("skip my alarm on friday", Request("cancel", kind="alarm", when="friday")),
        ("skip my next alarm", Request("cancel", kind="alarm", when="next")),
        ("how long until my alarm goes off", Request("when", kind="alarm", when="until")),
        ("when does my alarm go off", Request("when", kind="alarm", when="until")),
        ("How much time is left?", Request("left")),
        ("much time is left", Request("left")),  # "how" lost by the recognizer
        ("much longer", None),
        ("how long is left on the timer", Request("left")),
        ("When is my alarm?", Request("when", kind="alarm")),
        # asked another way (the LLM had answered these, and set nothing)
        ("set timer ten minutes", Request("set", 600)),
        ("set another timer for two minutes", Request("set", 120)),
        ("set a timer", Request("set", None)),  # for how long? asked back
        ("do I have any timers", Request("left")),
        ("what reminders do I have", Request("when", kind="reminder")),
        ("do I have any alarms set", Request("when", kind="alarm")),
        ("pause the timer", Request("pause")),
        ("pause the pasta timer", Request("pause", name="pasta")),
        ("resume the timer", Request("resume")),
        ("start the timer again", Request("resume")),
        ("restart the timer for ten minutes", Request("restart", which="for ten minutes")),
        ("start the timer", Request("set", None)),  # a new one: for how long? asked back
        ("add five minutes to the timer", Request("change", 300)),
        ("add five more minutes to the pasta timer", Request("change", 300, name="pasta")),
        ("put another minute on the timer", Request("change", 60)),
        ("extend the timer by thirty seconds", Request("change", 30)),
        ("take two minutes off the timer", Request("change", -120)),
        ("pause the alarm", Request("cannot")),
        ("add ten minutes to my alarm", Request("cannot")),
        ("move my alarm to seven thirty", Request("move", kind="alarm", when="seven thirty")),
        (
            "change the alarm for seven to eight",
            Request("move", kind="alarm", which="for seven", when="eight"),
        ),
        ("how much time is left on the pasta timer", Request("left", name="pasta")),
        ("how long until the egg timer goes off", Request("left", name="egg")),
        ("how long is left on the timer for ten minutes", Request("left", which="for ten minutes")),
        ("snooze", Request("snooze", 540)),
        ("snooze for five minutes", Request("snooze", 300)),
        # not (only) about a timer: the LLM's
        ("I hate this pasta timer", None),
        ("Set an alarm clock on fire.", None),
        ("wake me up when it's over", None),
        ("the timer is beeping", None),
        ("How long is a minute?", None),
        ("What is a timer?", None),
        ("add salt to the timer", None),
        ("pause the music", None),
    ],
)
def test_requests(said, parsed):
    assert parse_request(said) == parsed


@pytest.mark.parametrize(
    ("said", "at"),
    [
        ("Wake me up at 7.", datetime(2026, 12, 7, 7, 0)),  # the sooner of 7 AM and 7 PM
        ("set an alarm for 6:45 pm", datetime(2026, 12, 7, 18, 45)),
        ("Set an alarm for seven thirty in the morning.", datetime(2026, 12, 7, 7, 30)),
        ("set an alarm for 10:30", datetime(2026, 12, 6, 22, 30)),  # tonight, in half an hour
        ("alarm for 19:30", datetime(2026, 12, 7, 19, 30)),
        ("set an alarm for 7:05", datetime(2026, 12, 7, 7, 5)),
        ("set an alarm for pasta", None),  # an alarm, but when: asked back
        ("set an alarm for 25", None),
    ],
)
def test_alarm_times_are_the_next_such_moment(said, at):
    request = parse_request(said, TEN_PM)
    assert request.what == "alarm" and request.at == at
    assert request.seconds == (None if at is None else (at - TEN_PM).total_seconds())


def test_tomorrow_is_tomorrow_even_when_the_time_is_still_to_come_today():
    five_am = datetime(2026, 12, 6, 5, 0)
    assert next_clock_time("seven", five_am) == datetime(2026, 12, 6, 7, 0)
    assert parse_request("wake me up at seven tomorrow", five_am).at == datetime(2026, 12, 7, 7, 0)


@pytest.mark.parametrize(
    ("said", "at"),
    [
        # the sooner reading (9 PM, 7 PM, 1 AM) was taken, then moved a day on
        ("remind me to call my mom at 9 tomorrow", datetime(2026, 12, 8, 9, 0)),
        ("remind me to call my mom at one tomorrow", datetime(2026, 12, 8, 13, 0)),
        ("remind me to call my mom at twelve tomorrow", datetime(2026, 12, 8, 12, 0)),
        ("set an alarm for seven tomorrow morning", datetime(2026, 12, 8, 7, 0)),
        ("remind me to water the plants at nine tomorrow morning", datetime(2026, 12, 8, 9, 0)),
        ("remind me to lock up at ten tomorrow night", datetime(2026, 12, 8, 22, 0)),
        ("remind me to call Ann at eight tomorrow evening", datetime(2026, 12, 8, 20, 0)),
        ("set an alarm for 6:30 pm tomorrow", datetime(2026, 12, 8, 18, 30)),
        ("alarm for 19:30 tomorrow", datetime(2026, 12, 8, 19, 30)),
        ("wake me up at five tomorrow", datetime(2026, 12, 8, 5, 0)),  # a wake-up: a.m.
        ("remind me to take out the trash at six this evening", datetime(2026, 12, 7, 18, 0)),
    ],
)
def test_a_time_tomorrow_is_read_as_daytime_unless_said_otherwise(said, at):
    ten_am = datetime(2026, 12, 7, 10, 0)
    assert parse_request(said, ten_am).at == at


TOMORROW_9AM = datetime(2026, 12, 8, 9, 0)


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        # the time before the task, or "tomorrow" before the time, was asked back or misread
        (
            "remind me to call my mom tomorrow at nine",
            Request("remind", at=TOMORROW_9AM, task="call your mom"),
        ),
        (
            "remind me tomorrow at nine to call my mom",
            Request("remind", at=TOMORROW_9AM, task="call your mom"),
        ),
        (
            "remind me at nine tomorrow to call my mom",
            Request("remind", at=TOMORROW_9AM, task="call your mom"),
        ),
        (
            "tomorrow at nine, remind me to call my mom",
            Request("remind", at=TOMORROW_9AM, task="call your mom"),
        ),
        (
            "set a reminder for 9 tomorrow to call my mom",
            Request("remind", at=TOMORROW_9AM, task="call your mom"),
        ),
        ("remind me in ten minutes to check the oven", Request("remind", 600, task="check the oven")),
        (
            "I need you to remind me to check the oven in ten minutes",
            Request("remind", 600, task="check the oven"),
        ),
        ("remind me at five to leave", Request("remind", at=datetime(2026, 12, 7, 17, 0), task="leave")),
        (
            "remind me to go to the store at six",
            Request("remind", at=datetime(2026, 12, 7, 18), task="go to the store"),
        ),
        (
            "remind me to put the cake in the oven in ten minutes",
            Request("remind", 600, task="put the cake in the oven"),
        ),
        # the day without its time: asked back, the day kept for the answer ("at nine")
        ("remind me tomorrow to call my mom", Request("remind", task="call your mom", when="tomorrow")),
        # "at eight" misheard "a eight" (bench_requests.py) was set for 1:08 PM: no time, asked back
        (
            "remind me tomorrow a eight to call the dentist",
            Request("remind", task="tomorrow a eight to call the dentist"),
        ),
        ("remind me to call my mom tomorrow", Request("remind", task="call your mom", when="tomorrow")),
        ("remind me on friday to pay rent", Request("remind", task="pay rent", when="on friday")),
    ],
)
def test_a_reminder_is_heard_wherever_its_time_is_said(said, asked):
    ten_am = datetime(2026, 12, 7, 10, 0)
    if asked.at is not None:
        asked = asked._replace(seconds=int((asked.at - ten_am).total_seconds()))
    assert parse_request(said, ten_am) == asked


@pytest.mark.parametrize(
    ("said", "at"),
    [
        ("set an alarm for tomorrow at seven", datetime(2026, 12, 8, 7, 0)),
        ("wake me up tomorrow at seven", datetime(2026, 12, 8, 7, 0)),
        ("set an alarm for tomorrow morning at six thirty", datetime(2026, 12, 8, 6, 30)),
        ("wake me up tomorrow", None),  # for what time? asked back
        ("set an alarm for the morning", None),
    ],
)
def test_an_alarm_for_tomorrow_at_a_time(said, at):
    request = parse_request(said, datetime(2026, 12, 7, 10, 0))
    assert request.what == "alarm" and request.at == at


def test_an_alarm_in_a_while_is_set_for_the_time_it_will_be_then():
    ten_am = datetime(2026, 12, 7, 10, 0)
    assert parse_request("wake me up in an hour", ten_am) == Request(
        "alarm", 3600, at=datetime(2026, 12, 7, 11, 0)
    )
    assert parse_request("set an alarm in 20 minutes", ten_am).at == datetime(2026, 12, 7, 10, 20)


MONDAY_10_AM = datetime(2026, 12, 7, 10, 0)


@pytest.mark.parametrize(
    ("said", "at", "days"),
    [
        ("wake me up at seven every day", datetime(2026, 12, 8, 7, 0), "0123456"),
        ("wake me up at seven on weekdays", datetime(2026, 12, 8, 7, 0), "01234"),
        ("wake me up at six every day", datetime(2026, 12, 8, 6, 0), "0123456"),  # a wake-up: a.m.
        ("set an alarm for ten every night", datetime(2026, 12, 7, 22, 0), "0123456"),
        ("set an alarm for nine every weekend", datetime(2026, 12, 12, 9, 0), "56"),
        ("set an alarm for 6:30 pm every monday and thursday", datetime(2026, 12, 7, 18, 30), "03"),
        ("set an alarm for eight on tuesdays", datetime(2026, 12, 8, 8, 0), "1"),
        ("remind me every morning at eight to take my pills", datetime(2026, 12, 8, 8, 0), "0123456"),
        ("remind me everyday at nine to take my pills", datetime(2026, 12, 8, 9, 0), "0123456"),  # as heard
        ("remind me to water the plants every sunday at nine", datetime(2026, 12, 13, 9, 0), "6"),
        ("remind me to stretch every day in an hour", datetime(2026, 12, 7, 11, 0), "0123456"),
        ("wake me up on friday at six", datetime(2026, 12, 11, 6, 0), ""),  # once
        ("set an alarm for seven on monday", datetime(2026, 12, 14, 7, 0), ""),  # today's is a week on
        ("remind me to call mom monday evening at eight", datetime(2026, 12, 14, 20, 0), ""),
    ],
)
def test_alarms_and_reminders_on_days_of_the_week(said, at, days):
    request = parse_request(said, MONDAY_10_AM)
    assert (request.at, request.days) == (at, days)
    assert request.seconds == (at - MONDAY_10_AM).total_seconds()


@pytest.fixture
def new_york(monkeypatch):
    """The process's local time zone, one with summer time (2026: from March 8, 2 AM)."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_an_alarm_across_the_start_of_summer_time_rings_at_its_time_of_day(new_york):
    saturday_10_am = datetime(2026, 3, 7, 10, 0)
    request = parse_request("wake me up at seven", saturday_10_am)
    assert request.at == datetime(2026, 3, 8, 7, 0)
    assert request.seconds == 20 * 3600  # not 21: the clocks go forward an hour that night
    every_day = parse_request("wake me up at seven every day", datetime(2026, 3, 8, 7, 0, 1))
    assert every_day.at == datetime(2026, 3, 9, 7, 0) and every_day.seconds == 24 * 3600 - 1


@pytest.mark.parametrize(
    ("said", "every"),
    [
        ("remind me every hour to drink water", 3600),
        ("remind me to stretch every thirty minutes", 1800),
        ("remind me every half hour to check the oven", 1800),
        ("remind me every hour and a half to walk", 5400),
        ("remind me to drink water every two hours", 7200),
    ],
)
def test_a_reminder_every_so_often(said, every):
    request = parse_request(said, MONDAY_10_AM)
    assert (request.what, request.seconds, request.every, request.at) == ("remind", every, every, None)


@pytest.mark.parametrize(
    ("asked", "seconds", "at", "every"),
    [
        # no time of day said: the first a step from now, then at that time of day
        ("remind me every two days to water the plants", 2 * 86400, datetime(2026, 12, 9, 10, 0), 2 * 86400),
        (
            "remind me every other day at nine to feed the fish",
            23 * 3600,
            datetime(2026, 12, 8, 9, 0),
            2 * 86400,
        ),
        ("remind me every week to take out the trash", 7 * 86400, datetime(2026, 12, 14, 10, 0), 7 * 86400),
        ("remind me every fortnight to call grandma", 14 * 86400, datetime(2026, 12, 21, 10, 0), 14 * 86400),
        ("wake me up every two days at seven", 21 * 3600, datetime(2026, 12, 8, 7, 0), 2 * 86400),
    ],
)
def test_a_step_of_days_or_weeks_keeps_its_time_of_day(asked, seconds, at, every):
    """It was asked back "When?" and then set once, "every two days to water the plants" as its task."""
    request = parse_request(asked, MONDAY_10_AM)
    assert (request.seconds, request.at, request.every) == (seconds, at, every)
    assert "every" not in request.task


def test_the_next_of_a_step_of_days_is_on_the_wall_clock():
    nine = datetime(2026, 3, 6, 9, 0)  # summer time begins on March 8 in New York: still at nine
    assert next_step(nine, 2 * 86400, nine) == datetime(2026, 3, 8, 9, 0)
    assert next_step(nine, 2 * 86400, datetime(2026, 3, 11, 12, 0)) == datetime(2026, 3, 12, 9, 0)  # asleep


@pytest.mark.parametrize(
    ("asked", "at", "months", "month_day", "task"),
    [
        # this month's day if still to come, else the next month's (it was "not every month yet")
        ("remind me on the first of every month at nine to pay the rent",
         datetime(2027, 1, 1, 9), 1, 1, "pay the rent"),
        ("remind me every month on the fifteenth at noon to water the cactus",
         datetime(2026, 12, 15, 12), 1, 15, "water the cactus"),
        ("remind me to back up the photos every month at eight p m",
         datetime(2026, 12, 7, 20), 1, 7, "back up the photos"),
        ("remind me at nine on the seventh of every month to pay rent",
         datetime(2027, 1, 7, 9), 1, 7, "pay rent"),
        ("remind me every other month on the tenth at nine to see the dentist",
         datetime(2026, 12, 10, 9), 2, 10, "see the dentist"),
        ("remind me every three months at nine to change the filter",
         datetime(2027, 1, 7, 9), 3, 7, "change the filter"),
        ("remind me monthly at ten to check the bills", datetime(2027, 1, 7, 10), 1, 7, "check the bills"),
        ("wake me up at seven on the first of every month", datetime(2027, 1, 1, 7), 1, 1, ""),
        # "on" heard "in" (10 of 12 held-out voices, scripts/bench_requests.py)
        ("remind me in the first of every month at nine to pay the rent",
         datetime(2027, 1, 1, 9), 1, 1, "pay the rent"),
        # every year, on the day said
        ("remind me every year on march third at ten to call grandma",
         datetime(2027, 3, 3, 10), 12, 3, "call grandma"),
        ("remind me at nine on december twenty fifth every year to call home",
         datetime(2026, 12, 25, 9), 12, 25, "call home"),
    ],
)  # fmt: skip
def test_a_step_of_months_or_a_year_falls_on_its_day_of_the_month(asked, at, months, month_day, task):
    request = parse_request(asked, MONDAY_10_AM)
    assert (request.at, request.months, request.month_day, request.task) == (at, months, month_day, task)
    assert request.seconds == seconds_until(at, MONDAY_10_AM)


def test_the_next_of_a_step_of_months_is_its_day_or_a_shorter_months_last():
    end = datetime(2027, 1, 31, 9, 0)
    assert next_in_months(end, 1, 31, end) == datetime(2027, 2, 28, 9, 0)
    assert next_in_months(datetime(2027, 2, 28, 9, 0), 1, 31, datetime(2027, 2, 28, 9, 0)) == datetime(
        2027, 3, 31, 9
    )
    assert next_in_months(end, 3, 31, end) == datetime(2027, 4, 30, 9, 0)
    leap = datetime(2028, 2, 29, 9, 0)
    assert next_in_months(leap, 12, 29, leap) == datetime(2029, 2, 28, 9, 0)
    assert next_in_months(datetime(2029, 2, 28, 9), 12, 29, datetime(2029, 2, 28, 9)) == datetime(
        2030, 2, 28, 9
    )
    assert next_in_months(end, 1, 31, end, skips=frozenset({date(2027, 2, 28)})) == datetime(2027, 3, 31, 9)


@pytest.mark.parametrize(
    ("asked", "answer", "filled"),
    [
        (Request("set", None), "an hour and a half", Request("set", 5400)),
        (Request("set", None, name="egg"), "for six minutes", Request("set", 360, name="egg")),
        (Request("set", None), "tomorrow", None),
        (
            Request("alarm", None, part="morning"),
            "at seven",
            Request("alarm", 75600, at=datetime(2026, 12, 8, 7, 0)),
        ),
        (Request("alarm", None), "seven", Request("alarm", 32400, at=datetime(2026, 12, 7, 19, 0))),
        (Request("alarm", None), "seven tomorrow", Request("alarm", 75600, at=datetime(2026, 12, 8, 7, 0))),
        (Request("alarm", None), "friday at nine", Request("alarm", 342000, at=datetime(2026, 12, 11, 9, 0))),
        (Request("remind", None, task="eat"), "in ten minutes", Request("remind", 600, task="eat")),
        (
            Request("remind", None, task="eat", part="day"),
            "at nine",
            Request("remind", 82800, at=datetime(2026, 12, 8, 9, 0), task="eat"),
        ),
    ],
)
def test_the_answer_to_when(asked, answer, filled):
    assert fill(asked, answer, MONDAY_10_AM) == filled


@pytest.mark.parametrize(
    ("said", "at"),
    [
        ("remind me to call my mom at noon", datetime(2026, 12, 7, 12, 0)),
        ("set an alarm for midnight", datetime(2026, 12, 8, 0, 0)),
        ("remind me at noon tomorrow to eat", datetime(2026, 12, 8, 12, 0)),
    ],
)
def test_noon_and_midnight(said, at):
    assert parse_request(said, datetime(2026, 12, 7, 10, 0)).at == at


@pytest.mark.parametrize(
    ("said", "parsed"),
    [
        ("set a pasta timer for ten minutes", Request("set", 600, name="pasta")),
        ("set a ten minute egg timer", Request("set", 600, name="egg")),
        ("set a timer called pasta for ten minutes", Request("set", 600, name="pasta")),
        ("set a timer for ten minutes for the pasta", Request("set", 600, name="pasta")),
        ("start the oven timer for 20 minutes", Request("set", 1200, name="oven")),
        ("set a ten minute timer for my big pot of stew", Request("set", 600)),  # too long for a name
        ("set the pasta timer", Request("set", None, name="pasta")),  # for how long? asked back
        ("cancel the pasta timer", Request("cancel", name="pasta")),
        ("this pasta timer", None),
        ("I hate this big pasta timer", None),
    ],
)
def test_named_timers(said, parsed):
    assert parse_request(said) == parsed


def test_spoken_duration_in_digits_and_words():
    assert spoken_duration(0) == "0 seconds"  # a stopwatch just started (it raised IndexError)
    assert spoken_duration(1) == "1 second"
    assert spoken_duration(90) == "1 minute and 30 seconds"
    assert spoken_duration(3725) == "1 hour, 2 minutes and 5 seconds"
    assert spoken_duration(162000) == "1 day and 21 hours"  # was "45 hours"


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("remind me to call my mom in ten minutes", Request("remind", 600, task="call your mom")),
        ("In an hour, remind me to check the oven.", Request("remind", 3600, task="check the oven")),
        (
            "remind me that the oven is on in five minutes",
            Request("remind", 300, task="the oven is on", link="that"),
        ),
        ("remind me in ten minutes", Request("remind", 600)),
        ("remind me that i am late in a minute", Request("remind", 60, task="you are late", link="that")),
        (
            "remind me that the bus was moved in a minute",
            Request("remind", 60, task="the bus was moved", link="that"),
        ),
        # no time said: asked back; an "in ..." that is no duration is part of the task
        ("remind me to buy milk", Request("remind", task="buy milk")),
        ("remind me to put the cake in the oven", Request("remind", task="put the cake in the oven")),
        ("cancel the reminder", Request("cancel", kind="reminder")),
        ("what are my reminders", Request("when", kind="reminder")),
    ],
)
def test_reminder_requests(said, asked):
    assert parse_request(said, datetime(2026, 12, 6, 16, 0)) == asked
