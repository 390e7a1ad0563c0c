"""What people say to a voice assistant: sentence templates for the synthetic training data.

``assistant_sentences(rng, n)`` fills the templates with random slots. Written forms keep digits
("set a timer for 25 minutes"); scripts/make_dataset.py turns them into words for the TTS and label.
"""

from __future__ import annotations

import random

NAMES = [
    "Anna",
    "Ben",
    "Carlos",
    "Diana",
    "Ethan",
    "Fatima",
    "George",
    "Hannah",
    "Ivan",
    "Julia",
    "Kevin",
    "Laura",
    "Mohammed",
    "Nina",
    "Oliver",
    "Priya",
    "Quentin",
    "Rosa",
    "Sam",
    "Tom",
    "Uma",
    "Victor",
    "Wendy",
    "Xavier",
    "Yuki",
    "Zoe",
    "Mom",
    "Dad",
    "grandma",
    "my sister",
    "my brother",
    "the doctor",
    "Peter",
    "Sarah",
    "Michael",
    "Emily",
    "David",
    "Olivia",
    "James",
    "Sophia",
    "Daniel",
    "Grace",
]
PLACES = [
    "London",
    "Paris",
    "New York",
    "Tokyo",
    "Berlin",
    "Chicago",
    "Madrid",
    "Boston",
    "Seattle",
    "Denver",
    "Dublin",
    "Sydney",
    "Toronto",
    "Rome",
    "Lisbon",
    "Cairo",
    "Mumbai",
    "Mexico City",
    "San Francisco",
    "the office",
    "the airport",
    "the train station",
    "the beach",
    "the mountains",
    "home",
    "Oslo",
    "Vienna",
    "Prague",
    "Amsterdam",
    "Austin",
    "Miami",
    "Phoenix",
    "Atlanta",
    "Nairobi",
    "Lima",
]
ROOMS = [
    "kitchen",
    "living room",
    "bedroom",
    "bathroom",
    "office",
    "garage",
    "hallway",
    "basement",
    "dining room",
    "porch",
    "garden",
    "kids' room",
    "attic",
    "study",
]
DEVICES = [
    "lights",
    "lamp",
    "fan",
    "heater",
    "air conditioner",
    "radio",
    "coffee maker",
    "oven",
    "dishwasher",
    "washing machine",
    "porch light",
    "ceiling light",
    "speaker",
    "thermostat",
]
ARTISTS = [
    "the Beatles",
    "Mozart",
    "Beethoven",
    "Miles Davis",
    "Taylor Swift",
    "Bob Dylan",
    "Adele",
    "Queen",
    "Nina Simone",
    "Johnny Cash",
    "Bach",
    "Ella Fitzgerald",
    "Pink Floyd",
    "Coldplay",
    "Elvis",
]
GENRES = [
    "jazz",
    "classical music",
    "rock",
    "some relaxing music",
    "the news",
    "a podcast",
    "country music",
    "hip hop",
    "blues",
    "reggae",
    "piano music",
    "lo-fi beats",
    "folk music",
    "the radio",
]
THINGS = [
    "milk",
    "eggs",
    "bread",
    "apples",
    "coffee",
    "batteries",
    "toothpaste",
    "rice",
    "cheese",
    "tomatoes",
    "bananas",
    "butter",
    "orange juice",
    "paper towels",
    "onions",
    "chicken",
    "pasta",
    "yogurt",
]
TASKS = [
    "call the dentist",
    "take my medicine",
    "water the plants",
    "pay the electricity bill",
    "pick up the kids",
    "buy a birthday present",
    "send the report",
    "walk the dog",
    "book a table",
    "check the mail",
    "feed the cat",
    "charge my phone",
    "take out the trash",
    "stretch",
    "drink water",
    "renew my passport",
    "call the plumber",
    "back up my laptop",
    "return the library books",
]
DAYS = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "tomorrow",
    "today",
    "tonight",
    "this weekend",
    "next week",
    "this afternoon",
    "tomorrow morning",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
WORDS = [
    "necessary",
    "rhythm",
    "separate",
    "definitely",
    "Wednesday",
    "restaurant",
    "beautiful",
    "because",
    "weird",
    "receive",
    "occasion",
    "tomorrow",
    "accommodate",
    "language",
    "queue",
    "yacht",
    "cat",
    "dog",
    "house",
    "friend",
    "piano",
    "science",
    "colonel",
    "island",
    "knight",
    "psychology",
    "zebra",
    "jazz",
]
TOPICS = [
    "the moon",
    "black holes",
    "dinosaurs",
    "the Roman Empire",
    "photosynthesis",
    "volcanoes",
    "whales",
    "the Eiffel Tower",
    "electricity",
    "gravity",
    "the ocean",
    "chess",
    "bees",
    "the pyramids",
    "honey",
]
UNITS = [
    ("miles", "kilometers"),
    ("pounds", "kilograms"),
    ("cups", "milliliters"),
    ("feet", "meters"),
    ("ounces", "grams"),
    ("inches", "centimeters"),
    ("degrees Fahrenheit", "degrees Celsius"),
]
POLITE = [
    "",
    "",
    "",
    "please ",
    "hey, ",
    "okay, ",
    "could you ",
    "can you ",
    "would you ",
    "I'd like you to ",
]


