"""This computer's own state, read from it: battery, disk, memory, address, uptime."""

import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from assistant import computer


def test_the_battery_is_this_computers():
    """Asked how much battery was left, the LLM said "1.2V, 3085mAh battery"."""
    said = computer.answer("How much battery do I have?")
    if psutil.sensors_battery() is None:  # this machine (a server, as in CI) has none
        assert said == "I can't find a battery on this computer."
    else:
        assert re.fullmatch(r"Your battery is at \d+ percent.*", said), said


@pytest.mark.parametrize(
    ("battery", "says"),
    [
        ((100, 0, True), "Your battery is at 100 percent, fully charged: the computer is plugged in."),
        ((73.4, 0, True), "Your battery is at 73 percent, charging: the computer is plugged in."),
        ((41, 7800, False), "Your battery is at 41 percent: about 2 hours and 10 minutes left."),
        ((41, psutil.POWER_TIME_UNKNOWN, False), "Your battery is at 41 percent."),
    ],
)
def test_a_laptops_battery_is_said_as_it_stands(monkeypatch, battery, says):
    """psutil's reading as a laptop gives it (this machine has no battery to read)."""
    percent, secsleft, plugged = battery
    reading = SimpleNamespace(percent=percent, secsleft=secsleft, power_plugged=plugged)  # psutil's fields
    monkeypatch.setattr(psutil, "sensors_battery", lambda: reading)
    assert computer.answer("what's my battery level") == says
    assert computer.answer("is my laptop charging") == says


def test_disk_memory_and_uptime_are_read_from_this_computer():
    usage = shutil.disk_usage(Path.home())
    free = usage.free / 1e9
    shown = f"{free:.1f}" if free < 10 else str(round(free))
    assert computer.answer("How much disk space do I have left?").startswith(
        f"You have {shown} gigabytes free of "
    )
    total = psutil.virtual_memory().total / 1e9
    shown = f"{total:.1f}" if total < 10 else str(round(total))
    assert computer.answer("how much memory does this computer have").startswith(
        f"This computer has {shown} gigabytes"
    )
    assert re.fullmatch(
        r"This computer has been on for .+, since \d+:\d\d [AP]M \w+\.|.+, since \w+day, \w+ \d+, \d{4}\.",
        computer.answer("How long has my computer been on?"),
    )


def test_the_address_is_this_computers_on_its_network(monkeypatch):
    """Asked its IP address, the LLM said "I'm a helpful voice assistant running on the user's laptop."."""
    said = computer.answer("What's my IP address?")
    ours = {
        a.address
        for addresses in psutil.net_if_addrs().values()
        for a in addresses
        if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", a.address) and not a.address.startswith(("127.", "169.254."))
    }
    if ours:  # spoken dot by dot
        assert any(f"is {a.replace('.', ' dot ')}." in said for a in ours), said
    assert said.endswith("Your public address I can't know: I don't use the internet.")
    loopback = psutil.net_if_addrs()["lo"]
    monkeypatch.setattr(psutil, "net_if_addrs", lambda: {"lo": loopback})
    assert computer.answer("what is my ip").startswith("This computer is on no network now.")


@pytest.mark.parametrize(
    "asked",
    ["What is the battery of a car?", "How much memory does a goldfish have?", "What's an IP address?"],
)
def test_other_questions_are_the_llms(asked):
    assert computer.answer(asked) is None
