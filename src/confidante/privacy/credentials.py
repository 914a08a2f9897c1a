"""Credentials: provider tokens, key blocks, URLs with passwords, and "my PIN is ..." talk.

detect-secrets is used through its plugins' ``analyze_string`` only: ``analyze_line`` reads
the global settings and may call ``verify``, which sends the value over the network.
``analyze_string`` reads no config or baseline, logs nothing and makes no request.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import BasePlugin
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.keyword import CONFIG_DENYLIST_REGEX_TO_GROUP, KeywordDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from ..lazy_patterns import compile_on_use
from . import cues
from ._text import (
    COPULA,
    NOT_A_VALUE,
    enough_digits,
    prose_shaped,
    substring_test,
    token_end,
    trim_value,
)
from .findings import Finding
from .values import CODE_REFERENCE, generated_looking, high_entropy, strongly_generated

CATEGORY = "credential"

# Every regex plugin except IPPublicDetector (an IP address is not a secret).
_TOKEN_PLUGINS: tuple[BasePlugin, ...] = tuple(
    cls()
    for cls in (
        ArtifactoryDetector,
        AWSKeyDetector,
        AzureStorageKeyDetector,
        BasicAuthDetector,
        CloudantDetector,
        DiscordBotTokenDetector,
        GitHubTokenDetector,
        GitLabTokenDetector,
        IbmCloudIamDetector,
        IbmCosHmacDetector,
        JwtTokenDetector,
        MailchimpDetector,
        NpmDetector,
        OpenAIDetector,
        PypiTokenDetector,
        SendGridDetector,
        SlackDetector,
        SoftlayerDetector,
        SquareOAuthDetector,
        StripeDetector,
        TelegramBotTokenDetector,
        TwilioKeyDetector,
    )
)
_PRIVATE_KEY = PrivateKeyDetector()
_KEYWORD = KeywordDetector()

# Token formats newer than detect-secrets 1.5 (or shaped differently than it expects).
_EXTRA_TOKEN = compile_on_use(
    r"""(?<![\w-])(?:
        sk-(?:proj-|ant-(?:api\d\d-)?|svcacct-|admin-)?[A-Za-z0-9_-]{20,}
      | hf_[A-Za-z0-9]{30,}
      | AIza[0-9A-Za-z_-]{35}
      | github_pat_\w{30,}
      | gh[pousr]_[A-Za-z0-9]{30,}
      | [sr]k_(?:live|test)_[0-9A-Za-z]{16,}
      | xox[abposr]-[A-Za-z0-9-]{10,}
      | npm_[A-Za-z0-9]{30,}
      | ya29\.[0-9A-Za-z_-]{20,}
      | shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}
      | dop_v1_[a-f0-9]{64}
      | gl(?:pat|dt|rt)-[A-Za-z0-9_-]{20,}
      | [MNO][A-Za-z\d_-]{23,27}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,40}
      | \d{8,10}:AA[0-9A-Za-z_-]{30,}
      | key-[0-9a-z]{32}
      | SK[0-9a-fA-F]{32}
      | LTAI[0-9A-Za-z]{12,24}
      | AKID[0-9A-Za-z]{32}
    )""",
    re.X,
)
_KEY_BLOCK = compile_on_use(
    r"-{3,}\s*BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?\s*-{3,}.*?(?:-{3,}\s*END[A-Z0-9 ]*-{3,}|\Z)",
    re.S,
)
# ``scheme://user:password@host``; detect-secrets misses an empty user ("redis://:pw@h").
_URL_PASSWORD = compile_on_use(
    r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,30}://[^\s:/@]*:[^\s/@]+@[^\s/]+", re.I
)

# "password" as people type it: "pasword", "passwrd", "passwrod", "passwd", "p@ssword",
# "pa$$word", and the German, Spanish and French words without their accents or with a typo.
_PASSWORD = (
    r"p[a@4][s$5]{1,2}(?:w(?:[o0]r|r[o0]|[o0]|r)?d|wrd)|pass?w[o0]rt|ken{1,2}w[o0]rt"
    r"|contrase(?:ñ|n|ni)a|mots?[\s-]de[\s-]pass?e?"
)
# Nouns whose value follows a copula: "my password is ...", "PIN: 4821".
_WORD_NOUN = (
    rf"{_PASSWORD}|pass(?:phrase|code)|pass\s+code|pwd|pw"
    r"|(?:wi-?fi|wlan|wpa2?|network|router|encryption|product|activation)[\s_-]?key"
    r"|(?:api|app|access|secret|private|auth|client|master|license|licence)[\s_-]?key"
    r"|secret(?:[\s_-]?(?:access[\s_-]?)?key)?|client[\s_-]?secret|api[\s_-]?secret"
    r"|(?:access|auth|api|bot|bearer|refresh|session|personal\s+access|app)[\s_-]?token"
    r"|token|creds|credentials|pass"
)
_PIN_NOUN = (
    r"pin(?:\s*(?:code|number))?|combination|combo"
    r"|(?:backup|recovery|2fa|mfa|otp)\s+codes?"
    r"|(?:door|gate|alarm|garage|lock|safe|locker|entry|access|security|unlock|keypad"
    r"|building|verification|2fa|otp|login|one[\s-]time|lock\s?box|key\s?box|key\s?safe"
    r"|padlock|bike\s+lock)\s+(?:code|pin)"
    r"|code\s+(?:to|for)\s+(?:my|our|the)\s+[\w-]+"
)
# A short phrase between noun and verb: "the wifi password at home is ...".
_FILLER = (
    r"(?:\s+(?:for|on|at|to|of|in)\s+(?:(?:my|our|the|his|her|your)\s+)?[\w'-]+"
    r"(?:\s+[\w'-]+)?)?"
)
# Quotes of the five languages: "...", '...', “...”, „...“, «...» (spaced or not), 「...」.
_QUOTED = (
    r"[\"'\u201c\u2018`\u201e\u00ab\u300c\u300e]\s?"
    r"(?P<q>[^\"'\u201c\u201d\u2019`\u00bb\u300d\u300f\n]{1,80})"
    r"\s?[\"'\u201d\u2019`\u201c\u00bb\u300d\u300f]"
)
_RAW = r"(?P<v>[^\s\"'\u201c\u2018`][^\s]*)"
# "my laptop password? it's ...", "the wifi password is set to ..."
_SECRET_COPULA = (
    rf"(?:{COPULA}|\s*[?,;:-]?\s*it(?:['\u2019]s|\s+is)\s+|\s+(?:is\s+)?set\s+to\s+)"
    r"(?:(?:literally|just|simply|actually|still|now|currently|always|basically)\s+)?"
)
_NOUN_VALUE = compile_on_use(
    rf"(?<![A-Za-z])(?P<noun>{_WORD_NOUN}|{_PIN_NOUN}){_FILLER}{_SECRET_COPULA}"
    rf"(?:{_QUOTED}|{_RAW})",
    re.I,
)
# No verb at all ("..., password bluebird2021", "PIN 4821"): the value must look generated.
_NOUN_THEN_VALUE = compile_on_use(
    rf"(?<![A-Za-z])(?P<noun>{_PASSWORD}|pwd|pw|passcode|{_PIN_NOUN})\??\s+(?P<v>[^\s]+)",
    re.I,
)
_CHANGED_TO = compile_on_use(
    # "changed the laptop pwd to ...": a word or two may say which one
    rf"\b(?:changed|set|reset|updated|changing)\s+(?:my|our|the|his|her|their)\s+"
    rf"(?:[\w'\u2019-]+\s+){{0,2}}?(?P<noun>{_WORD_NOUN}|{_PIN_NOUN})"
    rf"\s+to\s+(?:{_QUOTED}|{_RAW})"
    # "the PIN was changed to 5566", "password has been reset to ..."
    rf"|(?<![A-Za-z])(?P<noun2>{_WORD_NOUN}|{_PIN_NOUN})\s+(?:was|is|has\s+been|got|gets)\s+"
    rf"(?:changed|set|reset|updated)\s+to\s+(?P<v2>[^\s\"'\u201c\u2018`][^\s]*)",
    re.I,
)
# A code named by what it opens, then its digits: "the code to get in is 4477", "der Code
# für die Tür ist 4477", "le code pour entrer c'est 4477", "el código para entrar es 4477".
# Codes that are public or not secret (postal, error, promo...) are left out.
_CODE_FOR = compile_on_use(
    r"(?<![\w-])(?P<before>\w+\s+)?(?i:code|c[óo]digo|codice)\b(?P<mid>(?:\s+[\w'\u2019]+){1,4}?)"
    rf"(?:{COPULA}|\s*[?,]\s*|\s+(?i:ist|lautet|c['\u2019]est|es|è)\s+)"
    # the digits whole, or one by one ("the code at the airbnb is 0 4 9 1")
    r"(?P<v>\d{4,8}[#*]?(?![\d.,/:-])|\d(?:[ .-]\d){3,7}(?![\d]|[ .-]\d))"
)
_PUBLIC_CODE = compile_on_use(
    r"(?i:zip|post|postal|area|country|dial|error|status|exit|return|promo|discount|coupon"
    r"|voucher|gift|referral|invite|product|item|article|tracking|reference|booking|tax|sort"
    r"|source|qr|bar|color|colour|fehler|gutschein|rabatt|promotion|erreur|réduction"
    r"|descuento|postale?|Postleitzahl|PLZ|ISO|HTTP|HS|line|lines|wrote|written|Zeilen)"
)
_PUBLIC_WORD = compile_on_use(rf"\b{_PUBLIC_CODE.pattern}\b")
# The value first: "use 1234 as the PIN", "I typed 4821 as my PIN".
_VALUE_AS_PIN = compile_on_use(
    r"(?<![\w.,-])(?P<v>\d{4,8})\s+(?i:as|is)\s+(?i:the|my|our|his|her|their|your)\s+"
    rf"(?i:{_PIN_NOUN}|passcode|password)\b"
)
_PIN_NOUNS = compile_on_use(rf"(?:{_PIN_NOUN})$", re.I)
# Nouns with everyday senses ("the secret to good bread", "a token of thanks"): their value
# must look machine-made.
_LOOSE_NOUNS = compile_on_use(r"(?:secret|token|creds|credentials|combo|pass|key)$", re.I)
_LOGIN_PAIR = compile_on_use(
    r"\blog(?:ged|ging)?[\s-]?(?:in|on)\s+(?:with|as|using)\s+(?P<user>[^\s,]+)\s*"
    r"(?:and|with|/|,)\s*(?:(?:the\s+)?password\s+)?(?P<v>[^\s]+)",
    re.I,
)
# "login is fam2024 / Popcorn!42", "creds: bob/hunter2"
_USER_SLASH_PASS = compile_on_use(
    r"\b(?:login|log-in|credentials|creds|user(?:name)?\s*/\s*pass(?:word)?|account)"
    rf"(?:{COPULA}|\s+)(?P<user>[^\s/]{{2,}})\s*/\s*(?P<v>[^\s/]{{3,}})",
    re.I,
)
_ACCOUNT = compile_on_use(r"[\d@._]|^(?i:admin|root|guest|user|pi)$")
# A user and a password named one after the other: "user: bob / pass: hunter22", "acct bob
# pass hunter22", "login admin pw admin123", "Benutzer mueller Kennwort Herbst23", "用户名 li
# 密码 abc123". The value after the password word is the secret.
_USER_WORD = (
    r"user(?:name|id)?|login|acct|account|benutzer(?:name)?|nutzer|utilisateur|identifiant"
    r"|usuario|cuenta|用户名?|账号|帐号"
)
_USER_PASS = compile_on_use(
    rf"(?<![A-Za-z])(?i:{_USER_WORD})\s*[:=]?\s*(?P<user>[^\s/,;|]{{2,}})\s*[/,;|]?\s*"
    rf"(?:and\s+|und\s+|et\s+|y\s+)?(?P<noun>(?i:{_PASSWORD}|pass|pwd|pw|passwd|mdp|clave|密码))"
    r"(?![A-Za-z])\s*(?:[:=]|is|ist|es|est)?\s*(?P<v>[^\s/,;|]{3,})",
)
# A password word, then within a few words something that cannot be prose: "my email
# password is the same: Hunter#2024".
_PASSWORD_NEAR = compile_on_use(
    rf"(?<![A-Za-z])(?:{_PASSWORD}|pass(?:phrase|code)|pwd|pw)\b(?P<w>[^.!?\n]{{0,40}}[^\s]*)",
    re.I,
)
# A word of the window after a password word: each is tried ("the same password everywhere:
# Qwerty!234" has its value after a word that ends in a colon).
_NEAR_TOKEN = compile_on_use(r"(?<![\w@/.:-])[^\s/@]{6,64}(?=[\s,.;!?)]*(?:\s|$))")
_BEARER = compile_on_use(r"\bbearer\s+(?P<v>[A-Za-z0-9._~+/=-]{16,})", re.I)

_SECRET_WORD_NEAR = compile_on_use(
    r"(?:key|token|secret|passw|pwd|creds?|credential|bearer|auth|apikey|signature|sig)"
    r"[^.!?\n]{0,40}$",
    re.I,
)
# Words between the keyword and a long string that say it is not a secret after all.
_NOT_SECRET_CONTEXT = compile_on_use(
    r"(?:commit|hash|sha\d*|md5|digest|checksum|uuid|guid|fingerprint|request|build|trace"
    r"|order|tracking|id\b|version)",
    re.I,
)
_LONG_TOKEN = compile_on_use(r"(?<![\w/+=.-])[A-Za-z0-9+/=_-]{16,}(?![\w/+=-])")
_NON_SPACE = compile_on_use(r"\S+")


def _plausible(value: str, noun: str) -> bool:
    """Whether ``value`` is a secret rather than talk about one ("my password is too long")."""
    if not value or CODE_REFERENCE.match(value) or "(" in value:
        return False
    noun = noun.strip()
    if _PIN_NOUNS.match(noun):
        return sum(ch.isdigit() for ch in value) >= 3
    word = value.lower().strip(".,!?")
    if word in NOT_A_VALUE or word in cues.NOT_A_SECRET_EU or prose_shaped(value):
        return False
    if _LOOSE_NOUNS.search(noun):
        return generated_looking(value)
    return len(value) >= 3


def _spans_of(text: str, value: str) -> Iterator[tuple[int, int]]:
    start = text.find(value)
    while start != -1:
        yield start, start + len(value)
        start = text.find(value, start + len(value))


def _token_spans(text: str, values: Iterable[str]) -> set[tuple[int, int]]:
    """Whitespace-delimited tokens holding any of ``values``: a plugin's regex may match only
    part of a longer token, and the whole token is the secret to redact."""
    tokens = [(m.start(), m.end()) for m in _NON_SPACE.finditer(text)]
    starts = [start for start, _ in tokens]
    spans: set[tuple[int, int]] = set()
    for value in set(values):
        for start, end in _spans_of(text, value):
            i = bisect_right(starts, start) - 1
            if i >= 0 and tokens[i][1] >= end:
                spans.add(tokens[i])
            else:  # the value itself spans whitespace ("BEGIN RSA PRIVATE KEY")
                spans.add((start, end))
    return spans


# Cheap tests that decide which groups of patterns can match at all: every provider token
# is one run of 16+ characters without spaces; every conversational form names a secret.
_LONG_RUN = compile_on_use(r"[^\s]{16,}")
_SECRET_HINT = compile_on_use(
    rf"(?:{_PASSWORD})|\b(?:pass(?:phrase|code)?s?|pwd|pw|pin|code|combo|combination|\w*keys?|secrets?|"
    r"\w*tokens?|creds?|credentials|login|log(?:ged|ging)?[\s-]?[io]n|account|seed|recovery|"
    r"mnemonic|backup|contrase[ñn]as?|kennwort|passwort|bearer|auth\w*|api\w*)\b",
    re.I,
)
# Stems of the cue words in other languages (and Chinese characters for secrets).
_INTL_HINT = compile_on_use(
    r"\b(?:pass|kenn?w|mots?\s+de\s+pass|mdp|contras|clave|c[oó]digo|\w*code|pin|nip|senha|"
    r"chiave|chave|cl[eé]|schl[üu]ssel|zugang|geheim|sicherheit|digicode|identifiants|llave|"
    r"parola|t[üu]rcode|passwort|m?tan\b|best[äa]tigungscode)"
    r"|密|口令|钥|鑰|助记|助記|验证|驗證|动态码|校验码|令牌|パスワード|暗証|비밀|암호",
    re.I,
)


# Substrings at least one of which every conversational form holds: a C-speed test on the
# lower-cased text before any regex runs (most chat turns hold none).
_EN_STEMS = (
    "pass", "pasw", "p@s", "pa$", "p4s", "pw", "pin", "code", "combo", "combination", "key",
    "secret", "token", "cred", "kenw", "mot de pas",
    "login", "log in", "log-in", "logged", "logon", "account", "seed", "recovery", "mnemonic",
    "backup", "contras", "kennwort", "passwort", "bearer", "auth", "api",
)  # fmt: skip
_INTL_STEMS = (
    "pass", "kennw", "kenw", "mdp", "contras", "clave", "digo", "code", "pin", "nip", "senha",
    "chiave", "chave", "cl\u00e9", "cle", "schl", "zugang", "geheim", "sicherheit", "identifiants",
    "llave", "parola", "tan", "best", "密", "口令", "钥", "鑰", "助记", "助記", "验证", "驗證",
    "动态码", "校验码", "令牌", "パスワード", "暗証", "비밀", "암호",
)  # fmt: skip


_EN_TEST = substring_test(_EN_STEMS)
_INTL_TEST = substring_test(_INTL_STEMS)


def _mentions(text: str, test: re.Pattern[str]) -> bool:
    """Whether the lower-cased text holds one of a `substring_test`'s stems."""
    return test.search(text.lower()) is not None