def _n(rng: random.Random, lo: int = 1, hi: int = 60) -> int:
    return rng.randint(lo, hi)


def _time(rng: random.Random) -> str:
    h, m = rng.randint(1, 12), rng.choice([0, 0, 5, 10, 15, 20, 30, 45, 50, rng.randint(1, 59)])
    return (
        f"{h}:{m:02d} {rng.choice(['am', 'pm', ''])}".strip() if m or rng.random() < 0.5 else f"{h} o'clock"
    )


def _timer(r: random.Random) -> str:
    unit = r.choice(["minutes", "seconds", "hours", "minute", "hour"])
    n = 1 if unit in ("minute", "hour") else _n(r, 2, 90)
    return r.choice(
        [
            f"Set a timer for {n} {unit}.",
            f"Start a {n} {unit} timer.",
            f"Timer {n} {unit}.",
            "How much time is left on my timer?",
            "Cancel the timer.",
            f"Pause the {r.choice(['pasta', 'egg', 'tea', 'laundry'])} timer.",
            f"Add {n} {unit} to the timer.",
            f"Set a timer called {r.choice(THINGS)} for {n} {unit}.",
        ]
    )


def _alarm(r: random.Random) -> str:
    return r.choice(
        [
            f"Wake me up at {_time(r)}.",
            f"Set an alarm for {_time(r)} {r.choice(DAYS)}.",
            f"Turn off my {_time(r)} alarm.",
            "What alarms do I have?",
            "Snooze for ten minutes.",
            f"Set an alarm every weekday at {_time(r)}.",
            "Delete all my alarms.",
            f"Move my alarm to {_time(r)}.",
        ]
    )


def _weather(r: random.Random) -> str:
    p, d = r.choice(PLACES), r.choice(DAYS)
    return r.choice(
        [
            f"What's the weather like in {p}?",
            f"Will it rain {d}?",
            f"Do I need an umbrella {d}?",
            f"How cold is it going to be {d}?",
            f"What's the temperature in {p} right now?",
            f"Is it going to snow in {p} {d}?",
            "How windy is it outside?",
            f"What's the forecast for {d}?",
            f"Is it sunny in {p}?",
            f"When does the sun set {d}?",
            "What's the humidity?",
        ]
    )


def _clock(r: random.Random) -> str:
    return r.choice(
        [
            "What time is it?",
            f"What time is it in {r.choice(PLACES)}?",
            "What's the date today?",
            "What day is it?",
            f"What day of the week is {r.choice(MONTHS)} {r.randint(1, 28)}?",
            f"How many days until {r.choice(MONTHS)} {r.randint(1, 28)}?",
            "What year is it?",
            f"When is {r.choice(['Christmas', 'Easter', 'Thanksgiving', 'my birthday', 'the next full moon'])}?",
            f"Is {r.choice(MONTHS)} {r.randint(1, 28)}, {r.randint(1990, 2030)} a {r.choice(DAYS[:7])}?",
            f"How long ago was {r.randint(1900, 2020)}?",
        ]
    )


def _math(r: random.Random) -> str:
    a, b = r.randint(0, 999), r.randint(1, 99)
    op = r.choice(["plus", "minus", "times", "divided by", "+"])
    u = r.choice(UNITS)
    return r.choice(
        [
            f"What is {a} {op} {b}?",
            f"What's {a} {op} {b}?",
            f"Calculate {r.randint(1, 99)}% of {a}.",
            f"What is the square root of {a}?",
            f"Convert {b} {u[0]} to {u[1]}.",
            f"How many {u[1]} are in {b} {u[0]}?",
            f"What's {a} squared?",
            f"Is {a} a prime number?",
            f"Round {a}.{b} to the nearest whole number.",
            f"What's {b} to the power of {r.randint(2, 5)}?",
            f"Split ${a}.{r.randint(10, 99)} between {r.randint(2, 8)} people.",
            f"Count from {r.randint(1, 20)} to {r.randint(21, 40)}.",
        ]
    )


def _music(r: random.Random) -> str:
    return r.choice(
        [
            f"Play {r.choice(GENRES)}.",
            f"Play something by {r.choice(ARTISTS)}.",
            "Pause the music.",
            "Skip this song.",
            "Turn it up.",
            "Turn the volume down.",
            f"Set the volume to {r.randint(1, 10)}.",
            "What song is this?",
            "Play the next track.",
            "Go back to the previous song.",
            "Stop the music.",
            f"Shuffle my {r.choice(['workout', 'dinner', 'morning', 'road trip', 'sleep'])} playlist.",
            f"Play {r.choice(GENRES)} in the {r.choice(ROOMS)}.",
            "Repeat this song.",
            f"Who sang {r.choice(['Yesterday', 'Hello', 'Imagine', 'Respect', 'Jolene', 'Hurt'])}?",
        ]
    )


