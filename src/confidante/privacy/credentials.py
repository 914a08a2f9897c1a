"""Credentials: provider tokens, key blocks, URLs with passwords, and "my PIN is ..." talk.

detect-secrets is used through its plugins' ``analyze_string`` only: ``analyze_line`` reads
the global settings and may call ``verify``, which sends the value over the network.
``analyze_string`` reads no config or baseline, logs nothing and makes no request.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.base import BasePlugin
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
)
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

from ._text import COPULA, NOT_A_VALUE, token_end, token_start, trim_value
from .findings import Finding

CATEGORY = "credential"

# Every regex plugin except IPPublicDetector (an IP address is not a secret).
_TOKEN_PLUGINS: tuple[BasePlugin, ...] = tuple(
    cls()
    for cls in (
        ArtifactoryDetector, AWSKeyDetector, AzureStorageKeyDetector, BasicAuthDetector,
        CloudantDetector, DiscordBotTokenDetector, GitHubTokenDetector, GitLabTokenDetector,
        IbmCloudIamDetector, IbmCosHmacDetector, JwtTokenDetector, MailchimpDetector,
        NpmDetector, OpenAIDetector, PypiTokenDetector, SendGridDetector, SlackDetector,
        SoftlayerDetector, SquareOAuthDetector, StripeDetector, TelegramBotTokenDetector,
        TwilioKeyDetector,
    )
)
_PRIVATE_KEY = PrivateKeyDetector()
_KEYWORD = KeywordDetector()
_BASE64 = Base64HighEntropyString()
_HEX = HexHighEntropyString()

# Token formats newer than detect-secrets 1.5 (or shaped differently than it expects).
_EXTRA_TOKEN = re.compile(
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
    )""",
    re.X,
)
_KEY_BLOCK = re.compile(
    r"-{3,}\s*BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?\s*-{3,}.*?(?:-{3,}\s*END[A-Z0-9 ]*-{3,}|\Z)",
    re.S,
)
# ``scheme://user:password@host``; detect-secrets misses an empty user ("redis://:pw@h").
_URL_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^\s:/@]*:[^\s/@]+@[^\s/]+", re.I)

# Nouns whose value follows a copula: "my password is ...", "PIN: 4821".
_WORD_NOUN = (
    r"pass(?:word|wd|phrase)|pwd|pw|contrase[ñn]a|kennwort|passwort|mot\s+de\s+passe"
    r"|(?:api|app|access|secret|private|auth|client|master|license|licence)[\s_-]?key"
    r"|secret(?:[\s_-]?(?:access[\s_-]?)?key)?|client[\s_-]?secret|api[\s_-]?secret"
    r"|(?:access|auth|api|bot|bearer|refresh|session|personal\s+access|app)[\s_-]?token"
    r"|token|creds|credentials"
)
_PIN_NOUN = (
    r"pin(?:\s*(?:code|number))?|passcode|pass\s+code|combination|combo"
    r"|(?:door|gate|alarm|garage|lock|safe|locker|entry|access|security|unlock|keypad"
    r"|building|verification|2fa|otp|login|one[\s-]time)\s+(?:code|pin)"
    r"|code\s+(?:to|for)\s+(?:my|our|the)\s+[\w-]+"
)
_FILLER = r"(?:\s+(?:for|on|at|to|of|in)\s+(?:(?:my|our|the|his|her|your)\s+)?[\w'-]+(?:\s+[\w'-]+)?)?"
_QUOTED = r"[\"'“‘`](?P<q>[^\"'”’`\n]{1,80})[\"'”’`]"
_RAW = r"(?P<v>[^\s\"'“‘`][^\s]*)"
_NOUN_VALUE = re.compile(
    rf"(?<![A-Za-z])(?P<noun>{_WORD_NOUN}|{_PIN_NOUN}){_FILLER}{COPULA}(?:{_QUOTED}|{_RAW})",
    re.I,
)
_CHANGED_TO = re.compile(
    rf"\b(?:changed|set|reset|updated|changing)\s+(?:my|our|the)\s+(?P<noun>{_WORD_NOUN}|{_PIN_NOUN})"
    rf"\s+to\s+(?:{_QUOTED}|{_RAW})",
    re.I,
)
_PIN_NOUNS = re.compile(rf"(?:{_PIN_NOUN})$", re.I)
_LOGIN_PAIR = re.compile(
    r"\blog(?:ged|ging)?[\s-]?(?:in|on)\s+(?:with|as|using)\s+(?P<user>[^\s,]+)\s*"
    r"(?:and|with|/|,)\s*(?:(?:the\s+)?password\s+)?(?P<v>[^\s]+)",
    re.I,
)
_BEARER = re.compile(r"\bbearer\s+(?P<v>[A-Za-z0-9._~+/=-]{16,})", re.I)

