"""What the assistant cannot do, and what it is, said plainly instead of pretended by the LLM.

Asked for the weather, the embedded model answered "The weather today is mostly sunny with a light
breeze"; asked to remind, "I'll be calling you at 6 pm tomorrow" (reminders are `timers.py`'s now);
to turn off the lights, "I'm going to turn off the lights"; asked how far Paris is from London,
"approximately 2,140 kilometers" (`places.py` answers that now, before these); to translate, words
that were not German. Told in its system prompt what it cannot do, it went on all the same (README,
"Answers without the LLM"). The assistant never uses the internet and drives no device, so such a
request gets an honest answer here, without the LLM. Matched on `asr.text.normalize()`d text from
its start ("what's the weather like in Paris" is one; "I like rainy weather" is not).

Asked what it can do, the embedded model said "I can assist you with any project or task that
requires editing, grammar correction ..."; asked its name, "I'm Dr. Elena Grey, a dedicated AI
assistant with over 5 years of expertise". Questions about the assistant itself (what it can do,
who it is, whether what is said stays private) are answered here too, matched whole ("what can you
do about my headache" goes to the LLM).

    limits.answer("What's the weather like today?")   # "I can't check the weather: ..."
    limits.answer("What can you do?")                  # "I can talk with you and answer ..."
"""

from __future__ import annotations

import re

from assistant.asr.text import normalize
from assistant.phrases import LEAD_IN