def _home(r: random.Random) -> str:
    room, dev = r.choice(ROOMS), r.choice(DEVICES)
    return r.choice(
        [
            f"Turn on the {room} {dev}.",
            f"Turn off the {dev} in the {room}.",
            f"Switch off the {dev}.",
            f"Dim the {room} lights to {r.randint(1, 100)}%.",
            f"Set the thermostat to {r.randint(60, 78)} degrees.",
            f"Is the {dev} on?",
            f"Make the {room} lights {r.choice(['warmer', 'brighter', 'blue', 'red', 'softer'])}.",
            "Lock the front door.",
            "Is the garage door open?",
            f"Turn everything off in the {room}.",
            f"Set the heating to {r.randint(15, 25)} degrees.",
            "Good night, turn off all the lights.",
            f"Start the {r.choice(['vacuum', 'dishwasher', 'washing machine', 'coffee maker'])}.",
        ]
    )


def _reminder(r: random.Random) -> str:
    t = r.choice(TASKS)
    return r.choice(
        [
            f"Remind me to {t} at {_time(r)}.",
            f"Remind me to {t} {r.choice(DAYS)}.",
            f"Don't let me forget to {t}.",
            "What are my reminders for today?",
            f"Add {r.choice(THINGS)} to my shopping list.",
            f"Add {r.choice(THINGS)} and {r.choice(THINGS)} to the list.",
            "What's on my shopping list?",
            f"Remove {r.choice(THINGS)} from the list.",
            f"Remind me in {r.randint(2, 59)} minutes to {t}.",
            f"Make a note that {r.choice(NAMES)} called.",
            f"What's on my calendar {r.choice(DAYS)}?",
            f"Schedule a meeting with {r.choice(NAMES)} on {r.choice(DAYS[:7])} at {_time(r)}.",
        ]
    )


def _people(r: random.Random) -> str:
    n, p = r.choice(NAMES), r.choice(PLACES)
    return r.choice(
        [
            f"Call {n}.",
            f"Send a message to {n} saying I'll be late.",
            f"Text {n} that I'm on my way.",
            f"When is {n}'s birthday?",
            f"How far is {p} from here?",
            f"How long does it take to drive to {p}?",
            f"Tell {n} dinner is ready.",
            f"Navigate to {p}.",
            f"What's the traffic like on the way to {p}?",
            f"Find a {r.choice(['coffee shop', 'pharmacy', 'gas station', 'restaurant', 'bakery'])} near me.",
            f"Read my messages from {n}.",
            f"Is {r.choice(['the pharmacy', 'the bank', 'the library'])} open now?",
            f"What's the capital of {r.choice(['France', 'Japan', 'Kenya', 'Canada', 'Peru', 'Norway'])}?",
        ]
    )


def _spell(r: random.Random) -> str:
    w = r.choice(WORDS)
    return r.choice(
        [
            f"How do you spell {w}?",
            f"Spell {w}.",
            f"What does {w} mean?",
            f"Define {w}.",
            f"What rhymes with {w}?",
            f"Give me a synonym for {r.choice(['happy', 'big', 'fast', 'smart'])}.",
            f"How do you say {w} in {r.choice(['Spanish', 'French', 'German', 'Italian'])}?",
        ]
    )


def _chat(r: random.Random) -> str:
    return r.choice(
        [
            f"Tell me about {r.choice(TOPICS)}.",
            "Tell me a joke.",
            "How are you today?",
            f"Why is {r.choice(['the sky blue', 'the sea salty', 'ice slippery', 'grass green'])}?",
            f"How does {r.choice(TOPICS)} work?",
            "What can you do?",
            "Thank you.",
            "Never mind.",
            "Stop.",
            "Cancel that.",
            "Yes, please.",
            "No, thanks.",
            "What did you say?",
            "Say that again.",
            f"Who invented {r.choice(['the telephone', 'the light bulb', 'the airplane', 'paper', 'the wheel'])}?",
            f"How tall is {r.choice(['Mount Everest', 'the Eiffel Tower', 'a giraffe', 'the Empire State Building'])}?",
            f"Give me a recipe for {r.choice(['pancakes', 'lentil soup', 'banana bread', 'chili', 'risotto'])}.",
            f"How many {r.choice(['calories', 'grams of sugar'])} are in {r.choice(['an apple', 'a banana', 'a cup of rice'])}?",
            "Good morning.",
            "What's new today?",
            "Tell me a bedtime story.",
            "I'm bored, any ideas?",
            f"How old is {r.choice(['the universe', 'the earth', 'the moon'])}?",
            "Flip a coin.",
            f"Roll a {r.choice([6, 12, 20])} sided die.",
            f"Pick a number between 1 and {r.randint(10, 1000)}.",
        ]
    )


GENERATORS = [_timer, _alarm, _weather, _clock, _math, _music, _home, _reminder, _people, _spell, _chat]


def assistant_sentences(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        s = rng.choice(GENERATORS)(rng)
        polite = rng.choice(POLITE)
        if (
            polite
            and s[0].isupper()
            and not s.startswith(("What", "How", "Is", "Who", "When", "Why", "Do", "Will"))
        ):
            s = polite[0].upper() + polite[1:] + s[0].lower() + s[1:]
        out.append(s)
    return out