def find(text: str) -> Iterator[Finding]:
    """Yield credential spans in ``text``."""
    if _LONG_RUN.search(text):
        values = [v for plugin in _TOKEN_PLUGINS for v in plugin.analyze_string(text)]
        for start, end in _token_spans(text, values):
            yield Finding(CATEGORY, start, end)
        for m in _EXTRA_TOKEN.finditer(text):
            yield Finding(CATEGORY, m.start(), token_end(text, m.end()))
        yield from _key_pairs(text)
        yield from _keyword_near_entropy(text)
    if "://" in text:
        for m in _URL_PASSWORD.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    if "PRIVATE KEY" in text.upper() and any(True for _ in _PRIVATE_KEY.analyze_string(text)):
        for m in _KEY_BLOCK.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    if _mentions(text, _EN_TEST) and _SECRET_HINT.search(text):
        yield from _conversational(text)


# Talk about passwords in general: "the most common password is 123456", "die häufigste PIN
# ist 1234", "le mot de passe par défaut est admin".
_GENERIC_BEFORE = compile_on_use(
    r"(?i:most\s+(?:common|popular|used)|commonest|default|worst|weakest|typical|popular|"
    r"example|sample|häufigste\w*|beliebteste\w*|Standard|schlechteste\w*|plus\s+(?:courant|utilis[ée])"
    r"|pire|par\s+d[ée]faut|d['\u2019]exemple|m[áa]s\s+(?:com[úu]n|usad[oa])|peor|por\s+defecto"
    r"|de\s+ejemplo|最常见的?|默认的?|最弱的?)\s*\w*\s*$"
)


