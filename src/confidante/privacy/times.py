"""Exact clock times in someone's routine ("I wake up at 6am", "er joggt um 5:45", "je pars
à 7h10", "a las 6:20", "晚上9:45", "下午三点"), and their part of day.

A time alone is not personal ("the cron job runs at 02:00 UTC", "the store opens at 9am"); it
counts when the sentence speaks of a person or a habit, in English, German, French, Spanish
or Chinese, and not of a machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from ._text import FIRST_PERSON, enough_digits, substring_test
from .findings import Finding

_AMPM = r"(?P<ampm>a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])"
_NUMBER_WORDS = {
    w: i + 1
    for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split())
}
_WORD_HOUR = "|".join(_NUMBER_WORDS)
# Hours written as words in German, French and Spanish ("um halb sieben", "à huit heures et
# demie", "a las siete y media"), and the minutes people say with them.
_INTL_HOURS = {
    **dict.fromkeys(("ein", "eins", "une", "una"), 1),
    **dict.fromkeys(("zwei", "deux", "dos"), 2),
    **dict.fromkeys(("drei", "trois", "tres"), 3),
    **dict.fromkeys(("vier", "quatre", "cuatro"), 4),
    **dict.fromkeys(("fünf", "cinq", "cinco"), 5),
    **dict.fromkeys(("sechs", "six", "seis"), 6),
    **dict.fromkeys(("sieben", "sept", "siete"), 7),
    **dict.fromkeys(("acht", "huit", "ocho"), 8),
    **dict.fromkeys(("neun", "neuf", "nueve"), 9),
    **dict.fromkeys(("zehn", "dix", "diez"), 10),
    **dict.fromkeys(("elf", "onze", "once"), 11),
    **dict.fromkeys(("zwölf", "douze", "doce"), 12),
}
_DE_HOUR = "eins|ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf|zwölf"
_FR_HOUR = "une|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze"
_ES_HOUR = "una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce"
_MINUTE_WORDS = r"fifteen|thirty|forty[\s-]five|forty|fifty|twenty|o[\s-](?:five|nine|eight|seven)"
_FR_MINUTES = (
    r"et\s+(?:demie?|quart)|moins\s+(?:le\s+quart|cinq|dix|vingt(?:-cinq)?)"
    r"|cinq|dix|quinze|vingt(?:-cinq)?|trente|quarante(?:-cinq)?|cinquante"
)
_ES_MINUTES = (
    r"y\s+(?:media|cuarto|cinco|diez|veinte|veinticinco)|menos\s+(?:cuarto|cinco|diez|veinte"
    r"|veinticinco)|en\s+punto"
)
_TIME = compile_on_use(
    rf"""(?ix)
    (?P<prep>\b(?:at|around|about|by|until|till|before|after|from|since
        |um|gegen|ab|bis|à|vers|dès|avant|après|jusqu'à|a\s+las?|hacia\s+las?
        |sobre\s+las?|desde\s+las?|hasta\s+las?|antes\s+de\s+las?|después\s+de\s+las?)\s+)?
    (?<![\d:.,])(?:
        (?P<h1>[01]?\d|2[0-3])(?:[:.h]|\s?h\s)(?P<m1>[0-5]\d)(?!\d|\.\d)(?:\s*{_AMPM})?
      | (?P<h2>1[0-2]|0?[1-9])\s*{_AMPM.replace("ampm", "ampm2")}
      | (?P<h3>1[0-2]|0?[1-9]|{_WORD_HOUR})\s*o['\u2019]?\s?clock
      | (?P<frac>(?:(?:a\s+)?(?:half|quarter)|five|ten|twenty(?:[\s-]five)?)\s+(?:past|to|after)
            |half\s+past)\s+
            (?P<h4>1[0-2]|0?[1-9]|{_WORD_HOUR})\b
      | (?P<h8>{_WORD_HOUR})[\s-](?:{_MINUTE_WORDS})\b
      | (?P<dehalf>halb|viertel\s+nach|viertel\s+vor|dreiviertel|drei\s+viertel)\s+
            (?P<h9>{_DE_HOUR}|1[0-2]|0?[1-9])\b
      | (?P<h10>{_DE_HOUR})\s+Uhr\b(?:\s+(?:fünfzehn|dreißig|dreissig|fünfundvierzig|zehn
            |zwanzig|fünf|vierzig|fünfzig)\b)?
      | (?P<h11>{_FR_HOUR}|1[0-2]|0?[1-9]|1[3-9]|2[0-3])\s+heures?\b(?:\s+(?:{_FR_MINUTES})\b)?
      | (?:(?<=\bla\s)|(?<=\blas\s))(?P<h12>{_ES_HOUR})\b(?:\s+(?:{_ES_MINUTES})\b)?
      | (?<=\blas\s)(?P<h13>1[0-2]|0?[1-9])\s+(?:{_ES_MINUTES})\b
      | (?P<word>noon|midday|midnight|mittags|(?:midi|minuit)(?:\s+et\s+(?:demie?|quart))?
            |mediodía|medianoche)
      | (?P<h6>[01]?\d|2[0-3])\s?(?:h(?![\w])|Uhr\b)(?(prep)|(?!))
      | (?<=\blas\s)(?P<h7>1[0-2]|0?[1-9])(?![\d:.,]|\s*h\b)
      | (?<=\bat\s)(?P<h5>1[0-2]|0?[1-9])(?=\s+(?:every|each|in\s+the|on\s+(?:week|mon|tue|wed
            |thu|fri|sat|sun)|sharp|daily|most|at\s+night|tonight|tomorrow))
    )
    (?P<day>\s+(?:in\s+the\s+)?(?:morning|afternoon|evening|at\s+night)
        |\s+(?:de\s+la\s+(?:mañana|tarde|noche)|du\s+(?:matin|soir)|de\s+l['\u2019]après-midi
        |morgens|abends|nachmittags|früh))?
    """
)
_WORD_TIME_HINT = compile_on_use(
    r"o['\u2019]?\s?clock|noon|midday|midnight|half\s+past|quarter|mittags|midi|minuit|mediod"
    r"|\b(?:halb|viertel|dreiviertel)\s|\sUhr\b|\sheures?\b|\blas?\s+(?:una|dos|tres|cuatro|cinco|seis"
    r"|siete|ocho|nueve|diez|once|doce)\b"
    rf"|\b(?:{_WORD_HOUR})[\s-](?:{_MINUTE_WORDS})\b"
    rf"|\b(?:five|ten|twenty(?:[\s-]five)?)\s+(?:past|to|after)\s+(?:{_WORD_HOUR})\b",
    re.I,
)
# Substrings every word time holds, tested on the lower-cased text before the regex runs
# (most chat turns hold none).
_WORD_TIME_STEMS = (
    "clock", "noon", "midday", "midnight", "half", "quarter", "mittag", "midi", "minuit",
    "mediod", "halb", "viertel", "uhr", "heure", "la ", "las ", "thirty", "fifteen", "forty",
    "fifty", "twenty", "o five", "o-five", "o nine", "o eight", "o seven", "ten to ",
    "five to ", "ten past", "five past", "ten after", "five after",
)  # fmt: skip
_WORD_TIME_TEST = substring_test(_WORD_TIME_STEMS)


def _word_time_stem(text: str) -> bool:
    low = text.lower()
    return _WORD_TIME_TEST.search(low) is not None


# Routines that are someone's even without "I": "school pickup is at 3pm".
_ROUTINE = compile_on_use(
    r"\b(?:pick(?:ed|s)?\s*-?up|drop(?:ped|s)?\s*-?off|school\s+run|bedtime|alarm|commute|shift|therapy|"
    r"appointment|meds|medication|insulin|pills|workout|gym|yoga|pilates|jog|run|walk|nap|"
    r"curfew|wake[\s-]?up|lunch\s+break|standup|stand-up|lesson|class|practice|training|"
    r"piano|swim|feeding|dog\s+walk)\b",
    re.I,
)
# A clock reading that is not a time: scores, ratios, versions.
_NOT_A_TIME_BEFORE = compile_on_use(
    r"\b(?:score|ratio|aspect|version|v|odds|won|lost|beat|in|took|takes|lasted|time\s+of|"
    r"pace|record|best)\W*$",
    re.I,
)


# Someone else's routine, said in the third person: "the owner wakes at 6:12am".
_HABIT = compile_on_use(
    # German, French, Spanish: a person or a habit ("er", "meine Mutter", "jeden Morgen",
    # "tous les jours", "elle", "cada domingo", "salgo")
    r"\b(?:ich|mich|mein\w*|wir|unser\w*|er|sie|ihr\w*|sein\w*|jeden|jede|jedem|immer|täglich"
    r"|morgens|abends|montags|dienstags|mittwochs|donnerstags|freitags|samstags|sonntags"
    r"|je|j['\u2019]|me|mon|ma|mes|nous|notre|nos|il|elle|ils|elles|tous\s+les|toutes\s+les"
    r"|chaque|toujours|d['\u2019]habitude|yo|mi|mis|nosotros|nuestr[oa]s?|él|ella|ellos"
    r"|todos\s+los|todas\s+las|cada|siempre|normalmente|suelo|suele|salgo|voy|llego"
    r"|kids|children|son|daughter|mum|mom|dad|husband|wife|partner|grandma|grandpa"
    # what someone does at a time of day, in the third person
    r"|steht\s+auf|geht|kommt|isst|arbeitet|schläft|fährt|se\s+l[èe]ve|se\s+couche|part|arrive"
    r"|rentre|mange|d[îi]ne|travaille|sale|llega|se\s+levanta|se\s+acuesta|desayuna|come|cena"
    r"|trabaja|vuelve|entra)\b|"
    r"每天|每周|每晚|每个|每日|总是|一般|通常|我|你|他|她|"
    r"\b(?:wakes|gets\s+up|sleeps|goes\s+to\s+(?:bed|sleep|work|school|the\s+gym)|leaves|"
    r"arrives|gets\s+(?:home|back|in)|comes\s+home|starts\s+work|finishes|works\s+out|eats|"
    r"takes\s+(?:his|her|their)|walks|picks\s+up|drops\s+off|logs\s+(?:on|off|in)|"
    r"usually|always|every\s+(?:day|morning|night|evening|weekday|week)|daily|weekdays|"
    r"nightly|each\s+(?:day|morning|night))\b",
    re.I,
)
# Chinese clock times: "早上6点12分", "下午三点", "9点45"; "6:30" is _TIME's. An hour in
# Chinese numerals needs a part of the day or minutes with it ("一点" is also "a little").
ZH_DAYPART = r"早上|上午|中午|下午|晚上|凌晨|傍晚|夜里|清晨|半夜|深夜|早晨"
_ZH_NUMERAL = "零〇一二两三四五六七八九十"
_ZH_TIME = compile_on_use(
    rf"(?P<part>{ZH_DAYPART})?\s*(?P<h>\d{{1,2}}|[{_ZH_NUMERAL}]{{1,3}})\s*[点點时時]"
    rf"(?P<min>半|一刻|三刻|\s*(?:\d{{1,2}}|[{_ZH_NUMERAL}]{{1,3}})\s*分?)?"
)
_ZH_NUMBERS = dict(
    zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)
)
_ZH_PM = ("中午", "下午", "晚上", "傍晚", "夜里", "深夜")


def _zh_number(raw: str) -> int:
    if raw.isdigit():
        return int(raw)
    if "十" in raw:  # 十 10, 十二 12, 二十 20, 二十三 23
        tens, _, ones = raw.partition("十")
        return (_ZH_NUMBERS.get(tens, 1) if tens else 1) * 10 + (_ZH_NUMBERS.get(ones, 0))
    return _ZH_NUMBERS.get(raw, 0)


def _zh_times(text: str) -> Iterator[Finding]:
    for m in _ZH_TIME.finditer(text):
        if not m.group("h").isdigit() and not (m.group("part") or m.group("min")):
            continue
        yield Finding("exact_time", m.start(), m.end())


def zh_hour(value: str) -> int | None:
    """24-hour hour of a Chinese clock time ("下午三点" -> 15, "晚上9:45" -> 21)."""
    m = _ZH_TIME.search(value) or re.search(rf"(?P<part>{ZH_DAYPART})?\s*(?P<h>\d{{1,2}}):", value)
    if m is None:
        return None
    hour = _zh_number(m.group("h"))
    part = m.group("part") or ""
    if part in _ZH_PM and hour < 12 and not (part == "中午" and hour >= 11):
        hour += 12
    return hour if 0 <= hour <= 24 else None


# A person's date of birth or anniversary, whatever the date format after the cue.
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DATE = (
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\.?(?:,?\s+\d{{4}})?"
    rf"|(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
    r"|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}"
    r"|\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*[日号]|\d{1,2}\s*月\s*\d{1,2}\s*[日号])"
)
_PERSONAL_DATE = compile_on_use(
    r"(?i:born|birthday|birth\s*date|date\s+of\s+birth|d\.?o\.?b\.?|anniversary|"
    r"生日|出生|geboren|geburtstag|né|née|anniversaire|naci[óo]|cumpleaños|nascid[oa])"
    rf"[^.!?\n]{{0,24}}?(?P<date>{_DATE})",
    re.I,
)
# Someone is the subject: "someone asks for the weather at 6:12am", "discord:42 logs on at 9".
_PERSON = compile_on_use(
    r"\b(?:he|she|they|him|her|his|hers|their|them|owner|user|someone|somebody|member|"
    r"[a-z]+:\w*\d\w*)\b",
    re.I,
)
_MACHINE = compile_on_use(
    r"\b(?:UTC|GMT|cron|server|backup|job|deploy|build|script|pipeline|bot)\b", re.I
)


def find(text: str) -> Iterator[Finding]:
    """Yield exact personal times (and personal dates) in ``text``."""
    if not enough_digits(text, 1) and not (_word_time_stem(text) and _WORD_TIME_HINT.search(text)):
        if "点" in text or "點" in text:
            yield from _zh_times(text)  # "下午三点": no digits at all
        return
    for m in _PERSONAL_DATE.finditer(text):
        yield Finding("exact_time", m.start("date"), m.end("date"))
    if "点" in text or "點" in text or "时" in text or "時" in text:
        yield from _zh_times(text)
    person = _HABIT.search(text) or _PERSON.search(text)
    habit = person is not None and not _MACHINE.search(text)
    if not (FIRST_PERSON.search(text) or _ROUTINE.search(text) or habit):
        return
    for m in _TIME.finditer(text):
        if m.group("h1"):
            if _NOT_A_TIME_BEFORE.search(text[: m.start()]):
                continue
            # "3.12" is a version or a price unless "at" or am/pm says it is a time.
            separator = text[m.end("h1")]
            if separator == "." and not (m.group("prep") or m.group("ampm")):
                continue
        # "ten to eight" is a time after "at" or "by", a count in "from ten to eight km"
        frac = (m.group("frac") or "").lower()
        if frac.startswith(("five", "ten", "twenty")) and not _AT_PREP.match(m.group("prep") or ""):
            continue
        # The span is the time itself; the preposition before it stays. A range takes in
        # its other end: "5-6:30pm", "6-7am", "from 6:15 to 7", "von 7 bis 8 Uhr".
        start = m.end("prep") if m.group("prep") else m.start()
        before = _RANGE_START.search(text, max(0, start - 14), start)
        after = _RANGE_END.match(text, m.end())
        yield Finding(
            "exact_time", before.start() if before else start, after.end() if after else m.end()
        )


_AT_PREP = compile_on_use(r"(?i:at|around|about|by|until|till|before|after)\s")
_CLOCK = r"(?:[01]?\d|2[0-3])(?:[:.h][0-5]\d)?(?:\s*(?:a\.?m\.?|p\.?m\.?)(?![a-z]))?"
_RANGE_WORD = r"(?:-|to|till|until|through|bis|à|au|jusqu['\u2019]à|hasta(?:\s+las?)?|a\s+las?)"
_RANGE_START = compile_on_use(rf"(?<![\w:.,]){_CLOCK}\s*{_RANGE_WORD}\s*$", re.I)
_RANGE_END = compile_on_use(rf"\s*{_RANGE_WORD}\s*{_CLOCK}(?![\w:.,]|\s*%)", re.I)


_PM_CONTEXT = compile_on_use(
    r"\b(?:pm|p\.m\.|evening|tonight|night|dinner|supper|bed|bedtime|sleep|asleep|after\s+work|"
    r"afternoon|pick\s*-?up|home\s+from|abends?|nachts?|nachmittags?|soir|soirée|nuit"
    r"|couche|coucher|Bett|schlafen|acuesta|cena|dîne|d[îi]ner"
    r"|après-midi|tarde|noche)\b",
    re.I,
)
_AM_CONTEXT = compile_on_use(
    r"\b(?:am|a\.m\.|morning|breakfast|wakes?|woke|waking|gets?\s+up|getting\s+up|alarm"
    r"|sunrise|dawn|morgens?|früh|frühstück|steht|stehe|aufstehen|matin|réveil\w*|l[èe]ve"
    r"|lever|mañana|madrugada|desayuno|desayuna|levanta|levantarse|despierta)\b",
    re.I,
)


_PM_MARKERS = ("afternoon", "evening", "night", "tarde", "noche", "soir", "après-midi", "abends",
               "nachmittags")  # fmt: skip
_AM_MARKERS = ("morning", "mañana", "matin", "morgens", "früh")


def hour_at(text: str, start: int) -> int | None:
    """24-hour hour of the time ``find`` reported at ``start``, reading am/pm from context."""
    for m in _TIME.finditer(text):
        at = m.end("prep") if m.group("prep") else m.start()
        # a range ("5-6:30pm") starts a few characters before the time that was read
        if at == start or start < at <= start + 14:
            return _hour(m, text)
    return None


def _hour(m: re.Match[str], text: str) -> int:
    if m.group("word"):
        return 0 if m.group("word").lower().startswith(("midnight", "minuit", "medianoche")) else 12
    groups = ("h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9", "h10", "h11", "h12", "h13")
    raw = next(m.group(g) for g in groups if m.group(g)).lower()
    hour = int(raw) if raw.isdigit() else _NUMBER_WORDS.get(raw) or _INTL_HOURS[raw]
    if m.group("dehalf") and m.group("dehalf").lower() != "viertel nach":
        hour = (hour - 1) or 12  # "halb sieben" is 6:30, "Viertel vor acht" 7:45
    if hour > 12 or (m.group("h1") and raw.startswith("0") and not m.group("ampm")):
        return hour  # "14:30", "02:00": a 24-hour clock
    marker = (m.group("ampm") or m.group("ampm2") or m.group("day") or "").lower().strip()
    if marker.startswith("p") or any(w in marker for w in _PM_MARKERS):
        return hour % 12 + 12
    if marker.startswith("a") or any(w in marker for w in _AM_MARKERS):
        return hour % 12
    # No marker on the time itself: the rest of the sentence usually says which half.
    after = text[m.end() : m.end() + 40]
    if _PM_CONTEXT.search(after) or (_PM_CONTEXT.search(text) and not _AM_CONTEXT.search(text)):
        return hour % 12 + 12
    if _AM_CONTEXT.search(text):
        return hour % 12
    if m.group("h1"):  # "3:15" is an afternoon, "6:30" and "9:15" are mornings
        return hour + 12 if 1 <= hour <= 5 else hour
    # "at 7 every ...": people mostly mean 7-11 in the morning and 12-6 in the day.
    return hour if 7 <= hour <= 12 else hour + 12


def part_of_day(hour: int) -> str:
    """Coarse part of day for a 24-hour ``hour``."""
    if 5 <= hour < 8:
        return "early morning"
    if 8 <= hour < 12:
        return "morning"
    if 12 <= hour < 14:
        return "midday"
    if 14 <= hour < 18:
        return "afternoon"
    if 18 <= hour < 22:
        return "evening"
    return "night"
