"""Everyday secrets: how people write a password down without saying "my password is".

- an environment or config line: ``DB_PASSWORD=hunter2``, ``export WIFI_PSK=...``,
  ``smtp_pass: "..."``: a name whose last part is a secret word, then its value;
- a login after what it opens, as "user / password": ``wifi: HomeNet / sunflower22``,
  ``router login admin / Tr0ub4dor``, ``Zugang: admin / Geheim123``;
- a short form that names what it opens (``wifi pass sunflower22``, ``bank pin 4471``) or
  starts a line (``code: 4471``, ``key: Zebra-Crossing-12``), or a dash (``pwd - bluebird``);
- a password given by a verb phrase once the sentence has named it: "new wifi password? I
  set it to tangerine-sky-7", "Passwort geändert, jetzt ist es ...", "je l'ai changé en ...";
- a PIN or password spelled out: "PIN: four seven one nine", "vier sieben eins neun",
  "四七一九", "password: capital K, i, w, i, seven, seven".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from . import cues, spelled
from ._text import NOT_A_VALUE, prose_shaped, substring_test, trim_value
from .findings import Finding
from .values import CODE_REFERENCE, generated_looking, high_entropy, strongly_generated

CATEGORY = "credential"

# -- environment and config lines ------------------------------------------------------------
# The last part of the name says what the value is. Names whose last part is something else
# (PASSWORD_MIN_LENGTH, TOKEN_TTL, KEY_SIZE) are settings, not secrets.
_LOOSE_PARTS = r"TOKEN|KEY|APIKEY|AUTH|CREDENTIALS?|CREDS"
_SECRET_PARTS = rf"PASS(?:WORD|WD|PHRASE|CODE)?|PWD|PW|PSK|PIN|SECRET|{_LOOSE_PARTS}"
_ENV = compile_on_use(
    r"(?<![\w$.{}/-])[\"']?"
    rf"(?P<name>(?:[A-Z][A-Z0-9]*_)*(?P<part>{_SECRET_PARTS})(?:_\d{{1,2}})?"
    rf"|(?:[a-z][a-z0-9]*_)+(?P<lpart>(?i:{_SECRET_PARTS}))(?:_\d{{1,2}})?)"
    r"[\"']?[ \t]*(?:=|:(?!//))[ \t]*"
    r"(?:\"(?P<dq>[^\"\n]{1,200})\"|'(?P<sq>[^'\n]{1,200})'|(?P<v>[^\s\"'#;,]{1,200}))"
)
# An unquoted value ends its line or clause: what follows is nothing, punctuation, a comment,
# or another assignment. "api_key: see the docs" is a sentence, not a value.
_VALUE_ENDS = compile_on_use(
    r"[ \t]*(?:$|[\n;,#)\]}]|[.!?](?:\s|$)|[ \t]+(?:and|&&|und|et|y)\b"
    r"|[ \t]+[\"']?[A-Za-z_][\w.]*[\"']?[ \t]*[=:])"
)
_NOT_SET = frozenset(
    "true false yes no none null nil on off empty unset undefined required".split()
)
_ENV_STEMS = ("pass", "pwd", "pw", "psk", "pin", "secret", "token", "key", "auth", "cred")
_ENV_TEST = substring_test(_ENV_STEMS)
_ASSIGN = compile_on_use(r"\w[\"']?[ \t]*[=:]")


def _env(text: str) -> Iterator[Finding]:
    for m in _ENV.finditer(text):
        group = next(g for g in ("dq", "sq", "v") if m.group(g) is not None)
        start, end = m.span(group)
        value = text[start:end]
        # "DB_PASS=Tr0ub4dor&3x9 is in the .env": a value that cannot be a word may be
        # followed by the rest of a sentence
        if group == "v" and not _VALUE_ENDS.match(text, end) and not strongly_generated(value):
            continue
        part = (m.group("part") or m.group("lpart")).upper()
        if _env_secret(value, part):
            yield Finding(CATEGORY, start, trim_value(text, start, end) if group == "v" else end)


def _env_secret(value: str, part: str) -> bool:
    if CODE_REFERENCE.match(value) or value.lower() in _NOT_SET or value.isspace():
        return False
    if part == "PIN":
        return sum(ch.isdigit() for ch in value) >= 4
    if re.fullmatch(_LOOSE_PARTS, part):  # CACHE_KEY=users, SORT_KEY=created_at
        digits = any(ch.isdigit() for ch in value)
        return high_entropy(value) or (len(value) >= 8 and digits and generated_looking(value))
    return len(value) >= 3


# -- logins after what they open -------------------------------------------------------------
# What a login opens: a network, a box, a bank, a mailbox, a service account.
_LOGIN_PLACE = (
    r"wi-?fi|wlan|w-lan|router|modem|(?:internet\s*)?box(?:\s+internet)?|fritz!?box|livebox"
    r"|freebox|bbox|bank(?:ing)?|banque|banco|online[\s-]?banking|netbanking|e-?mail|mail|webmail"
    r"|vpn|nas|server|ssh|s?ftp|db|database|admin|portal|intranet|login|log-?in|account|acct"
    r"|konto|compte|cuenta|zugang(?:sdaten)?|identifiants?|acc[eè]s|acceso|credenciales"
    r"|datos\s+de\s+acceso"
)
# Words for the account itself: "Netflix Konto ...", "usuario banco: ...", "login banque : ..."
_LOGIN_WORDS = (
    # German compounds too: "Kundenkonto", "Onlinezugang"
    r"login|log-?in|creds|credentials|account|acct|\w*konto|compte|cuenta|\w*zugang|identifiants?"
    r"|acceso|user(?:name)?|usuario|utilisateur|benutzer(?:name)?|nutzer"
)
# Chinese places take what follows them: "路由器后台", "网银登录", "邮箱账号" (no word boundary)
_LOGIN_PLACE_ZH = (
    r"(?:路由器|光猫|网银|邮箱|账号|帐号|账户|宽带|无线|银行|后台)[\u4e00-\u9fff]{0,4}"
)
# "wifi: HomeNet / sunflower22", "router login admin / Tr0ub4dor", "Netflix: anna.k /
# Movies2023", "WLAN: FRITZ!Box 7590 / 4821...", "netflix: familia.ruiz / Pelis_Finde22". The
# label is one word, then up to two more words for a place or an account: a place a login
# opens, a capitalised name, or (before a colon) any word.
_USER_SLASH = compile_on_use(
    rf"(?:(?<![\w-])(?P<label>(?i:{_LOGIN_PLACE}|{_LOGIN_WORDS})|(?P<cap>[A-Z][\w!&.+-]{{1,20}})"
    rf"|(?P<low>[a-z][\w!&.+-]{{1,20}})(?=[ \t]*:))(?P<more>(?:[ \t]+(?i:{_LOGIN_PLACE}"
    rf"|{_LOGIN_WORDS})(?![\w-])){{0,2}})|(?P<zh>{_LOGIN_PLACE_ZH}))"
    r"(?:[ \t]*[:=][ \t]*|[ \t]+[-\u2013\u2014][ \t]+|[ \t]+)"
    r"(?P<user>[^\s/|]{2,40}(?:[ \t][^\s/|:]{1,20}){0,2}?)[ \t]*(?:/|\|)[ \t]*"
    r"(?P<v>[^\s/|]{3,64})"
)
_PLACE_LABEL = compile_on_use(rf"(?i:{_LOGIN_PLACE}|{_LOGIN_WORDS})")
_ACCOUNT_LIKE = compile_on_use(r"[\d@._]|^(?i:admin|root|guest|user|pi|ubnt|administrator)$")
# "wifi pass sunflower22", "bank pin 4471", "wlan key: 8842...", "router pw is admin123"
_PLACE_SHORT = compile_on_use(
    rf"(?:(?<![\w-])(?i:{_LOGIN_PLACE})|{_LOGIN_PLACE_ZH})[\s-]+(?P<noun>(?i:pass|pw|pwd|passwd|key|code|pin|psk))"
    r"(?![\w-])\s*(?::|=|-|(?i:is|ist|est|es))?\s*(?P<v>[^\s\"'\u201c\u2018`]{3,64})"
)
# A line or clause that starts with the short form: "code: 4471", "key: Zebra-Crossing-12",
# "pin = 0815"; and a dash after a password word: "pwd - bluebird", "Passwort - Sonne77" (any dash).
_LINE_SHORT = compile_on_use(
    r"(?:^|(?<=[\n;(|]))[ \t]*(?P<noun>(?i:code|pin|key|pass|pw|pwd|passwd))[ \t]*[:=][ \t]*"
    r"(?P<v>[^\s\"'\u201c\u2018`]{3,64})",
    re.M,
)
_DASH = compile_on_use(
    rf"(?<![\w-])(?P<noun>(?i:pwd|pw|passwd|pass|password|passwort|kennwort|mdp|mot\s+de\s+passe"
    rf"|contrase[ñn]a|clave|{cues.SECRET_NOUNS_ZH}))[ \t]+[-\u2013\u2014][ \t]+"
    r"(?P<v>[^\s\"'\u201c\u2018`]{3,64})"
)
# Spanish chat shortens contraseña: "y la contra es luna2014!!", "contra del banco santander
# es ..." (and "la contra es que ..." is "the downside is that": the value must look made up).
_CONTRA = compile_on_use(
    r"(?<![\w-])(?P<noun>(?i:contra))(?:\s+(?i:del?|de\s+la|de\s+mi|para(?:\s+el|\s+la)?)"
    r"(?:\s+[\w.-]+){1,3}?)?\s*(?::|=|\s(?i:es|era)\b)\s*(?P<v>[^\s\"'\u201c\u2018`]{3,64})"
)
_SHORT_DIGITS = frozenset({"code", "pin"})


def _user_slash(text: str) -> Iterator[Finding]:
    for m in _USER_SLASH.finditer(text):
        start, end = m.start("v"), trim_value(text, m.start("v"), m.end("v"))
        value, user = text[start:end], m.group("user")
        if not _word_ok(value) or _numberish(value):
            continue
        if not (_ends_clause(text, m.end("v")) or strongly_generated(value)):
            continue  # a plain word mid-sentence is talk; a made-up one is a key anywhere
        if _same_shape(user, value):
            continue  # "py3.11 / py3.12", "file1.txt / file2.txt": two of a kind, compared
        # one word that looks like an account ("jsmith82", "admin"), not "admin page"
        account = " " not in user and _ACCOUNT_LIKE.search(user) is not None
        if m.group("zh") or m.group("more") or _PLACE_LABEL.fullmatch(m.group("label") or ""):
            # "Router: Netgear / TP-Link" names two brands: a digit or a made-up mix says key
            ok = account or strongly_generated(value) or any(ch.isdigit() for ch in value)
        elif m.group("cap"):
            ok = account and generated_looking(value)
        else:  # any word before a colon: the value must be made up of several kinds
            ok = account and strongly_generated(value)
        if ok and len(value) >= 4:
            yield Finding(CATEGORY, start, end)


_LETTERS = compile_on_use(r"[^\W\d_]+")


def _same_shape(user: str, value: str) -> bool:
    """Whether two values have the same letters in the same order (only digits or signs
    differ): versions, files or models set side by side, not an account and its password."""
    letters = _LETTERS.findall(user.lower())
    return bool(letters) and letters == _LETTERS.findall(value.lower())


def _short_forms(text: str) -> Iterator[Finding]:
    for pattern in (_PLACE_SHORT, _LINE_SHORT, _DASH, _CONTRA):
        for m in pattern.finditer(text):
            start, end = m.start("v"), trim_value(text, m.start("v"), m.end("v"))
            value, noun = text[start:end], m.group("noun").lower()
            if _short_secret(text, value, noun, end):
                yield Finding(CATEGORY, start, end)


# "2.4 / 5GHz", "192.168.1.1 / 255.255.255.0", "3.0 / 3.10.12": a measure, an address or a
# version; a WPA key of digits alone is long ("4821 3390 5518 2647 3").
_NUMBERISH = compile_on_use(r"[\d.,:%+-]+|\d+(?:[.,]\d+)?[a-zA-Z%]{1,3}")


def _numberish(value: str) -> bool:
    return _NUMBERISH.fullmatch(value) is not None and not (value.isdigit() and len(value) >= 8)


def _short_secret(text: str, value: str, noun: str, end: int) -> bool:
    if not _word_ok(value):
        return False
    digits = sum(ch.isdigit() for ch in value)
    if noun in _SHORT_DIGITS:  # "code: 4471", "bank pin 0815#"; not "code: 200 OK"
        return 4 <= digits <= 12 and len(value) <= 12 and value.isascii()
    if noun in ("key", "pass", "contra"):  # "key: C minor", "bus pass: expired"
        return generated_looking(value) or (digits >= 4 and len(value) >= 6)
    # pw, pwd, passwd, password words: a plain word counts when it ends the clause
    return generated_looking(value) or digits > 0 or _ends_clause(text, end)


def _word_ok(value: str) -> bool:
    word = value.lower().strip(".,!?")
    return not (
        CODE_REFERENCE.match(value)
        or word in NOT_A_VALUE
        or word in cues.NOT_A_SECRET_EU
        or prose_shaped(value)
    )


_CLAUSE_END = compile_on_use(r"[ \t]*(?:$|[\n;,)\]]|[.!?](?:\s|$)|\s+(?:and|but|or|und|et|y)\b)")


def _ends_clause(text: str, pos: int) -> bool:
    return _CLAUSE_END.match(text, pos) is not None


# -- a verb phrase after the password was named ---------------------------------------------
_NOUN_ANY = (
    r"(?i:p[a@4][s$5]{1,2}(?:w(?:[o0]r|r[o0]|[o0]|r)?d|wrd)s?|pass(?:phrase|code)s?|pwd|pw|pin"
    r"|wi-?fi\s+key|wlan-?key|passwort|kennwort|mots?\s+de\s+passe|mdp|contrase[ñn]a|clave"
    r"|code\s+(?:pin|secret)|c[óo]digo|geheimzahl)|PIN|密码|口令"
)
_QUOTED = (
    r"[\"'\u201c\u2018`\u00ab\u201e](?P<q>[^\"'\u201d\u2019`\u00bb\u201c\n]{3,80})"
    r"[\"'\u201d\u2019`\u00bb\u201c]"
)
_RAW = r"(?P<v>[^\s\"'\u201c\u2018`\u00ab\u201e][^\s]*)"
_IT_SET_TO = compile_on_use(
    r"(?i:\b(?:set|changed|change|reset|updated)\s+(?:it|that|this"
    r"|the\s+new\s+one)\s+(?:to|into|as)\s+"
    r"|\b(?:the\s+)?new\s+one(?:['\u2019]s|\s+is|\s*:)\s+|\bit['\u2019]s\s+now\s+"
    # "passwords: the bank one is 'Tulip!77', the wifi one is 'purple monkey dishwasher'"
    r"|\bone(?:['\u2019]s|\s+is|\s*:)\s+(?=[\"'\u201c\u2018`\u00ab\u201e])"
    # German: "jetzt ist es ...", "habe es auf ... geändert" (the value before the verb)
    r"|\b(?:jetzt|nun)\s+(?:ist\s+es|lautet\s+es|hei(?:ß|ss)t\s+es)\s+"
    r"|\bhab(?:e)?\s+(?:es|ihn|sie|das)\s+(?:jetzt\s+)?(?:auf|in)\s+"
    # French: "je l'ai changé en ...", "on l'a mis à ..."
    r"|\bl['\u2019](?:ai|a|avons)\s+(?:chang[ée]e?|mis|modifi[ée]e?|remplac[ée]e?)\s+(?:en|à|a|par|pour)\s+"
    # Spanish: "lo cambié a ...", "la puse como ..."
    r"|\b(?:lo|la)\s+(?:cambi[ée]|puse|actualic[ée]|dej[ée])\s+(?:a|por|en|como)\s+"
    # the value after a colon: "ya la puse: ...", "je l'ai changé : ...", "hab's geändert: ..."
    r"|(?P<colon>\b(?:(?:lo|la)\s+(?:cambi[ée]|puse|actualic[ée]|dej[ée])"
    r"|l['\u2019](?:ai|a|avons)\s+(?:chang[ée]e?|mis|modifi[ée]e?|remplac[ée]e?)"
    r"|hab(?:e|['\u2019]s)?\s+(?:es\s+|ihn\s+|sie\s+|das\s+)?(?:ge[äa]ndert|gesetzt|neu\s+gesetzt)"
    r"|(?:set|changed|reset|updated)\s+it)\s*:\s*))"
    rf"(?:{_QUOTED}|{_RAW})"
)
# The password named before, not a tool or a page about passwords.
_NOUN_BEFORE = compile_on_use(
    rf"(?<![A-Za-z])(?:{_NOUN_ANY})(?![A-Za-z])"
    r"(?!\s+(?i:manager|generator|policy|reset|hint|field|app|vault|rules?)\b)"
)
_VERB_STEMS = ("set", "chang", "updat", "one", "now", "jetzt", "nun", "hab", "l'a",
               "l\u2019a", "lo ", "la ", "reset")  # fmt: skip
_VERB_TEST = substring_test(_VERB_STEMS)


def _set_to(text: str) -> Iterator[Finding]:
    for m in _IT_SET_TO.finditer(text):
        window = text[max(0, m.start() - 100) : m.start()]
        if not _NOUN_BEFORE.search(window):
            # "I set it to dark mode": nothing said it was a password; but "ya la puse:
            # Girasol-Amarillo-55" gives something set, after a colon, that no word is
            if m.group("colon") and m.group("v") and strongly_generated(m.group("v")):
                start = m.start("v")
                yield Finding(CATEGORY, start, trim_value(text, start, m.end("v")))
            continue
        group = "q" if m.group("q") is not None else "v"
        start, end = m.span(group)
        if group == "v":
            end = trim_value(text, start, end)
        value = text[start:end]
        if not _word_ok(value) or len(value) < 3:
            continue
        # "I set it to Spanish": a plain word could be any setting; a password looks made up
        digits = sum(ch.isdigit() for ch in value)
        if group == "q" or generated_looking(value) or (digits and len(value) >= 4):
            yield Finding(CATEGORY, start, end)


# The password named with its verb, in French, Spanish and German (English: credentials'
# _CHANGED_TO): "changé le mot de passe du laptop en ...", "cambié la clave del banco a ...",
# "hab das WLAN-Passwort auf ... geändert" (German puts the value before the verb).
_CHANGED_NOUN_TO = compile_on_use(
    r"(?i:\b(?:chang[ée]e?|modifi[ée]e?|mis|remplac[ée]e?|cambi[ée]|cambiado|puse|puesto"
    r"|actualic[ée]|actualizado|dej[ée])\s+"
    r"(?:(?:le|la|les|mon|ma|mes|ton|ta|el|mi|mis|tu)\s+|l['\u2019])?(?:[\w'\u2019-]+\s+){0,2}?)"
    rf"(?P<noun>{_NOUN_ANY})"
    r"(?i:\s+(?:du|de\s+la|de\s+l['\u2019]|des|de|del|de\s+mi|de\s+mon|de\s+ma|pour\s+l[ea]"
    r"|para\s+(?:el|la))\s*[\w'\u2019-]+(?:\s+[\w'\u2019-]+)?)?"
    r"\s+(?i:en|à|a|par|pour|por|como)\s+"
    rf"(?:{_QUOTED}|{_RAW})"
    # ("Code" alone is also a program's: "den Code auf Python3 umgestellt")
    r"|(?<![A-Za-z])(?:(?i:passwort|kennwort|pin|geheimzahl)|PIN)(?![A-Za-z])"
    r"(?i:\s+(?:f(?:ü|ue)r|f(?:ü|ue)rs|vom|von|des|der|im|am|beim)\s+[\w-]+(?:\s+[\w-]+)?)?"
    r"(?i:\s+(?:jetzt\s+|nun\s+)?(?:auf|in|zu)\s+)"
    r"(?:[\"'\u201c\u201e\u00ab](?P<gq>[^\"'\u201c\u201d\u00bb\n]{3,80})[\"'\u201c\u201d\u00bb]"
    r"|(?P<gv>[^\s\"'\u201c\u201e\u00ab]{3,64}))"
    r"\s+(?i:ge(?:ä|ae|a)ndert|gesetzt|umgestellt|geändert|festgelegt)\b"
)


def _changed_to(text: str) -> Iterator[Finding]:
    for m in _CHANGED_NOUN_TO.finditer(text):
        group = next(g for g in ("q", "v", "gq", "gv") if m.group(g) is not None)
        start, end = m.span(group)
        if group in ("v", "gv"):
            end = trim_value(text, start, end)
        value = text[start:end]
        if not _word_ok(value) or len(value) < 3:
            continue
        digits = sum(ch.isdigit() for ch in value)
        if m.group("noun") and _CODE_WORD.fullmatch(m.group("noun")):
            # "cambié el código a Python3" is a program: a code set is digits
            if value.isdigit() and 4 <= len(value) <= 8:
                yield Finding(CATEGORY, start, end)
            continue
        if group in ("q", "gq") or generated_looking(value) or (digits and len(value) >= 4):
            yield Finding(CATEGORY, start, end)


_CODE_WORD = compile_on_use(r"(?i:c[óo]digo|code)")


# -- spelled out -----------------------------------------------------------------------------
_SPELLED = compile_on_use(
    rf"(?:(?<![A-Za-z]){_NOUN_ANY}(?![A-Za-z])|(?i:\b(?:door|gate|alarm|garage|lock|safe|"
    rf"entry|access|security|unlock|keypad|building)\s+code\b)|{cues.PIN_NOUNS_ZH}"
    rf"|{cues.SECRET_NOUNS_ZH}|(?<![\w-])(?:{cues.PIN_NOUNS_EU})(?![\w-]))"
    # a few words, then a copula or a colon: "PIN for the alarm is", "密码是"
    r"(?:\s+[\w'\u2019]+){0,3}?"
    r"(?:\s*[:=]\s*|\s+(?i:is|was|ist|lautet|est|c['\u2019]est|es|era)\s+|\s*(?:是|为)\s*|\s+)"
    rf"(?P<run>{spelled.DIGIT_RUN.pattern}|{spelled.CHAR_RUN.pattern})"
)


def _spelled(text: str) -> Iterator[Finding]:
    for m in _SPELLED.finditer(text):
        run = m.group("run")
        if spelled.DIGIT_RUN.fullmatch(run) and spelled.digit_count(run) < 4:
            continue
        yield Finding(CATEGORY, m.start("run"), m.end("run"))


# -- the detector ----------------------------------------------------------------------------
# Substrings one of which every form but the environment line and "user / password" holds,
# read on the lower-cased text with a space after it. The short nouns are taken with what may
# follow them, so that "shopping", "monkey", "passed" and "contract" do not count.
_NOUN_STEMS = ("passw", "pass ", "pass:", "pass=", "pass-", "pass?", "passcode", "passphrase",
               "passwd", "pw", "pin ", "pin:", "pin=", "pin-", "pin,", "pin.", "pin?", "pins",
               "nip", "code", "digo", "key:", "key=", "key ", "key-", "psk", "kennw", "kenw",
               "mdp", "contra ", "contra:", "contras", "clave", "geheim", "密码", "口令",
               "码")  # fmt: skip
_NOUN_TEST = substring_test(_NOUN_STEMS)


# A verb of setting right before a colon: "ya la puse:", "je l'ai changé :", "hab's geändert:"
_VERB_BEFORE_COLON = (
    "puse", "cambié", "cambie", "actualicé", "actualice", "dejé", "deje", "changé", "change",
    "changée", "mis", "modifié", "modifiée", "remplacé", "geändert", "geaendert", "gesetzt",
    " it",
)  # fmt: skip


def _colon_after_verb(text: str) -> bool:
    """Whether a colon follows a verb of setting: read back from each colon (a chat turn
    holds few)."""
    colon = text.find(":")
    while colon != -1:
        if text[max(0, colon - 12) : colon].rstrip().lower().endswith(_VERB_BEFORE_COLON):
            return True
        colon = text.find(":", colon + 1)
    return False


def find(text: str) -> Iterator[Finding]:
    """Yield the values of everyday secrets in ``text``."""
    low = text.lower()
    if _ENV_TEST.search(low) and _ASSIGN.search(text):
        yield from _env(text)
    named = _NOUN_TEST.search(f"{low} ") is not None
    if "/" in text or "|" in text:
        yield from _user_slash(text)
    if _VERB_TEST.search(low) if named else _colon_after_verb(text):
        yield from _set_to(text)  # without a noun, only a made-up value after a colon
    if named:
        yield from _short_forms(text)
        yield from _changed_to(text)
        yield from _spelled(text)