_POSSESSIVE = compile_on_use(
    r"(?i:\b(?:my|our|your|mein\w*|unser\w*|dein\w*|mon|ma|mes|notre|ton|ta|mi|mis|nuestr\w*|tu)\b)"
    r"|我的|我们的|你的"
)


# The noun names what a tool holds, not a secret: "mon gestionnaire de mots de passe est
# top", "mi gestor de contraseñas es buenísimo", "el generador de claves".
_TOOL_BEFORE = compile_on_use(
    r"(?i:gestionnaire|g[ée]n[ée]rateur|coffre-fort|gestor|administrador|generador|b[óo]veda"
    r"|gerenciador|gestore|generatore)\s+(?:de\s+|d['\u2019]\s*|des\s+|di\s+)?$"
)


def in_general(text: str, noun_start: int) -> bool:
    """Whether the noun is spoken of in general (a default, the most common one), and not as
    someone's own ("my router's default password is ..." is theirs), or names a tool."""
    before = text[max(0, noun_start - 32) : noun_start]
    if _TOOL_BEFORE.search(before):
        return True
    return _GENERIC_BEFORE.search(before) is not None and not _POSSESSIVE.search(before)


def _conversational(text: str) -> Iterator[Finding]:
    for pattern in (_NOUN_VALUE, _CHANGED_TO):
        for m in pattern.finditer(text):
            if pattern is _CHANGED_TO and m.group("noun2"):
                start = m.start("v2")
                end = trim_value(text, start, m.end("v2"))
                if _plausible(text[start:end], m.group("noun2")):
                    yield Finding(CATEGORY, start, end)
                continue
            if in_general(text, m.start("noun")) or _public_code(text, m.start("noun"), m):
                continue
            group = "q" if m.group("q") is not None else "v"
            start, end = m.span(group)
            if group == "v":
                end = trim_value(text, start, end)
            if _plausible(text[start:end], m.group("noun")):
                yield Finding(CATEGORY, start, end)
    for m in _NOUN_THEN_VALUE.finditer(text):
        start, end = m.start("v"), trim_value(text, m.start("v"), m.end("v"))
        value = text[start:end]
        pin = _PIN_NOUNS.match(m.group("noun"))
        # "PIN 4821", "passcode 7391", "pwd 80512": four digits or more are a secret after
        # any of these nouns; other values must look generated.
        digits = value.isdigit() and len(value) >= 4
        # "gate code 4455#": a keypad's own keys may end it
        keyed = len(value) <= 12 and sum(ch.isdigit() for ch in value) >= 4 and value.isascii()
        shaped = keyed if pin else digits or generated_looking(value)
        if shaped and _plausible(value, m.group("noun")):
            yield Finding(CATEGORY, start, end)
    for m in _USER_SLASH_PASS.finditer(text):
        start, end = m.start("v"), trim_value(text, m.start("v"), m.end("v"))
        value = text[start:end]
        # "login: works / finally" is a report on it: an account or a made-up value says login
        made_up = generated_looking(value) or any(ch.isdigit() for ch in value)
        if _plausible(value, "password") and (made_up or _ACCOUNT.search(m.group("user"))):
            yield Finding(CATEGORY, start, end)
    for m in _USER_PASS.finditer(text):
        start, end = m.start("v"), trim_value(text, m.start("v"), m.end("v"))
        value = text[start:end]
        if _plausible(value, "password") and (len(value) >= 4 or value.isdigit()):
            yield Finding(CATEGORY, start, end)
    for m in _PASSWORD_NEAR.finditer(text):
        for token in _NEAR_TOKEN.finditer(text, m.start("w"), m.end("w")):
            start, end = token.start(), trim_value(text, token.start(), token.end())
            if strongly_generated(text[start:end]):
                yield Finding(CATEGORY, start, end)
                break
    # recovery phrases: seeds.find (named, or checksummed)
    for m in _LOGIN_PAIR.finditer(text):
        start, end = m.span("v")
        if _plausible(text[start:end], "password"):
            yield Finding(CATEGORY, start, trim_value(text, start, end))
    # The plugin's config-file forms ("api_key = ...", "password: ...").
    for value in _KEYWORD.analyze_string(text, CONFIG_DENYLIST_REGEX_TO_GROUP):
        first = value.split()[0] if value.split() else ""
        if _plausible(first, "password") and len(value.split()) == 1:
            for start, end in _spans_of(text, first):
                yield Finding(CATEGORY, start, trim_value(text, start, end))


