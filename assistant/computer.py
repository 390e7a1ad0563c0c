"""This computer's own state, read from it (psutil and the standard library) instead of made up by the
LLM: the battery, free disk space, memory, the network address, how long it has been on.

Asked how much battery was left, the embedded LLM said "1.2V, 3085mAh battery ... measured on a scale
from 0 to 7"; its IP address, "I'm a helpful voice assistant running on the user's laptop."; how
long the computer had been on, "I'm sorry for your loss" (first turns through `LocalLlm`,
2026-12-08). The assistant runs on the laptop it is asked about, so these are read at once, on the
spot. Nothing is looked up outside it: the public address is not known, and said so. Matched whole
on `asr.text.normalize()`d text.

    computer.answer("how much battery do i have")    # "Your battery is at 73 percent: about 2 hours ..."
    computer.answer("how much disk space do i have")  # "You have 72 gigabytes free of 271 on this disk, ..."
"""

from __future__ import annotations

import ipaddress
import shutil
import time
from datetime import datetime
from pathlib import Path

from assistant import phrases
from assistant.asr.text import normalize
from assistant.clock import DAYS, date_of, time_of_day
from assistant.timer_requests import spoken_duration

_MY = r"(?:my|this|the)(?: computer's| laptop's)?"
_MACHINE = r"(?:my|this|the) (?:computer|laptop|machine|pc|mac)"
_PATTERNS = phrases.requests(
    {
        "battery": rf"how much (?:battery|charge)(?: life)? (?:do i have|is left|have i got|does {_MACHINE}"
        rf" have)(?: left)?|(?:what's|what is|how's|how is|check) {_MY} battery(?: level| percentage| life"
        rf"| status| at)?|battery (?:level|percentage|status)|is {_MACHINE} (?:charging|plugged in)"
        rf"|is {_MY} battery (?:charging|low|full)|how long (?:will|does) {_MY} battery last",
        "disk": rf"how much (?:free |disk |storage |hard drive |drive )+(?:space )?(?:do i have|is left|is"
        rf" there|have i got)(?: left)?(?: on {_MACHINE}| on {_MY} (?:disk|drive))?|how much space (?:is"
        rf" left|do i have)(?: left)? on {_MY} (?:disk|drive|hard drive|computer|laptop)|is {_MY}"
        rf" (?:disk|drive|hard drive) full",
        "memory": rf"how much (?:memory|ram) (?:do i have|does {_MACHINE} have|is (?:free|used|in use|left))"
        rf"(?: on {_MACHINE})?",
        "address": rf"(?:what's|what is|tell me) {_MY} (?:local )?ip(?: address)?|(?:what's|what is) the ip"
        rf" address of {_MACHINE}",
        "uptime": rf"how long (?:has|have) {_MACHINE} been (?:on|running|up|awake)|(?:what's|what is) {_MY}"
        rf" uptime|when did {_MACHINE} (?:start|boot|turn on)(?: up)?",
    }
)
_GB = 1e9  # as the file managers count: a "500 GB" disk is 500 of these


def answer(text: str) -> str | None:
    """The state of this computer asked for; None for any other text."""
    kind, m = phrases.first_match(_PATTERNS, normalize(text))
    if kind is None:
        return None
    return {"battery": _battery, "disk": _disk, "memory": _memory, "address": _address, "uptime": _uptime}[
        kind
    ]()


def _battery() -> str:
    import psutil

    battery = psutil.sensors_battery()
    if battery is None:  # a desktop, or a laptop whose battery the system does not show
        return "I can't find a battery on this computer."
    percent = round(battery.percent)
    if battery.power_plugged:
        state = "fully charged" if percent >= 100 else "charging"
        return f"Your battery is at {percent} percent, {state}: the computer is plugged in."
    if battery.secsleft in (psutil.POWER_TIME_UNKNOWN, psutil.POWER_TIME_UNLIMITED) or battery.secsleft <= 0:
        return f"Your battery is at {percent} percent."
    minutes = max(1, round(battery.secsleft / 60))
    return f"Your battery is at {percent} percent: about {spoken_duration(minutes * 60)} left."


def _disk() -> str:
    """The disk that holds the user's home, where their files (and the assistant's memory) are."""
    usage = shutil.disk_usage(Path.home())
    free, total = usage.free / _GB, usage.total / _GB
    share = round(100 * usage.free / usage.total)
    return f"You have {_amount(free)} gigabytes free of {_amount(total)} on this disk, {share} percent."


def _memory() -> str:
    import psutil

    memory = psutil.virtual_memory()
    total, free = _amount(memory.total / _GB), _amount(memory.available / _GB)
    return f"This computer has {total} gigabytes of memory; {free} are free."


def _address() -> str:
    """The computer's addresses on its networks (loopback and link-local ones left out), IPv4 first."""
    import psutil

    found = []
    for addresses in psutil.net_if_addrs().values():
        for address in addresses:
            try:
                ip = ipaddress.ip_address(address.address.split("%")[0])
            except ValueError:  # a MAC address
                continue
            if not (ip.is_loopback or ip.is_link_local):
                found.append(ip)
    public = "Your public address I can't know: I don't use the internet."
    if not found:
        return f"This computer is on no network now. {public}"
    ip = min(found, key=lambda ip: ip.version)  # the first IPv4 one, if there is one
    spoken = " dot ".join(str(ip).split(".")) if ip.version == 4 else str(ip)  # "192 dot 168 dot 1 dot 23"
    return f"Your IP address on this network is {spoken}. {public}"


def _uptime() -> str:
    import psutil

    booted = psutil.boot_time()
    seconds = time.time() - booted
    since, today = datetime.fromtimestamp(booted), datetime.now().date()
    ago = (today - since.date()).days
    day = "today" if not ago else "yesterday" if ago == 1 else DAYS[since.weekday()] if ago < 7 else None
    said = spoken_duration(max(60, round(seconds / 60) * 60))
    if day is None:
        return f"This computer has been on for {said}, since {date_of(since)}."
    return f"This computer has been on for {said}, since {time_of_day(since)} {day}."


def _amount(gigabytes: float) -> str:
    """Whole gigabytes, or one decimal under ten: "72", "3.4"."""
    return f"{gigabytes:.1f}" if gigabytes < 10 else str(round(gigabytes))
