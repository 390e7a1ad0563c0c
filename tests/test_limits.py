"""Requests the assistant cannot serve get an honest answer, not the LLM's pretence."""

import pytest

from assistant import limits


@pytest.mark.parametrize(
    ("said", "says"),
    [
        ("What is the weather like today?", "I can't check the weather"),
        ("What's the weather like in Paris?", "I can't check the weather"),
        ("Will it rain tomorrow?", "I can't check the weather"),
        ("Can you tell me the weather forecast", "I can't check the weather"),
        ("What's the temperature outside?", "I can't check the weather"),
        ("what's the temperature in new york today", "I can't check the weather"),
        ("How hot is it outside?", "I can't check the weather"),
        ("Is it cold outside?", "I can't check the weather"),
        ("Do I need an umbrella today?", "I can't check the weather"),
        ("How far is the airport from here?", "I can't look up maps, directions or traffic"),
        ("How long does it take to drive to Boston?", "I can't look up maps, directions or traffic"),
        ("What's the traffic like?", "I can't look up maps, directions or traffic"),
        ("Where is the nearest pharmacy?", "I can't look up maps, directions or traffic"),
        ("Find a restaurant near me.", "I can't look up maps, directions or traffic"),
        ("Give me directions to the airport.", "I can't look up maps, directions or traffic"),
        ("Translate good morning into German.", "I can't translate: I speak only English."),
        ("How do you say thank you in French?", "I can't translate"),
        ("What is cat in Spanish?", "I can't translate"),
        ("Tell me the news.", "I can't read the news"),
        ("Turn off the lights.", "I can't control devices"),
        ("turn the lights on", "I can't control devices"),
        ("Play some music.", "I can't play music yet."),
        (
            "Play some jazz.",
            "I can't play music yet.",
        ),  # the LLM: "I can play some jazz, just like I always do."
        ("Play Bohemian Rhapsody.", "I can't play music yet."),
        ("Put on some music.", "I can't play music yet."),  # the LLM: "I'm going to play some music."
        ("Next song.", "I can't play music yet."),
        ("Call mom.", "I can't make calls or send messages."),
        ("Send a message to John", "I can't make calls or send messages."),
        ("Read my email.", "I can't read email or messages"),  # the LLM: "I'm sorry for your loss."
        ("Do I have any new messages?", "I can't read email or messages"),
        ("Order a pizza.", "I can't order or buy anything"),  # the LLM: "... from any online grocery store"
        ("Get me a taxi.", "I can't order or buy anything"),
        ("Order pizza.", "I can't order or buy anything"),
        ("Open YouTube.", "I can't open apps or websites"),
        ("Launch the calculator app.", "I can't open apps or websites"),
        ("What's on my calendar today?", "I don't keep a calendar. I can remind you instead"),
        ("Convert ten dollars to euros.", "I can't convert money: exchange rates change every day"),
        ("How many euros is fifty dollars?", "I can't convert money"),
        ("What's the exchange rate for the yen?", "I can't convert money"),
        ("What's 20 dollars in euros?", "I can't convert money"),  # the LLM made a rate up
        ("how much is a dollar in yen", "I can't convert money"),
        ("What's the price of bitcoin?", "I can't look up prices or the markets"),
        ("Who won the last world cup?", "I can't look up scores or results"),  # the LLM: "the United States"
        ("who won the super bowl", "I can't look up scores or results"),
        ("Who is the prime minister of the UK?", "I can't know who holds an office now"),  # "Theresa May"
        ("who's the ceo of apple", "I can't know who holds an office now"),  # the LLM: "Steve Jobs"
        ("who is the president", "I can't know who holds an office now"),
        ("How is the stock market doing today?", "I can't look up prices or the markets"),
        ("Who won the game last night?", "I can't look up scores or results"),
        ("What's the score of the Lakers game?", "I can't look up scores or results"),
        ("Schedule a meeting with Anna on Friday at three.", "I don't keep a calendar."),
        ("Add a dentist appointment to my calendar.", "I don't keep a calendar."),
        ("Do I have any meetings tomorrow?", "I don't keep a calendar."),
        # the LLM's: not a request for these, or one it can serve
        ("I like rainy weather.", None),
        ("What is the weather like on Mars?", None),  # a question about Mars, not a forecast
        ("Tell me a story about the weather.", None),
        ("Play a game with me.", None),
        ("Play twenty questions.", None),
        ("Call me Sam.", None),
        ("Turn the page.", None),
        ("Order these numbers from smallest to largest: 5, 2, 9.", None),
        ("Order the list.", None),
        ("Start the stopwatch.", None),  # stopwatch.py's
        ("What is the order of the planets?", None),
        ("What is the capital of France?", None),
        ("Who was the first president of the United States?", None),  # history: the LLM's
        ("who won the world cup in 2010", None),
        ("What is a calendar?", None),
        ("How many pounds in a kilogram?", None),  # units.py's
        ("Who won the world cup in 1998?", None),  # history: the LLM's
        ("How far is the moon from the earth?", None),  # not a map's
        ("What is the temperature of the sun?", None),
        ("What's the boiling temperature of water?", None),
        ("What is twenty degrees celsius in fahrenheit?", None),  # units.py's
        ("What is the temperature in celsius?", None),
        ("How long does it take to boil an egg?", None),
        ("Find a word that rhymes with cat.", None),
        ("How long does it take to get a passport?", None),
        ("Directions for assembling a bookshelf", None),
        ("What is five feet in meters?", None),
    ],
)
def test_what_cannot_be_done_is_said(said, says):
    answer = limits.answer(said)
    assert (answer is None) if says is None else answer.startswith(says)
    if says and "weather" in says:
        assert "internet" in answer  # why: nothing leaves the computer


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        ("What can you do?", "I can talk with you and answer simple questions, work out sums, convert"),
        ("Hey, what can you do for me?", "I can talk with you"),
        ("Help.", "I can talk with you"),
        ("Who are you?", "I'm a voice assistant with a small language model"),
        ("What's your name?", "I don't have a name"),  # not "I'm Dr. Elena Grey" (the LLM's)
        ("Is this private?", "Nothing you say leaves this computer"),
        ("Are you recording me?", "Nothing you say leaves this computer"),
        ("Do you use the internet?", "Nothing you say leaves this computer"),
        # asked whole only: the rest is the LLM's
        ("What can you do about my headache?", None),
        ("Help me write a poem.", None),
        ("Who are you voting for?", None),
        ("Are you listening to music?", None),
        ("How old are your kids?", None),
        # the LLM: "I'm 32 years old."; "I can hear you." said to "Testing, testing": "What's your project?"
        ("How old are you?", "I don't have an age"),
        ("Where do you live?", "I'm on this computer, and nowhere else"),
        ("Can you hear me?", "Yes, I'm here and I can hear you."),
        ("Are you there?", "Yes, I'm here and I can hear you."),
        ("Testing, testing, one, two, three.", "Yes, I'm here and I can hear you."),
    ],
)
def test_questions_about_the_assistant_itself_are_answered_plainly(asked, says):
    answer = limits.answer(asked)
    assert (answer is None) if says is None else answer.startswith(says), answer