# A PIN said digit by digit: "PIN: 4 8 1 9", "pin number 8-1-4-2", "code de l'alarme est
# 4 7 7 1", "支付密码 1 3 5 7". The noun is any PIN or password word in the cue languages.
_SPACED_DIGITS_HINT = compile_on_use(r"\d[ .-]\d[ .-]\d[ .-]\d")
_SPACED_PIN = compile_on_use(
    rf"(?<![A-Za-z])(?P<noun>{_PIN_NOUN}|{_PASSWORD}|pass(?:code|phrase)|pwd|pw|{cues.PIN_NOUNS_EU}"
    rf"|{cues.SECRET_NOUNS_EU}|{cues.PIN_NOUNS_ZH}|{cues.SECRET_NOUNS_ZH})(?![A-Za-z])"
    r"[^\d\n.!?]{0,24}?(?<!\d)(?P<v>\d(?:[ .-]\d){3,7})(?![\d]|[ .-]\d)",
    re.I,
)


# A one-time code named as one, then within a few words its digits, whole or in groups:
# "the 2fa code they texted me is 596 230", "le code reçu par SMS : 987 450",
# "código de verificación es 289261", "Bestätigungscode 448 120", "验证码 5962".
_OTP_NOUN = (
    r"(?:2fa|mfa|otp|one[\s-]time|verification|confirmation|security|login|sign[\s-]?in"
    r"|auth(?:entication)?|sms|text)\s+(?:code|pin|passcode)|passcode"
    r"|code\s+(?:de\s+)?(?:confirmation|v[ée]rification|validation|s[ée]curit[ée]|connexion)"
    r"|code\s+(?:re[çc]u\s+)?par\s+SMS|code\s+SMS|code\s+[àa]\s+usage\s+unique"
    r"|c[óo]digo\s+de\s+(?:verificaci[óo]n|confirmaci[óo]n|seguridad|acceso|validaci[óo]n)"
    r"|c[óo]digo\s+(?:por\s+)?SMS|(?:Bestätigungs|Verifizierungs|Sicherheits|Einmal|Anmelde"
    r"|Login|SMS)-?[Cc]ode|m?TAN|Einmalpasswort|验证码|校验码|动态码|短信码|动态密码"
)
_OTP = compile_on_use(
    rf"(?<![A-Za-z])(?P<noun>(?i:{_OTP_NOUN}))(?![A-Za-z])[^\d\n!?.]{{0,40}}?"
    r"(?<![\d.,:/-])(?P<v>\d{2,4}(?:[ -]\d{2,4}){1,2}|\d(?: \d){3,7}|\d{4,8})(?![\d]|[.,:/]\d)"
)
# The code first, then what it is: "520470 is the code the bank just texted", "861231 c'est le
# code reçu par SMS". Only when the sentence says it came by message or is for logging in.
_OTP_FIRST = compile_on_use(
    r"(?<![\d.,:/-])(?P<v>\d{4,8})\s+(?i:is|was|c['\u2019]est|es|era|ist|war|是)\s+"
    r"(?i:(?:the|le|el|der|die|das|my|mi|mon|ton|tu)\s+)?(?i:code|c[óo]digo|codice)\b"
)
_OTP_HINT = compile_on_use(
    r"(?i:sms|text(?:ed)?|bank|banque|banco|verif\w*|confirm\w*|valid\w*|login|log\s+in|2fa"
    r"|otp|virement|transfer\w*|überweisung|transferencia|短信|银行)"
)
_ERROR_BEFORE = compile_on_use(r"(?i:error|fehler|erreur|status|http|version|v)\s*$")
_CLOCK_AFTER = compile_on_use(r"\s*(?i:am|pm|h\b|uhr|hrs|heures?|horas?)")
# What may stand between the noun and the code: nothing, a colon, or a few words that end in
# a copula ("they texted me is", "reçu par SMS :"); not "for the building changed in".
_OTP_GAP = compile_on_use(
    r"\s*(?:(?:[^\s\d]+\s+){0,5}?(?i:is|was|est|c['\u2019]est|es|era|ist|lautet|war|是|为))?"
    r"\s*[:=]?\s*"
)
_YEAR = compile_on_use(r"(?:19|20)\d\d")
_WORD_NEXT = compile_on_use(r"\s+[A-Za-z]")


