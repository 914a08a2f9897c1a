"""Platform account ids: the system's own ``platform:id`` actors, chat mentions, and the long
numeric ids platforms give people (Discord snowflakes, Telegram user ids after a cue).

Fine in a person's own silo; never in text every audience reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from .findings import Finding

CATEGORY = "actor_id"

PLATFORMS = (
    r"discord|telegram|tg|slack|matrix|whatsapp|wa|signal|irc|twitter|x|mastodon|bluesky|bsky|"
    r"teams|msteams|skype|wechat|weixin|qq|kakao|kakaotalk|viber|imessage|zulip|"
    r"mattermost|rocketchat|rocket\.chat|twitch|youtube|reddit|github|gitlab|steam|"
    r"instagram|facebook|fb|messenger|tiktok|snapchat|linkedin|feishu|lark|dingtalk"
)
_GENERIC = r"user|member|actor|uid|userid|account"
# "discord:42", "telegram:99", "slack:U024BE7LH": the form actors take in this system.
_PLATFORM_ID = compile_on_use(
    rf"(?<![\w./:-])(?:(?i:{PLATFORMS}):(?P<id>[@#]?\w[\w.@-]*)"
    rf"|(?i:{_GENERIC}):(?P<num>[@#]?[\w.-]*\d[\w.@-]*))(?<![.-])"
)
# A label-ish form: "discord-42", "telegram_99123", "discord id 42", "telegram user 99".
_PLATFORM_LABEL = compile_on_use(
    rf"(?<![\w.-])(?i:{PLATFORMS}|{_GENERIC})(?:[_-]|\s+(?i:id|user|uid|user\s+id|account|#)\s*[:#]?\s*"
    r"|[_-](?i:id|user|uid)[_-])(?P<id>\d[\w-]*)(?![\w-])"
)
# Mentions as chat platforms encode them: <@123>, <@!123>, <@&role>, <#channel>, <@U024BE7LH>,
# Slack's <@U024BE7LH|name>, Telegram's tg://user?id=123, Matrix's @alice:example.org.
_MENTION = compile_on_use(
    r"<(?:@[!&]?|#|!subteam\^)[\w-]{2,40}(?:\|[^>\n]{0,80})?>"
    r"|tg://user\?id=\d+"
    r"|(?<![\w@])@[a-z0-9._=/+-]{1,64}:[a-z0-9.-]+\.[a-z]{2,}(?::\d+)?",
    re.I,
)
# Bare long numbers: 17-20 digits is a snowflake-style platform id (Discord, Twitter).
# A full stop or comma may follow ("ID 284739201847362048, wohnt"), but not a decimal part.
_LONG_NUMBER = compile_on_use(r"(?<![\w.,/-])\d{17,20}(?!\w|[.,-]\w|/\d)")
# Shorter numeric ids need a word that names a person's account just before them.
_CUED_NUMBER = compile_on_use(
    r"(?i:\b(?:user|member|account|player|profile|chat|sender|author)\s*(?:id|#|no\.?|number)"
    r"|\b(?:uid|userid|user_id|id\s+of\s+(?:the\s+)?(?:user|owner|member)))"
    r"\s*(?:is|was|[:=#])?\s*(?P<id>\d{5,20})(?!\d)"
)
# Slack and Teams member ids: U or W followed by upper-case letters and digits.
_SLACK_ID = compile_on_use(
    r"(?<![\w-])[UW](?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{8,10}(?![\w-])"
)
_NOT_IDS_BEFORE = compile_on_use(
    r"(?i:order|invoice|tracking|ticket|isbn|ean|serial|build|version|commit|block|tx|hash|"
    r"transaction|phone|card|account\s+number|iban|population|total|km|kg|\w*nummer|num[ée]ro|"
    r"n[úu]mero|单号|订单号?|编号)\W{0,3}$"
)


def find(text: str) -> Iterator[Finding]:
    """Yield platform account id spans in ``text``."""
    digits = any(ch.isdigit() for ch in text)
    if ":" in text:
        for m in _PLATFORM_ID.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    if "<" in text or "@" in text or "tg:" in text:
        for m in _MENTION.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    if not digits:
        return
    for m in _PLATFORM_LABEL.finditer(text):
        yield Finding(CATEGORY, m.start(), m.end())
    for m in _CUED_NUMBER.finditer(text):
        yield Finding(CATEGORY, m.start("id"), m.end("id"))
    for m in _LONG_NUMBER.finditer(text):
        if not _NOT_IDS_BEFORE.search(text[max(0, m.start() - 24) : m.start()]):
            yield Finding(CATEGORY, m.start(), m.end())
    for m in _SLACK_ID.finditer(text):
        yield Finding(CATEGORY, m.start(), m.end())


def generalisable(value: str) -> bool:
    """A platform id or mention reads as "someone"; a bare number is refused instead (it may
    not name a person, and "someone" would make no sense in its place)."""
    return not value.isdigit()
