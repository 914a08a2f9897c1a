"""Codes named by what they open, and logins written the short way.

- a code after the thing it opens, in the same clause: "garage keypad got reset, new code is
  4-8-1-9", "office alarm: 0612 then OFF", "Haustür-Code ist 1739", "boîte à clés du gîte :
  3-9-1-6", "caja fuerte del hotel: puse 0-6-1-9", "门锁密码改了 新的是 #2580*9", "Die PUK
  für die alte SIM-Karte lautet 83920173". The digits whole (after a code word, a colon or a
  copula), one by one with separators, or spelled ("Code vier-sechs-null-zwei");
- a network key after the network's name: "WLAN bei Oma: FRITZ!Box 7590, Schlüssel 4481 9920
  3371 5526 0093", "wifi : Livebox-7A2C / clé 9dFq4kMz2WsA3Hx7Re";
- an account and its secret one after the other: "usuario 48293175, clave 902817";
- a password on a command line: ``mysql -uroot -p'Tianjin#1987'``, ``--password=...``;
- the value first, pointing at what it is: "Tigerlily77 <- thats the printer admin password";
- a passphrase of plain words: "my gpg passphrase is correct lantern under the stairs".

A year, a time, a price or a measure after such a word is none of these: the digits must be
a code's (4-10 of them, no unit after) and a whole number needs a code word, a colon or a
copula before it ("the garage was built in 1984" is not a code).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from . import spelled
from ._text import NOT_A_VALUE, enough_digits, has_digit, substring_test, trim_value
from .credentials import in_general
from .findings import Finding
from .values import generated_looking, strongly_generated

CATEGORY = "credential"

# What a code opens, in the five languages.
_LOCK = (
    r"(?i:(?:front\s+|back\s+)?door|gate|garage|keypad|alarm|lock\s?box|key\s?(?:safe|box)"
    r"|safe|padlock|locker|intercom|buzzer|PUK|(?:Haus|Wohnungs)?t(?:ü|ue)r\w*|Tor|(?:Garagen|Garten|Hof|Roll)tor|Garage"
    r"|Alarm(?:anlage)?|Schl(?:ü|ue)ssel(?:box|kasten|safe|tresor)|Tresor|Zahlenschloss"
    r"|Fahrradschloss|porte|portail|alarme|bo[iî]te\s+(?:à|a|aux)\s+cl(?:é|e|ef)s?"
    r"|coffre(?:-fort)?|cadenas|digicode|interphone|casier|puerta|portal|port[óo]n|garaje"
    r"|alarma|caja\s+fuerte|cajet[íi]n|candado|telefonillo|taquilla|code\s+pin|PUK)|PIN"
)
_LOCK_ZH = r"门锁|门禁|密码锁|保险箱|保险柜|车库|大门|防盗门|(?:银行卡|支付|取款)?密码"
_LOCK_RE = compile_on_use(rf"(?<![\w-])(?:{_LOCK})(?!\w)|{_LOCK_ZH}")
_LOCK_STEMS = ("door", "gate", "garage", "keypad", "alarm", "lock", "key", "safe", "locker",
               "intercom", "buzzer", "puk", "tür", "tuer", "tor", "schl", "tresor", "porte",
               "portail", "boîte", "boite", "coffre", "cadenas", "digicode", "interphone",
               "casier", "puerta", "portal", "portón", "garaje", "caja", "cajet", "candado",
               "telefonillo", "taquilla", "pin", "门", "锁", "保险", "车库", "密码")  # fmt: skip
_LOCK_TEST = substring_test(_LOCK_STEMS)
_ZH_SPACED = compile_on_use(rf"[{spelled.ZH_DIGITS}]\s[{spelled.ZH_DIGITS}]")
# Words that name the code itself, between the thing and its digits.
_CODE_WORD = compile_on_use(
    r"(?i:\b(?:code|codes|pin|puk|combo|combination|c[óo]digo|clave|combinaci[óo]n|codice"
    r"|Kombination)\b|(?:code|pin)\b|密码|口令)"
)
# What may stand right before a whole number: a colon or a copula, or "I set", "puse".
_BEFORE_VALUE = compile_on_use(
    r"(?:[:=\uff1a]|(?i:\b(?:is|was|ist|lautet|est|c['\u2019]est|es|era|now|jetzt|puse|marca|mis"
    r"|pon|tape|tippe|type|enter|dial))|是|为|改成|换成)[\s#*]*$"
)
_CLAUSE_END = compile_on_use(r"[.!?\n\u3002\uff01\uff1f;]")
_REACH = 60
# A code: its digits whole (a # or * may be part of it), or one by one with separators.
_DIGITS = compile_on_use(
    r"(?<![\w.,/:-])(?P<v>[#*]?\d{4,10}(?:[#*]\d{0,4})?)(?![\w%€$£]|[.,/:-]\d)"
    r"|(?<![\w.,/:-])(?P<sep>\d(?:[ \t]?[-./][ \t]?\d|[ \t]\d){3,9})(?![\w%€$£]|[ \t]?[-.,]?\d)"
)
# What follows a number that is a measure, a time or a sum, not a code.
_UNIT_AFTER = compile_on_use(
    r"\s*(?i:mm|cm|m|km|kg|g|lbs?|kb|mb|gb|€|eur|euros?|usd|dollars?|\$|£|yuan|元|块|h|hrs?"
    r"|hours?|meters?|metres?|m[èe]tres?|metros?|meter|miles?|feet|ft|yards?|uhr|heures?|horas?|min|minutes?|sec|seconds?|years?|jahre?|ans|años|年|号|am|pm"
    r"|times|mal|fois|veces|people|personen|personnes|personas|cars?|autos?|voitures?|coches?)\b"
)
_YEAR = compile_on_use(r"(?:19|20)\d\d")
_HHMM = compile_on_use(r"(?:[01]\d|2[0-3])[0-5]\d")


def _codes(text: str) -> Iterator[Finding]:
    for lock in _LOCK_RE.finditer(text):
        if in_general(text, lock.start()):
            continue  # "the most common PIN is 1234", "the default door code is 0000"
        window_end = min(len(text), lock.end() + _REACH)
        stop = _CLAUSE_END.search(text, lock.end(), window_end)
        window = text[lock.end() : stop.start() if stop else window_end]
        base = lock.end()
        named = (
            _CODE_WORD.fullmatch(lock.group()) is not None
            or lock.group().lower() in ("puk", "code pin")
            or "密码" in lock.group()
        )
        for m in _DIGITS.finditer(window):
            start, end = base + m.start(), base + m.end()
            if _UNIT_AFTER.match(text, end):
                continue
            before = window[: m.start()]
            coded = named or _CODE_WORD.search(before) is not None
            if m.group("sep") is not None:
                if coded or _BEFORE_VALUE.search(before):
                    yield Finding(CATEGORY, start, end)
                continue
            value = m.group("v")
            if (_YEAR.fullmatch(value) or _HHMM.fullmatch(value)) and not coded:
                continue  # "alarm: 0630", "la porte: 1830": a time, unless a code is named
            after_colon = _BEFORE_VALUE.search(before) is not None
            if after_colon and (coded or len(before.strip()) <= 2):
                yield Finding(CATEGORY, start, end)
        for m in spelled.DIGIT_RUN.finditer(window):
            if spelled.digit_count(m.group()) >= 4 and (named or _CODE_WORD.search(window)):
                yield Finding(CATEGORY, base + m.start(), base + m.end())


# -- a network key after the network's name ---------------------------------------------------
_NETWORK_KEY = compile_on_use(
    r"(?i:\b(?:wi-?fi|wlan|w-lan|router|livebox|freebox|fritz!?box|box)\b)[^\n.!?]{0,40}?"
    r"(?i:\b(?:key|cl[ée]|schl(?:ü|ue)ssel|clave|passwor[dt]|pass|psk|kennwort|contrase[ñn]a"
    r"|mot\s+de\s+passe|mdp)\b)\s*[:=]?\s*"
    r"(?P<v>\d{4}(?:[ \t]\d{4}){2,7}|[^\s\"'()]{8,64})"
)
# -- an account and its secret, one after the other --------------------------------------------
_ACCOUNT_THEN_SECRET = compile_on_use(
    r"(?i:\b(?:usuario|user(?:name)?|benutzer(?:name)?|nutzer(?:name)?|identifiant|login"
    r"|utilisateur|id)\b)\s*:?\s*[^\s,;/]{3,40}\s*[,;/]\s*(?:y\s+|und\s+|et\s+|and\s+)?"
    r"(?i:\b(?:clave|contrase[ñn]a|pass(?:word|wort)?|pw|pwd|kennwort|mot\s+de\s+passe|mdp"
    r"|pin|code)\b)\s*[:=]?\s*(?P<v>[^\s,;]{4,64})"
)
# -- a password on a command line --------------------------------------------------------------
_COMMAND_LINE = compile_on_use(
    r"(?:\b(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n]*?\s-p|\bsshpass\s+-p\s*"
    r"|--password[= ]|\s-P\s+)(?:'(?P<q1>[^'\n]{3,64})'|\"(?P<q2>[^\"\n]{3,64})\""
    r"|(?P<v>[^\s'\"-][^\s]{2,63}))"
)
# -- the value first, pointing at what it is ---------------------------------------------------
_POINTED = compile_on_use(
    r"(?<![\w-])(?P<v>[^\s<]{6,64})\s*(?:<-+|<=|\u2190|<<)\s*(?i:that'?s|thats|is|it'?s"
    r"|c['\u2019]est|es|ist|das\s+ist)?\s*(?i:the|my|our|le|la|el|das|der|die|mon|mi)?\s*"
    r"(?:[\w-]+\s+){0,3}?(?i:password|passwort|pw|pwd|passcode|mot\s+de\s+passe|mdp"
    r"|contrase[ñn]a|clave|pin|kennwort)\b|(?P<vz>[^\s<]{6,64})\s*(?:<-+|\u2190)\s*[^\n]{0,12}?密码"
)
# -- a passphrase of plain words ---------------------------------------------------------------
_PASSPHRASE = compile_on_use(
    r"(?i:\bpass\s?phrase|phrase\s+de\s+passe|frase\s+(?:de\s+)?contrase[ñn]a|Passsatz"
    r"|Passphrase)\b[^\n.,;:!?]{0,20}?\s(?i:is|was|ist|lautet|est|c['\u2019]est|es|era)\s+"
    r"(?P<v>[a-zà-ÿ]+(?:\s+[a-zà-ÿ]+){2,7})(?=\s*(?:[(,.;!?\n]|$))"
)
_NOT_PHRASE_START = frozenset(
    """the a an my your our his her their too so very not still same just really quite easy
    hard long short weak strong in on at stored saved written somewhere different expired wrong
    also always never only written kept le la les un une mon ma trop très pas toujours
    dans sur el los las uno una mi muy demasiado no siempre en der die das ein eine mein zu
    sehr nicht immer noch auch im""".split()
)
_NETWORK_TEST = substring_test(("wi", "wlan", "w-lan", "router", "box"))
_ACCOUNT_TEST = substring_test(
    ("usuario", "user", "nutzer", "identifiant", "login", "utilisateur", "id ", "id:")
)
_POINTER_TEST = substring_test(("<-", "<=", "\u2190", "<<"))


def find(text: str) -> Iterator[Finding]:
    """Yield the values of codes and short-form logins in ``text``."""
    low = text.lower()
    # every code has four digits or is spelled: most turns that name a door have neither
    if (
        enough_digits(text, 4)
        or spelled.hint(text)
        or (not text.isascii() and _ZH_SPACED.search(text) is not None)
    ) and _LOCK_TEST.search(low):
        yield from _codes(text)
    # each form below has a word or a sign of its own, looked for first (a substring test)
    if _NETWORK_TEST.search(low):
        for m in _NETWORK_KEY.finditer(text):
            value = m.group("v")
            if strongly_generated(value.split()[0]) or sum(c.isdigit() for c in value) >= 10:
                yield Finding(CATEGORY, m.start("v"), trim_value(text, m.start("v"), m.end("v")))
    if _ACCOUNT_TEST.search(low):
        for m in _ACCOUNT_THEN_SECRET.finditer(text):
            value = m.group("v")
            if value.lower() not in NOT_A_VALUE and (
                generated_looking(value) or sum(c.isdigit() for c in value) >= 4
            ):
                yield Finding(CATEGORY, m.start("v"), trim_value(text, m.start("v"), m.end("v")))
    if "-p" in text or "--password" in text or " -P " in text:
        for m in _COMMAND_LINE.finditer(text):
            group = next(g for g in ("q1", "q2", "v") if m.group(g) is not None)
            if group != "v" or generated_looking(m.group("v")):
                yield Finding(CATEGORY, m.start(group), m.end(group))
    if _POINTER_TEST.search(text):
        for m in _POINTED.finditer(text):
            group = "v" if m.group("v") is not None else "vz"
            value = m.group(group)
            if generated_looking(value) or (has_digit(value) and any(c.isalpha() for c in value)):
                yield Finding(CATEGORY, m.start(group), m.end(group))
    if "phrase" in low or "passsatz" in low:
        for m in _PASSPHRASE.finditer(text):
            if m.group("v").split()[0].lower() not in _NOT_PHRASE_START:
                yield Finding(CATEGORY, m.start("v"), m.end("v"))