def find_pins(text: str) -> Iterator[Finding]:
    """PINs and short codes in any of the cue languages: written with a space, dot or dash
    between every digit, named by what they open, or given before their noun."""
    four = enough_digits(text, 4)  # what every form but the spaced one needs
    if four and _OTP_HINT.search(text):
        for m in _OTP_FIRST.finditer(text):
            if _YEAR.fullmatch(m.group("v")):
                continue  # "2024 is the code freeze year"
            if not _ERROR_BEFORE.search(text[max(0, m.start() - 20) : m.start()]):
                yield Finding(CATEGORY, m.start("v"), m.end("v"))
    for m in _OTP.finditer(text) if four else ():
        value, after = m.group("v"), m.end("v")
        gap = text[m.end("noun") : m.start("v")]
        if not 4 <= sum(ch.isdigit() for ch in value) <= 8 or not _OTP_GAP.fullmatch(gap):
            continue
        if _UNIT_AFTER.match(text, after) or _CLOCK_AFTER.match(text, after):
            continue
        if _YEAR.fullmatch(value) and _WORD_NEXT.match(text, after):
            continue  # "passcode 2024 was the year we met"
        yield Finding(CATEGORY, m.start("v"), after)
    if _SPACED_DIGITS_HINT.search(text):
        for m in _SPACED_PIN.finditer(text):
            # "the zip code for the airbnb is 9 4 1 0 3": a code nobody keeps secret
            if not _PUBLIC_WORD.search(text, max(0, m.start() - 12), m.end("noun")):
                yield Finding(CATEGORY, m.start("v"), m.end("v"))
    if not four or not _mentions(text, _CODE_TEST):
        return
    for m in _CODE_FOR.finditer(text):
        context = f"{m.group('before') or ''}{m.group('mid')}"
        if not _PUBLIC_CODE.search(context) and not _UNIT_AFTER.match(text, m.end("v")):
            yield Finding(CATEGORY, m.start("v"), m.end("v"))
    for m in _VALUE_AS_PIN.finditer(text):
        yield Finding(CATEGORY, m.start("v"), m.end("v"))