_CODE_REFERENCE = re.compile(
    r"^(?:os\.|env\.|process\.env|getenv|get_env|environ|settings\.|config\.|self\.|"
    r"secrets\.|vault|\$|%[A-Z_]+%|<[^>]*>?$|\{\{?|\[|none$|null$|nil$|undefined$|"
    r"x{3,}|\*{3,}|\.{3}|your[\s_-]|<)",
    re.I,
)
_SECRET_WORD_NEAR = re.compile(
    r"(?:key|token|secret|passw|pwd|creds?|credential|bearer|auth|apikey|signature|sig)"
    r"[^.!?\n]{0,40}$",
    re.I,
)
# Words between the keyword and a long string that say it is not a secret after all.
_NOT_SECRET_CONTEXT = re.compile(
    r"(?:commit|hash|sha\d*|md5|digest|checksum|uuid|guid|fingerprint|request|build|trace"
    r"|order|tracking|id\b|version)",
    re.I,
)
_LONG_TOKEN = re.compile(r"(?<![\w/+=.-])[A-Za-z0-9+/=_-]{16,}(?![\w/+=-])")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HEX_CHARS = frozenset(string.hexdigits)


def _plausible(value: str, noun: str) -> bool:
    """Whether ``value`` is a secret rather than talk about one ("my password is too long")."""
    if not value or _CODE_REFERENCE.match(value) or "(" in value:
        return False
    if _PIN_NOUNS.match(noun.strip()):
        return sum(ch.isdigit() for ch in value) >= 3
    if value.lower().strip(".,!?") in NOT_A_VALUE:
        return False
    return len(value) >= 3


def _high_entropy(token: str) -> bool:
    """The entropy plugins' own measure and limits, relaxed for short near-random strings."""
    if _UUID.match(token) or not any(c.isdigit() for c in token):
        return False
    if not any(c.isalpha() for c in token):
        return False
    plugin: Base64HighEntropyString | HexHighEntropyString = (
        _HEX if set(token) <= _HEX_CHARS else _BASE64
    )
    entropy = plugin.calculate_shannon_entropy(token)
    if entropy > plugin.entropy_limit:
        return True
    # A 20-character random key cannot reach 4.5 bits/char; accept near-maximal entropy.
    distinct = len(set(token))
    return distinct >= 12 and entropy >= 0.9 * min(len(token).bit_length() - 1 + 0.5, 6.0)


def _spans_of(text: str, value: str) -> Iterator[tuple[int, int]]:
    start = text.find(value)
    while start != -1:
        yield start, start + len(value)
        start = text.find(value, start + 1)


def find(text: str) -> Iterator[Finding]:
    """Yield credential spans in ``text``."""
    for plugin in _TOKEN_PLUGINS:
        for value in plugin.analyze_string(text):
            for start, end in _spans_of(text, value):
                # Regexes may match a prefix of a longer token; redact the whole token.
                yield Finding(CATEGORY, token_start(text, start), token_end(text, end))
    for m in _EXTRA_TOKEN.finditer(text):
        yield Finding(CATEGORY, m.start(), token_end(text, m.end()))
    for m in _URL_PASSWORD.finditer(text):
        yield Finding(CATEGORY, m.start(), m.end())
    if any(True for _ in _PRIVATE_KEY.analyze_string(text)):
        for m in _KEY_BLOCK.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    yield from _conversational(text)
    yield from _keyword_near_entropy(text)


def _conversational(text: str) -> Iterator[Finding]:
    for pattern in (_NOUN_VALUE, _CHANGED_TO):
        for m in pattern.finditer(text):
            group = "q" if m.group("q") is not None else "v"
            start, end = m.span(group)
            if group == "v":
                end = trim_value(text, start, end)
            if _plausible(text[start:end], m.group("noun")):
                yield Finding(CATEGORY, start, end)
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


def _keyword_near_entropy(text: str) -> Iterator[Finding]:
    # Long random strings alone are git SHAs and UUIDs; with a secret word just before, keys.
    for m in _LONG_TOKEN.finditer(text):
        before = text[max(0, m.start() - 48) : m.start()]
        near = _SECRET_WORD_NEAR.search(before)
        if not near or _NOT_SECRET_CONTEXT.search(before[near.start() :]):
            continue
        if _high_entropy(m.group()):
            yield Finding(CATEGORY, m.start(), m.end())
    for m in _BEARER.finditer(text):
        if _high_entropy(m.group("v")):
            yield Finding(CATEGORY, m.start("v"), m.end("v"))
