"""Dates a query names, as time windows. Pure: the reference time is passed in, never read.

- Absolute, in English, German, French and Spanish: "on 3 June, 2023", "June 3rd 2023",
  "2023-06-03", "in July 2023", "in 2022", "am 6. Mai 2023", "le 6 mai 2023", "6 de mayo de
  2023", "im März 2023", "en juillet 2023"; and in Chinese: "2023年5月6日", "2023年5月".
- Without a year, or relative to `now` (only when `now` is given): "5月6号", "五月六号", "十月",
  "去年十月", "上周三", "昨天", "三天前", "上个月", "on 3 June", "yesterday", "last week",
  "last Wednesday", "2 days ago", "gestern", "letzte Woche", "hier", "la semaine dernière",
  "ayer", "el miércoles pasado". A day or month without a year is its latest occurrence up
  to `now`; "last Wednesday" is read both ways English speakers mean it (the latest
  Wednesday before today, and the Wednesday of last week).

Recall uses the windows to prefer facts remembered inside them ("what did Alice say on
3 June?" means the facts written that day). Windows are UTC days, [start, end).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from ..lazy_patterns import compile_on_use
from .analysis import fold, language

Window = tuple[datetime, datetime]  # [start, end), UTC

# Month names, folded (NFKC, case-folded), with and without accents. "may" is English only
# after a day or before a year, like every English form: "I may 5 times" names no date.
_MONTH_NAMES: dict[str, int] = {}
for _i, _names in enumerate(
    [
        "january jan januar janvier enero ene",
        "february feb februar février fevrier febrero",
        "march mar märz maerz marz mars marzo",
        "april apr avril abril",
        "may mai mayo",
        "june jun juni juin junio",
        "july jul juli juillet julio",
        "august aug août aout agosto",
        "september sep sept septembre septiembre setiembre",
        "october oct oktober okt octobre octubre",
        "november nov novembre noviembre",
        "december dec dezember dez décembre decembre diciembre dic",
    ],
    start=1,
):
    for _n in _names.split():
        _MONTH_NAMES[_n] = _i
_MONTH = "|".join(sorted(_MONTH_NAMES, key=len, reverse=True))
_D = r"([0-9]{1,2})(?:st|nd|rd|th|er|º|\.)?"
_Y = r"((?:19|20)[0-9]{2})"
_B = r"(?<![\w\-/:.])"  # a number starts here, not inside another
_E = r"(?![\w\-/:]|\.[0-9])"  # and ends here

# Absolute days, most specific first: day month year (English, German "6. Mai 2023", French
# "6 mai 2023", Spanish "6 de mayo de 2023"), month day year, ISO.
_DAY_MONTH_YEAR = compile_on_use(
    rf"{_B}{_D}\s*(?:of\s+|de\s+)?({_MONTH})\b\.?,?\s*(?:de(?:l)?\s+)?{_Y}{_E}"
)
_MONTH_DAY_YEAR = compile_on_use(rf"\b({_MONTH})\b\.?\s+{_D},?\s+{_Y}{_E}")
_ISO_DAY = compile_on_use(r"(?<![0-9])((?:19|20)[0-9]{2})[-/]([0-9]{2})[-/]([0-9]{2})(?![0-9])")
_MONTH_YEAR = compile_on_use(rf"\b({_MONTH})\b\.?,?\s+(?:of\s+|de(?:l)?\s+)?{_Y}{_E}")
# A bare year only after a word that makes it one ("in 2022", "im Jahr 2021", "en 2020"):
# "I paid 2000 dollars" or "ran 2025 meters" name no year; nor do "555-2023" or "20:23".
_YEAR_ONLY = compile_on_use(
    rf"\b(?:in|during|of|throughout|year|early|late|mid|im|jahr|jahre|en|año|ano|"
    rf"durante|pendant|année|annee)[\s-]+{_Y}{_E}"
)
# Without a year (need `now`): "on 3 June", "June 3rd", "am 6. Mai", "le 6 mai", "6 de mayo".
_DAY_MONTH = compile_on_use(rf"{_B}{_D}\s*(?:of\s+|de\s+)?({_MONTH})\b(?!\.?,?\s*(?:de\s+)?[0-9])")
_MONTH_DAY = compile_on_use(rf"\b({_MONTH})\b\.?\s+{_D}(?![0-9]|,?\s*(?:19|20)[0-9]{{2}})(?!\w)")
# "in June", "im Juni", "en juin", "en junio", "last June" (not "may": a verb in English).
_IN_MONTH = compile_on_use(rf"\b(in|im|en|last|during|this)\s+({_MONTH})\b(?!\s*[0-9])")

# Chinese. Numbers may be digits or Chinese numerals (一 .. 三十一).
_CN_NUM = r"([0-9]{1,2}|[一二两三四五六七八九十]{1,3})"
_CN_YEAR = r"((?:19|20)[0-9]{2})年"
_CN_REL_YEAR = r"(今年|去年|前年|明年)"
_CN_DAY = compile_on_use(rf"(?:{_CN_YEAR}|{_CN_REL_YEAR})?{_CN_NUM}月{_CN_NUM}[日号號]")
_CN_DIGITS = "0-9一二两三四五六七八九十"
_CN_MONTH = compile_on_use(rf"(?:{_CN_YEAR}|{_CN_REL_YEAR})?{_CN_NUM}月(?![{_CN_DIGITS}]+[日号號])")
_CN_YEAR_ONLY = compile_on_use(rf"{_CN_YEAR}(?![{_CN_DIGITS}]+月)")
_CN_WEEKDAY = compile_on_use(r"(上上|上|这|这个|本|下)?(?:个)?(?:周|星期|礼拜)([一二三四五六日天])")
_CN_RELATIVE = {
    "大前天": -3,
    "前天": -2,
    "昨天": -1,
    "昨日": -1,
    "今天": 0,
    "今日": 0,
}
_CN_AGO = compile_on_use(rf"{_CN_NUM}(?:个)?(天|日|周|星期|礼拜|月)(?:以前|之前|前)")
_CN_SPANS = {
    "上周": ("week", -1),
    "上星期": ("week", -1),
    "上个星期": ("week", -1),
    "上礼拜": ("week", -1),
    "上个礼拜": ("week", -1),
    "这周": ("week", 0),
    "本周": ("week", 0),
    "这个星期": ("week", 0),
    "上个月": ("month", -1),
    "上月": ("month", -1),
    "这个月": ("month", 0),
    "本月": ("month", 0),
    "去年": ("year", -1),
    "前年": ("year", -2),
    "今年": ("year", 0),
}

# European relative words: word -> days from today. French "hier" (yesterday) is German
# "here", so it counts only in a French query.
_REL_DAYS = {
    "yesterday": -1,
    "today": 0,
    "gestern": -1,
    "vorgestern": -2,
    "heute": 0,
    "avant-hier": -2,
    "aujourd'hui": 0,
    "ayer": -1,
    "anteayer": -2,
    "hoy": 0,
}
_REL_DAY = compile_on_use(r"(?<![\w'-])(" + "|".join(map(re.escape, _REL_DAYS)) + r")(?![\w'-])")
_HIER = compile_on_use(r"(?<![\w'-])hier(?![\w'-])")
# English "may" and "mar" are words too: "I may 5 times". Without a year they are months
# only after "on", "since", "until", "by", "before" or "after", or with an ordinal ("May 5th").
_MONTH_WORD_CUE = compile_on_use(r"\b(?:on|since|until|till|by|before|after|from)\s+$")
_WEEKDAYS = {
    **dict.fromkeys(["monday", "montag", "lundi", "lunes"], 0),
    **dict.fromkeys(["tuesday", "dienstag", "mardi", "martes"], 1),
    **dict.fromkeys(["wednesday", "mittwoch", "mercredi", "miércoles", "miercoles"], 2),
    **dict.fromkeys(["thursday", "donnerstag", "jeudi", "jueves"], 3),
    **dict.fromkeys(["friday", "freitag", "vendredi", "viernes"], 4),
    **dict.fromkeys(["saturday", "samstag", "sonnabend", "samedi", "sábado", "sabado"], 5),
    **dict.fromkeys(["sunday", "sonntag", "dimanche", "domingo"], 6),
}
_WEEKDAY = "|".join(_WEEKDAYS)
# "last wednesday", "letzten Mittwoch", "mercredi dernier", "el miércoles pasado".
_LAST_WEEKDAY = compile_on_use(
    rf"\b(?:last|letzten|letzter|vergangenen)\s+({_WEEKDAY})\b|\b({_WEEKDAY})\s+(?:dernier|pasado)\b"
)
_ON_WEEKDAY = compile_on_use(rf"\b(?:on|am|el)\s+({_WEEKDAY})\b")
# French names a past day bare ("passé mardi"); "le mardi" is every Tuesday.
_FR_WEEKDAY = compile_on_use(r"(?<!\ble )\b(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\b")
_LAST_SPAN = compile_on_use(
    r"\b(?:last|letzte|letzten|letzter|vergangene|vergangenen)\s+(week|woche|month|monat|year|jahr)\b"
    r"|\b(?:la|le|l')\s*(semaine|mois|année|annee)\s+(?:dernière|derniere|dernier|passée|passee|passé|passe)\b"
    r"|\b(?:la|el)\s+(semana|mes|año|ano)\s+(?:pasad[oa]|anterior)\b"
    r"|\b(?:l'an)\s+(?:dernier|passé|passe)\b"
)
_SPAN_UNIT = {
    "week": "week",
    "woche": "week",
    "semaine": "week",
    "semana": "week",
    "month": "month",
    "monat": "month",
    "mois": "month",
    "mes": "month",
    "year": "year",
    "jahr": "year",
    "année": "year",
    "annee": "year",
    "año": "year",
    "ano": "year",
}
_AGO = compile_on_use(
    r"\b([0-9]{1,2}|a|one|two|three|four|five|six|seven)\s+(day|days|week|weeks|month|months)\s+ago\b"
    r"|\bvor\s+([0-9]{1,2}|einem|einer|zwei|drei|vier|fünf)\s+(tag|tagen|woche|wochen|monat|monaten)\b"
    r"|\bil y a\s+([0-9]{1,2}|un|une|deux|trois|quatre|cinq)\s+(jour|jours|semaine|semaines|mois)\b"
    r"|\bhace\s+([0-9]{1,2}|un|una|dos|tres|cuatro|cinco)\s+(día|dia|días|dias|semana|semanas|mes|meses)\b"
)
_SMALL = {
    "a": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "einem": 1,
    "einer": 1,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "un": 1,
    "une": 1,
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    "una": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
}


# Something every form above needs: a digit, a month or weekday name, a relative word, or a
# CJK date character.
_ANY_CUE = compile_on_use(
    rf"[0-9年月日号號周星期礼拜天昨今去前]|\b(?:{_MONTH}|{_WEEKDAY}|yesterday|today|ago|last|"
    r"week|month|year|gestern|vorgestern|heute|letzte\w*|vergangene\w*|vor|hier|avant-hier|"
    r"aujourd'hui|dernier|derniere|dernière|passée|passee|semaine|mois|l'an|ayer|anteayer|hoy|"
    r"pasad[oa]|anterior|hace|semana|mes|il y a)\b"
)


def _cn_number(s: str) -> int:
    """A Chinese numeral up to 99 (一, 十, 十二, 二十, 二十五) or digits."""
    if s.isdigit():
        return int(s)
    digits = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
    if "十" not in s:
        return digits.get(s, 0) if len(s) == 1 else 0
    tens, _, ones = s.partition("十")
    return (digits.get(tens, 0) if tens else 1) * 10 + (digits.get(ones, 0) if ones else 0)


def _day(y: int, m: int, d: int) -> Window | None:
    try:
        start = datetime(y, m, d, tzinfo=UTC)
    except ValueError:  # "31 June": not a date, so no window
        return None
    return start, start + timedelta(days=1)


def _month(y: int, m: int) -> Window | None:
    if not (1 <= m <= 12 and 1 <= y <= 9998):
        return None
    return datetime(y, m, 1, tzinfo=UTC), datetime(y + m // 12, m % 12 + 1, 1, tzinfo=UTC)


def _year(y: int) -> Window:
    return datetime(y, 1, 1, tzinfo=UTC), datetime(y + 1, 1, 1, tzinfo=UTC)


def _days(start: date, n: int = 1) -> Window:
    s = datetime(start.year, start.month, start.day, tzinfo=UTC)
    return s, s + timedelta(days=n)


def _latest_day(today: date, m: int, d: int) -> Window | None:
    """The latest `d`/`m` on or before `today` (a day without a year)."""
    for y in (today.year, today.year - 1, today.year - 2):  # 29 Feb: within a few years
        w = _day(y, m, d)
        if w is not None and w[0].date() <= today:
            return w
    return None


def _latest_month(today: date, m: int) -> Window | None:
    return _month(today.year if m <= today.month else today.year - 1, m)


def _shift_month(today: date, n: int) -> Window | None:
    total = today.year * 12 + today.month - 1 + n
    return _month(total // 12, total % 12 + 1)


def _span(today: date, unit: str, n: int) -> Window | None:
    """The calendar week (Monday first), month or year `n` of them from this one."""
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=n)
        return _days(monday, 7)
    if unit == "month":
        return _shift_month(today, n)
    return _year(today.year + n)


def _rel_year(today: date, word: str | None, year: str | None) -> int | None:
    if year:
        return int(year)
    if word:
        return today.year + {"今年": 0, "去年": -1, "前年": -2, "明年": 1}[word]
    return None


Reader = Callable[[re.Match[str]], list[Window | None]]


def _scan(text: str, pattern: re.Pattern[str], read: Reader, found: list[Window | None]) -> str:
    """Read every match into `found`; return the text with the matches blanked out, so a
    day is not also read as its month or year."""
    for m in pattern.finditer(text):
        found += read(m)
    return pattern.sub(lambda m: " " * len(m[0]), text)


def windows(query: str, now: datetime | None = None) -> list[Window]:
    """Every date the query names, most specific reading first. Relative and yearless forms
    need `now` (the time the question is asked); without it only full dates are read."""
    text = fold(query)
    if not _ANY_CUE.search(text):  # most questions name no date: skip the patterns
        return []
    today = now.astimezone(UTC).date() if now is not None else None
    found: list[Window | None] = []

    def cn_day(m: re.Match[str]) -> list[Window | None]:
        y = _rel_year(today, m[2], m[1]) if today else (int(m[1]) if m[1] else None)
        mo, d = _cn_number(m[3]), _cn_number(m[4])
        if y is not None:
            return [_day(y, mo, d)]
        return [_latest_day(today, mo, d)] if today and 1 <= mo <= 12 else []

    def cn_month(m: re.Match[str]) -> list[Window | None]:
        y = _rel_year(today, m[2], m[1]) if today else (int(m[1]) if m[1] else None)
        mo = _cn_number(m[3])
        if y is not None:
            return [_month(y, mo)]
        return [_latest_month(today, mo)] if today and 1 <= mo <= 12 else []

    # Full dates: no reference time needed.
    text = _scan(text, _CN_DAY, cn_day, found)
    text = _scan(text, _CN_MONTH, cn_month, found)
    text = _scan(text, _CN_YEAR_ONLY, lambda m: [_year(int(m[1]))], found)
    text = _scan(
        text,
        _DAY_MONTH_YEAR,
        lambda m: [_day(int(m[3]), _MONTH_NAMES[m[2]], int(m[1]))],
        found,
    )
    text = _scan(
        text,
        _MONTH_DAY_YEAR,
        lambda m: [_day(int(m[3]), _MONTH_NAMES[m[1]], int(m[2]))],
        found,
    )
    text = _scan(text, _ISO_DAY, lambda m: [_day(int(m[1]), int(m[2]), int(m[3]))], found)
    text = _scan(text, _MONTH_YEAR, lambda m: [_month(int(m[2]), _MONTH_NAMES[m[1]])], found)
    text = _scan(text, _YEAR_ONLY, lambda m: [_year(int(m[1]))], found)
    if today is not None:
        text = _relative(text, today, found)
    return [w for w in found if w is not None]


def _relative(text: str, today: date, found: list[Window | None]) -> str:
    def weekday_cn(m: re.Match[str]) -> list[Window | None]:
        wd = "一二三四五六日".find(m[2]) if m[2] != "天" else 6
        week = {"上上": -2, "上": -1, "这": 0, "这个": 0, "本": 0, "下": 1}.get(m[1] or "")
        if week is None:  # a bare "周三": the latest Wednesday up to today
            back = (today.weekday() - wd) % 7
            return [_days(today - timedelta(days=back))]
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=week)
        return [_days(monday + timedelta(days=wd))]

    def ago_cn(m: re.Match[str]) -> list[Window | None]:
        n, unit = _cn_number(m[1]), m[2]
        if unit in ("天", "日"):
            return [_days(today - timedelta(days=n))]
        if unit == "月":
            return [_shift_month(today, -n)]
        return [_span(today, "week", -n)]

    text = _scan(text, _CN_WEEKDAY, weekday_cn, found)
    text = _scan(text, _CN_AGO, ago_cn, found)
    for word in sorted((*_CN_RELATIVE, *_CN_SPANS), key=len, reverse=True):
        if word in text:
            if word in _CN_RELATIVE:
                found.append(_days(today + timedelta(days=_CN_RELATIVE[word])))
            else:
                unit, n = _CN_SPANS[word]
                found.append(_span(today, unit, n))
            text = text.replace(word, " " * len(word))
    text = _scan(
        text, _DAY_MONTH, lambda m: [_latest_day(today, _MONTH_NAMES[m[2]], int(m[1]))], found
    )

    def month_day(m: re.Match[str]) -> list[Window | None]:
        ordinal = not m[0].rstrip()[-1].isdigit()
        cued = _MONTH_WORD_CUE.search(text[: m.start()]) is not None
        if m[1] in ("may", "mar") and not (ordinal or cued):
            return []
        return [_latest_day(today, _MONTH_NAMES[m[1]], int(m[2]))]

    text = _scan(text, _MONTH_DAY, month_day, found)

    def in_month(m: re.Match[str]) -> list[Window | None]:
        if m[2] == "may" or m[2] == "mar":  # English "may" / "mar" are verbs too
            return []
        mo = _MONTH_NAMES[m[2]]
        if m[1] == "this":
            return [_month(today.year, mo)]
        if m[1] == "last" and mo == today.month:  # "last June", said in June
            return [_month(today.year - 1, mo)]
        return [_latest_month(today, mo)]

    text = _scan(text, _IN_MONTH, in_month, found)
    text = _scan(text, _REL_DAY, lambda m: [_days(today + timedelta(days=_REL_DAYS[m[1]]))], found)
    french = language(text) == "fr"
    if french:
        text = _scan(text, _HIER, lambda m: [_days(today - timedelta(days=1))], found)

    def last_weekday(m: re.Match[str]) -> list[Window | None]:
        wd = _WEEKDAYS[m[1] or m[2]]
        back = (today.weekday() - wd) % 7 or 7  # the latest one before today
        of_last_week = today - timedelta(days=today.weekday() + 7 - wd)
        days = {today - timedelta(days=back), of_last_week}
        return [_days(d) for d in sorted(days, reverse=True)]

    text = _scan(text, _LAST_WEEKDAY, last_weekday, found)
    if french:
        text = _scan(
            text,
            _FR_WEEKDAY,
            lambda m: [_days(today - timedelta(days=(today.weekday() - _WEEKDAYS[m[1]]) % 7))],
            found,
        )
    text = _scan(
        text,
        _ON_WEEKDAY,
        lambda m: [_days(today - timedelta(days=(today.weekday() - _WEEKDAYS[m[1]]) % 7))],
        found,
    )

    def last_span(m: re.Match[str]) -> list[Window | None]:
        unit = next((g for g in m.groups() if g), None)
        return [_span(today, _SPAN_UNIT[unit] if unit else "year", -1)]

    text = _scan(text, _LAST_SPAN, last_span, found)

    def ago(m: re.Match[str]) -> list[Window | None]:
        groups = [g for g in m.groups() if g]
        n_raw, unit = groups[0], groups[1]
        n = int(n_raw) if n_raw.isdigit() else _SMALL.get(n_raw, 1)
        if unit.startswith(("day", "tag", "jour", "día", "dia")):
            return [_days(today - timedelta(days=n))]
        if unit.startswith(("week", "woche", "semaine", "semana")):
            return [_days(today - timedelta(weeks=n) - timedelta(days=3), 7)]
        return [_shift_month(today, -n)]

    return _scan(text, _AGO, ago, found)