_CODE_STEMS = ("code", "digo", "codice", "pin", "pass")
_CODE_TEST = substring_test(_CODE_STEMS)
_UNIT_AFTER = compile_on_use(
    r"\s*(?i:words?|lines?|pages?|characters?|chars|people|members|users|euros?|dollars?"
    r"|Wörter|Zeilen|Seiten|mots|lignes|palabras|l[íi]neas|%|km|kg)\b"
)
_CODE_NOUN_END = compile_on_use(r"(?i:code(?:\s+(?:to|for)\s+.*)?)$")


def _public_code(text: str, noun_start: int, m: re.Match[str]) -> bool:
    """ "the zip code for the office is 94103": a code nobody keeps secret."""
    if not _CODE_NOUN_END.search(m.group("noun") or ""):
        return False
    before = text[max(0, noun_start - 12) : noun_start]
    return _PUBLIC_CODE.search(f"{before} {m.group('noun')}") is not None


# A cloud access key id, then its secret a few characters on, labelled or not: "LTAI5t... /
# 9fKq2...", "AccessKey ID: LTAI... AccessKey Secret: ...", "AKIA... wJalr...", "AK ... SK ...".
_KEY_ID = compile_on_use(r"(?<![\w-])(?:AKIA|ASIA|LTAI|AKID)[0-9A-Za-z]{12,32}(?![\w-])")
_PAIRED_SECRET = compile_on_use(r"(?<![\w/+=-])[A-Za-z0-9/+=]{20,64}(?![\w/+=-])")


