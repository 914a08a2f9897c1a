"""Usernames and handles, and file paths inside someone's home folder."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from ._text import COPULA, NOT_A_VALUE, token_end, trim_value
from .findings import Finding

_MENTION = compile_on_use(r"(?<![\w.@/])@(?P<h>[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,38}[A-Za-z0-9_])?)")
# Decorators, annotations and chat broadcasts look like mentions but name nobody.
_NOT_HANDLES = frozenset(
    """here channel everyone all team property staticmethod classmethod abstractmethod
    dataclass lru_cache cache cached_property override overload final pytest app router
    test before after beforeeach aftereach component injectable input output autowired
    deprecated suppresswarnings functionalinterface entity table column id transactional
    service repository controller restcontroller bean configuration value param return
    returns throws see since author version link inheritdoc type typedef media import
    tailwind apply layer keyframes font-face supports mixin include extend function
    wraps contextmanager asynccontextmanager fixture mark validator field_validator
    model_validator computed_field total_ordering singledispatch njit jit""".split()
)
_CODE_CONTEXT = compile_on_use(r"(?:decorat|annotat|import|def |class |\.py\b|syntax|@@)", re.I)
_DISCORD = compile_on_use(r"(?<![\w#])(?P<h>[A-Za-z0-9_.]{2,32}#\d{4})(?![\w#])")
_REDDIT = compile_on_use(r"(?<![\w/])/?u/(?P<h>[A-Za-z0-9_-]{3,20})\b")
_PLATFORMS = (
    r"github|gitlab|bitbucket|twitter|x|instagram|insta|ig|tiktok|snapchat|snap|telegram|"
    r"discord|slack|reddit|twitch|youtube|steam|xbox|psn|playstation|nintendo|switch|"
    r"mastodon|bluesky|threads|linkedin|skype|signal|matrix|irc|keybase|roblox|minecraft|"
    r"epic|battle\.?net|spotify|soundcloud|medium|substack|hacker\s*news|stack\s*overflow"
)
_HANDLE_NOUN = (
    rf"(?:{_PLATFORMS})\s+(?:user\s*name|username|handle|name|id|account|profile|tag|login|nick)"
    rf"|user\s*name|username|handle|gamertag|gamer\s*tag|screen\s*name|display\s*name"
    rf"|nick(?:name)?|user\s*id|login"
    rf"|(?:my|his|her|their)\s+(?:{_PLATFORMS})"
)
_HANDLE_TOKEN = r"(?P<h>@?[A-Za-z0-9_][A-Za-z0-9_.-]{1,38})"
_CUED_HANDLE = compile_on_use(
    rf"(?<![\w-])(?i:{_HANDLE_NOUN})(?:\s+(?i:on|for|at)\s+(?:the\s+)?[\w.-]+(?:\s+[\w.-]+)?)?"
    rf"{COPULA}{_HANDLE_TOKEN}"
)
_ADD_ME = compile_on_use(
    rf"\b(?i:add|follow|find|friend|dm|message)\s+me(?:\s+(?i:on|at)\s+[\w.]+)?\s*:?\s+"
    rf"{_HANDLE_TOKEN}"
)
_POST_AS = compile_on_use(
    rf"\b(?i:(?:post|go|play|stream|known)\s+as|go\s+by|I'm|I\s+am)\s+{_HANDLE_TOKEN}"
    rf"(?=\s+(?i:on|in)\s+(?:{_PLATFORMS})\b)"
)
# With a platform named anywhere, a handle-shaped word after "I'm" / "as" / ":" is a handle.
_PLATFORM_WORD = compile_on_use(rf"\b(?:{_PLATFORMS})\b", re.I)
_SHAPED_AFTER_CUE = compile_on_use(
    rf"(?:\bI['\u2019]m|\bI\s+am|\bas|\bme|:)\s+{_HANDLE_TOKEN}", re.I
)
_USER_SLASH = compile_on_use(
    r"\b(?:login|credentials|creds|account)(?:\s+is|\s*:)?\s+(?P<h>[A-Za-z0-9_.@-]{3,})\s*/\s*\S",
    re.I,
)
_LOGIN_USER = compile_on_use(
    r"\blog(?:ged|ging)?[\s-]?(?:in|on)\s+(?:with|as|using)\s+(?P<h>[A-Za-z0-9_.@-]{3,})\s*"
    r"(?:and|with|/|,)",
    re.I,
)


def find_usernames(text: str) -> Iterator[Finding]:
    if "@" in text:
        code = _CODE_CONTEXT.search(text) is not None
        for m in _MENTION.finditer(text):
            handle = m.group("h")
            follows_call = text[m.end() : m.end() + 1] == "("
            if code or follows_call or handle.lower() in _NOT_HANDLES:
                continue
            yield Finding("username", m.start(), trim_value(text, m.start(), m.end()))
    if "#" in text:
        for m in _DISCORD.finditer(text):
            yield Finding("username", m.start("h"), m.end("h"))
    if "u/" in text:
        for m in _REDDIT.finditer(text):
            yield Finding("username", m.start(), m.end())
    patterns = [_CUED_HANDLE, _ADD_ME, _POST_AS, _LOGIN_USER, _USER_SLASH]
    if _PLATFORM_WORD.search(text):
        patterns.append(_SHAPED_AFTER_CUE)
    for pattern in patterns:
        for m in pattern.finditer(text):
            start, end = m.start("h"), trim_value(text, m.start("h"), m.end("h"))
            if text[end : end + 1] == "/":  # "github.com/octocat": the whole profile URL
                end = trim_value(text, start, token_end(text, end))
            value = text[start:end]
            if value.lower().lstrip("@") in NOT_A_VALUE or len(value) < 3:
                continue
            if pattern is _SHAPED_AFTER_CUE and not _handle_shaped(value, ""):
                continue
            if pattern in (_CUED_HANDLE, _ADD_ME) and not _handle_shaped(value, m.group(0)):
                continue
            yield Finding("username", start, end)


def _handle_shaped(value: str, phrase: str) -> bool:
    """A bare word after "my name is" is a person's name, not a handle."""
    if re.search(
        r"(?i)\b(?:user|handle|gamer|screen|login|nick|tag|account|profile)|"
        rf"\b(?:{_PLATFORMS})\b",
        phrase,
    ):
        return True
    return bool(re.search(r"[\d_.@-]|[a-z][A-Z]", value))


_HOME_PATH = compile_on_use(
    r"(?:/home/|/Users/|/export/home/|/var/home/)[^\s/\"']+(?:/[^\s\"']*)?"
    r"(?:\s[A-Z][\w.-]*(?=/)[^\s\"']*)*"
    r"|\b[A-Za-z]:[\\/]+(?:Users|Documents and Settings)[\\/]+[^\s\\/\"']+(?:[\\/][^\s\"']*)?"
    r"|(?<![\w/~.])~[A-Za-z0-9_.-]*/[^\s\"']+"
    r"|%(?:USERPROFILE|HOMEPATH|APPDATA|LOCALAPPDATA)%[^\s\"']*"
    r"|\$(?:HOME|\{HOME\})(?:/[^\s\"']*)?"
)


def find_home_paths(text: str) -> Iterator[Finding]:
    if not any(marker in text for marker in "/\\~%$"):
        return
    for m in _HOME_PATH.finditer(text):
        yield Finding("home_path", m.start(), trim_value(text, m.start(), m.end()))