OFFLINE = "I don't use the internet, so that nothing you say leaves this computer."
_LANGUAGES = (
    r"(?:spanish|french|german|italian|portuguese|dutch|russian|chinese|mandarin|cantonese|japanese|korean"
    r"|arabic|hindi|urdu|bengali|turkish|greek|polish|swedish|norwegian|danish|finnish|hebrew|latin"
    r"|vietnamese|thai|indonesian|ukrainian|czech|hungarian|romanian|swahili|irish|welsh|another language)"
)
_CANNOT = (  # (what is asked, from the start of the request; the answer)
    (
        r"(?!.* on (?:mars|venus|mercury|jupiter|saturn|uranus|neptune|pluto|the moon|the sun)\b)"
        r"(?:(?:what's|what is|how's|how is|what will be|tell me) the weather|(?:what's|what is) the forecast"
        r"|weather (?:forecast|today|tomorrow|for)|(?:will|is) it (?:going to )?(?:rain|snow)"
        # "The temperature outside is 20 degrees Celsius.", "no, you don't need an umbrella today."
        r"|(?:what's|what is|how's|how is|what will be) the temperature(?: outside| out there"
        r"| in (?!fahrenheit|celsius|kelvin|degrees)\w+(?: \w+)?)?(?: today| now| right now| tomorrow)?$"
        r"|how (?:hot|cold|warm|chilly) is it|is it (?:hot|cold|warm|chilly|sunny|raining|snowing|windy)"
        r" (?:outside|out|today|now)|(?:do|will|should) i (?:need|take|bring) (?:an? )?(?:umbrella|coat"
        r"|jacket|raincoat|sunscreen))",
        f"I can't check the weather: {OFFLINE}",
    ),
    (
        r"(?:what's|what is|tell me|read me|give me) (?:the |today's )?(?:news|headlines)"
        r"|(?:what's|what is) in the news",
        f"I can't read the news: {OFFLINE}",
    ),
    (
        r"(?:turn|switch) (?:on|off) the |(?:turn|switch) the \w+(?: \w+)? (?:on|off)|dim the lights",
        "I can't control devices: I can only talk with you.",
    ),
    (  # "play some jazz" (the LLM: "I can play some jazz, just like I always do"), "play the beatles";
        # a game is the LLM's ("play a game with me", "play twenty questions")
        r"play(?! (?:a |the |some )?(?:games?|twenty questions|i spy|trivia)\b| with\b) .+"
        r"|put on (?:some |a |the )?(?:music|songs?|tunes|the radio|a podcast|a playlist|an album)"
        r"|(?:next|skip (?:this|the)|previous) (?:song|track)|shuffle (?:my |the )?(?:music|songs|playlist)"
        r"|(?:pause|stop|resume) the (?:music|song)"
        r"|(?:i want to )?listen to (?:some )?(?:music|the radio|a podcast)",
        "I can't play music yet.",
    ),
    (
        r"(?:call|phone|text|email) (?:my |\w+$)|send (?:a |an )?(?:message|text|email)",
        "I can't make calls or send messages.",
    ),
    (  # "Read my email": "I'm sorry for your loss. I'll be happy to help you ..." (2026-12-07)
        r"(?:read|check|open|show me) (?:my )?(?:e ?mails?|inbox|messages|texts)"
        r"|do i have (?:any )?(?:new |unread )?(?:e ?mails?|messages|texts)",
        f"I can't read email or messages: {OFFLINE}",
    ),
    (  # "Order a pizza": "You can order a pizza from any online grocery store or restaurant."
        r"order (?:me )?(?:a |an |some )\w+(?: \w+)?$|order (?:me )?(?:pizza|food|takeout|takeaway|dinner"
        r"|lunch|groceries|a taxi|a cab|an uber)\b"
        r"|buy .+ online|(?:get|call|book) (?:me )?(?:a )?(?:taxi|cab|ride|uber)$",
        f"I can't order or buy anything: {OFFLINE}",
    ),
    (  # "Open YouTube": "I'm here to help you with whatever your creative needs are. ..."
        r"(?:open|launch|start|close|go to) (?:the |my )?(?:youtube|spotify|netflix|chrome|firefox|safari"
        r"|google|facebook|instagram|twitter|whatsapp|wikipedia|amazon|gmail|(?:a |the |my )?browser"
        r"|(?:the )?settings|\w+(?: \w+)? (?:app|application|website|web site))\b",
        "I can't open apps or websites: I can only talk with you.",
    ),
    (  # the LLM said "10 euros = 100.00 euros" (`units.py`, before these, converts pounds as weight)
        r"(?:convert|change|exchange) .*\b(?:dollars?|euros?|pounds? to (?:dollars|euros)|yen|pesos?"
        r"|rupees?|yuan|francs?|currenc(?:y|ies)|money)\b"
        r"|how many (?:dollars|euros|yen|pesos|rupees|yuan) (?:is|are|in|to|for)"
        r"|(?:what's|what is|how much is) .*\b(?:dollars?|euros?|pounds?|yen|pesos?|rupees?|yuan|francs?)"
        r" in (?:dollars|euros|pounds|yen|pesos|rupees|yuan|francs|us dollars|british pounds)$"
        r"|(?:what's|what is) the exchange rate|exchange rates?\b",
        f"I can't convert money: exchange rates change every day, and {OFFLINE}",
    ),
    (  # "Bitcoin is currently worth around 1.000,000,000.00 (approximately 25.3 USD)."
        r"(?:what's|what is|how much is) (?:the (?:price|value|cost) of |the stock price|a bitcoin"
        r"|one bitcoin|bitcoin)|how (?:is|are|did|was) the (?:stock market|stocks|markets?|dow|nasdaq)",
        f"I can't look up prices or the markets: {OFFLINE}",
    ),
    (  # "The game was won by the team of Elon Musk."; "The last world cup was won by the United States"
        r"who won (?:the game|the match|last night|yesterday|today)|(?:what's|what is|what was) the score"
        r"|who won (?:the )?(?:last|latest|most recent|this year's|last year's) .+"
        r"|who won the (?:super bowl|world cup|world series|stanley cup|nba finals|election|championship)$",
        f"I can't look up scores or results: {OFFLINE}",
    ),
    (  # "The prime minister of the UK is Theresa May.", "The CEO of Apple is Steve Jobs." (2026-12-07):
        # what the model learnt is years old; who held an office then ("who was") is the LLM's
        r"who(?:'s| is| are) (?:the )?(?:current |new |present )?(?:president|vice president|prime minister"
        r"|chancellor|pope|ceo|chief executive|mayor|governor|premier|first minister|secretary general"
        r"|head of state|head of government|leader)s?(?: (?:of|in|for|at) .+)?",
        f"I can't know who holds an office now: what I know is a few years old, and {OFFLINE}",
    ),
    (  # "paris is approximately 2,140 kilometers (1,238 miles) from London.", "The traffic is quite light"
        r"(?!.*\b(?:the )?(?:moon|sun|earth|mars|venus|mercury|jupiter|saturn|uranus|neptune|pluto)\b)"
        r"(?:how far (?:is|away is|is it)|what's the distance|what is the distance"
        r"|how long (?:does it|will it|would it) take to (?:drive|walk|get|fly|go) (?:to|from|home)"
        r"|(?:give me |get me |show me )?directions (?:to|from|home)"
        r"|(?:where's|where is|find) (?:the |a )?(?:nearest|closest)|find (?:a |an |me a |me an |some )?\w+"
        r"(?: \w+)? (?:near|nearby|around) (?:me|here)|(?:what's|what is|how's|how is) the traffic)",
        f"I can't look up maps, directions or traffic: {OFFLINE}",
    ),
    (  # "translate good morning into german": "Ich habe lokale Frau in der Weib, ..."
        rf"translate |how (?:do|would) (?:you|i) say .+ in {_LANGUAGES}$|(?:what's|what is|say) .+ in"
        rf" {_LANGUAGES}$|(?:can you |do you )?speak {_LANGUAGES}$",
        "I can't translate: I speak only English.",
    ),
    (  # the LLM said "I'm on my calendar for a wedding, and I'll be meeting Anna at the next scheduled date."
        r"(?:what's|what is|what do i have|is there anything|do i have anything) (?:on|in) my"
        r" (?:calendar|schedule|agenda|diary)|(?:what's|what is) my schedule"
        r"|(?:schedule|book|set up|arrange) (?:a |an |my )?(?:meeting|call|appointment|event)"
        r"|(?:add|put) .+ (?:to|on|in|into) my (?:calendar|schedule|diary)"
        r"|do i have any (?:meetings|appointments|events)|(?:what are|read|read me|tell me) my"
        r" (?:meetings|appointments|events)",
        "I don't keep a calendar. I can remind you instead: say, for example, remind me on friday at three"
        " about the meeting.",
    ),
)
_ABOUT = (  # (a question about the assistant, whole; the answer)
    (
        r"(?:what can you do|what do you do|what are you able to do|what can i ask(?: you)?"
        r"|what are you good at|how can you help(?: me)?|help|help me|what can i say)",
        "I can talk with you and answer simple questions, work out sums, convert units, spell words and "
        "find rhymes, say what a word means or who someone was, tell you about countries and cities, the "
        "chemical elements and physical constants, this computer's battery and disk, the time, the date, "
        "sunrise, sunset, the seasons and the planets, tell a joke, set timers, a stopwatch, alarms and "
        "reminders, keep lists and notes, remember your name and birthday, speak slower or more quietly, "
        "and say my last answer again. Say stop to cut me off, or stop listening until you say wake up. "
        "I run only on this computer, so I can't look anything up online.",
    ),
    (
        r"(?:who|what) are you|who (?:made|built) you|are you (?:a robot|an ai|a person|human)",
        "I'm a voice assistant with a small language model, running entirely on this computer.",
    ),
    (
        r"(?:what's|what is) your name|do you have a name",
        "I don't have a name: I'm a voice assistant running entirely on this computer.",
    ),
    (  # the LLM: "I'm 32 years old."
        r"how old are you|(?:what's|what is) your age|when were you (?:born|made)",
        "I don't have an age: I'm a voice assistant running entirely on this computer.",
    ),
    (
        r"where (?:are you|do you live|are you from)",
        "I'm on this computer, and nowhere else: nothing you say leaves it.",
    ),
    (  # a check that the microphone is heard, not a question for the LLM ("I'm ready to help. What's your
        # project?")
        r"(?:hello )?(?:are you there|are you listening(?: to me)?|can you hear me(?: now)?)"
        r"|testing(?: testing)*(?: one two(?: three)?)?|mic(?:rophone)? (?:check|test)",
        "Yes, I'm here and I can hear you.",
    ),
    (
        r"(?:is|are) (?:this|you|our conversation) (?:private|safe|online|recording(?: me)?)"
        r"|do you (?:use|need) the internet|are you connected to the internet|are you recording(?: me)?"
        r"|where does (?:my|what i say|this) go|who can hear (?:me|this|us)|do you send (?:anything|my \w+)"
        r"(?: anywhere)?",
        "Nothing you say leaves this computer: I don't use the internet. I keep our conversation as "
        "text in a memory file here; say forget our conversation to erase it.",
    ),
)
_PATTERNS = [(re.compile(rf"{LEAD_IN}(?:{asked})"), reply) for asked, reply in _CANNOT]
_ABOUT_PATTERNS = [
    (re.compile(rf"{LEAD_IN}(?:{asked})(?: for me)?(?: please)?(?: then)?"), reply) for asked, reply in _ABOUT
]


def answer(text: str) -> str | None:
    """The honest answer to a request the assistant cannot serve or a question about the assistant
    itself, or None for any other text."""
    said = normalize(text)
    about = next((reply for pattern, reply in _ABOUT_PATTERNS if pattern.fullmatch(said)), None)
    return about or next((reply for pattern, reply in _PATTERNS if pattern.match(said)), None)