def _key_pairs(text: str) -> Iterator[Finding]:
    for m in _KEY_ID.finditer(text):
        for secret in _PAIRED_SECRET.finditer(text, m.end(), min(len(text), m.end() + 60)):
            if secret.start() - m.end() > 40:
                break
            if high_entropy(secret.group()):
                yield Finding(CATEGORY, secret.start(), secret.end())
                break


def _keyword_near_entropy(text: str) -> Iterator[Finding]:
    # Long random strings alone are git SHAs and UUIDs; with a secret word just before, keys.
    for m in _LONG_TOKEN.finditer(text):
        before = text[max(0, m.start() - 48) : m.start()]
        near = _SECRET_WORD_NEAR.search(before)
        if not near or _NOT_SECRET_CONTEXT.search(before[near.start() :]):
            continue
        if high_entropy(m.group()):
            yield Finding(CATEGORY, m.start(), m.end())
    for m in _BEARER.finditer(text):
        if high_entropy(m.group("v")):
            yield Finding(CATEGORY, m.start("v"), m.end("v"))


# -- other languages ------------------------------------------------------------------------
_ZH_SECRET = compile_on_use(
    rf"(?P<noun>{cues.SECRET_NOUNS_ZH}|{cues.PIN_NOUNS_ZH})"
    # "密码我改成了 ...", "密码已经换成了 ...": a few characters, then a verb of setting
    r"(?:[\u4e00-\u9fff]{1,6}?(?=改成|改为|设置为|设为|换成))?"
    rf"{cues.COPULA_ZH}"
    r"(?:[\u300c\u300e\u201c]\s?)?(?P<v>[!-~]{3,80})"
)
_EU_SECRET = compile_on_use(
    rf"(?<![\w-])(?P<noun>{cues.SECRET_NOUNS_EU}|{cues.PIN_NOUNS_EU})"
    # "das Passwort für das WLAN ist ...", "la contraseña del wifi es ..."
    r"(?:\s+(?:für|fuer|fürs|fuers|vom|von|des|der|zum|zur|beim|bei|im|am|meiner|meines|meinem"
    r"|deiner|unserer|du|de|del|de\s+la|de\s+mon|de\s+ma|de\s+mi|pour(?:\s+l[ea])?|au|aux"
    r"|sur|para(?:\s+el|\s+la)?|al|en|do|da|di|della|per)"
    r"(?:\s+[\w'\u2019-]+){1,2}?)?"
    rf"(?:{cues.COPULA_EU}|\s+(?=\S*\d))"
    # "Meine PIN ist die 4711", "le code c'est le 1793": an article before digits
    r"(?:(?:die|der|das|le|la|el|the)\s+(?=\S*\d))?"
    rf"(?:{_QUOTED}|(?P<v>[^\s\"'\u201c\u2018`«][^\s»]*))",
    re.I,
)
# A few words of any kind between the noun and the verb ("mot de passe wifi Livebox-8F21
# c'est ..."): then the value must look machine-made.
_EU_SECRET_LOOSE = compile_on_use(
    rf"(?<![\w-])(?P<noun>{cues.SECRET_NOUNS_EU}|{cues.PIN_NOUNS_EU})"
    r"(?:\s+[\w'\u2019.-]+){1,4}?"
    rf"{cues.COPULA_EU}"
    rf"(?:{_QUOTED}|(?P<v>[^\s\"'\u201c\u2018`«][^\s»]*))",
    re.I,
)
# A passphrase named as one, quoted, in any script: "密码短语:“猫在月亮上跳舞”"
_ZH_PHRASE = compile_on_use(
    r"(?:密码|密碼|口令)(?:短语|短句|句子)\s*(?:是|为|為|:)?\s*"
    r"[\u201c\u300c\u300e\"](?P<q>[^\u201d\u300d\u300f\"\n]{2,80})[\u201d\u300d\u300f\"]"
)
_ELISION = compile_on_use(r"^\w['\u2019]")
_EU_PIN = compile_on_use(rf"(?:{cues.PIN_NOUNS_EU})$", re.I)
_EU_LOOSE = compile_on_use(r"clave|mdp|identifiants|zugangsdaten|llave\s+privada", re.I)
_ZH_PIN = compile_on_use(rf"(?:{cues.PIN_NOUNS_ZH})$")
_CJK_CHAR = compile_on_use(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def find_multilingual(text: str) -> Iterator[Finding]:
    """Passwords, PINs and secret keys named in Chinese, German, French, Spanish, Portuguese
    or Italian: "我的密码是abc123456", "Mein Passwort ist geheim123", "code PIN : 4821"."""
    if not (_mentions(text, _INTL_TEST) and _INTL_HINT.search(text)):
        return
    if _CJK_CHAR.search(text):
        for m in _ZH_SECRET.finditer(text):
            if in_general(text, m.start("noun")):
                continue
            start, end = m.start("v"), trim_value(text, m.start("v"), m.end("v"))
            value = text[start:end]
            if CODE_REFERENCE.match(value):  # a placeholder ("[CREDENTIAL]") or a reference
                continue
            if _ZH_PIN.search(m.group("noun")):
                ok = sum(ch.isdigit() for ch in value) >= 4
            else:
                ok = len(value) >= 4 and value.lower() not in NOT_A_VALUE
            if ok:
                yield Finding(CATEGORY, start, end)
        for m in _ZH_PHRASE.finditer(text):
            yield Finding(CATEGORY, m.start("q"), m.end("q"))
    for pattern in (_EU_SECRET, _EU_SECRET_LOOSE):
        for m in pattern.finditer(text):
            if in_general(text, m.start("noun")):
                continue
            group = "q" if m.group("q") is not None else "v"
            start, end = m.span(group)
            if group == "v":
                end = trim_value(text, start, end)
            value = text[start:end]
            if not _eu_plausible(value, m.group("noun")):
                continue
            # "PIN? 4821" answers the question; "un bon mot de passe ? J'utilise ..." asks one.
            if "?" in text[m.end("noun") : start] and not (
                any(ch.isdigit() for ch in value)
                or generated_looking(_ELISION.sub("", value))  # "J'utilise" is a word
            ):
                continue
            if pattern is _EU_SECRET_LOOSE and not (
                _EU_PIN.search(m.group("noun").strip()) or generated_looking(value)
            ):
                continue
            yield Finding(CATEGORY, start, end)


_CODE_NOUN = compile_on_use(r"(?i:code|c[óo]digo)\s*$")


def _eu_plausible(value: str, noun: str) -> bool:
    if not value or CODE_REFERENCE.match(value) or "(" in value:
        return False
    if _EU_PIN.search(noun.strip()) or _CODE_NOUN.search(noun):  # "4B72A", "4711B"
        digits = sum(ch.isdigit() for ch in value)
        return len(value) <= 12 and (digits >= 4 or (digits >= 3 and value.isalnum()))
    word = value.lower().strip(".,!?")
    if word in cues.NOT_A_SECRET_EU or word in NOT_A_VALUE or prose_shaped(value):
        return False
    if _EU_LOOSE.fullmatch(noun.strip()):  # "la clave es practicar": the key is practice
        return generated_looking(value)
    if value.isdigit():  # "el código de acceso es 7788"
        return len(value) >= 4
    return len(value) >= 4 and (generated_looking(value) or len(value) >= 6)
