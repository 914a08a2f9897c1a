"""Email addresses (plain and "name at host dot com") and phone numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator

from phonenumbers import Leniency, PhoneNumberMatcher

from . import cues
from .findings import Finding

_EMAIL = re.compile(
    r"(?<![\w.+:/%'-])(?P<local>[A-Za-z0-9][A-Za-z0-9._%+'-]*)@"
    r"(?P<host>[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*\.(?P<tld>[A-Za-z]{2,24}))"
    r"(?![\w@-])"
)
_AT = r"\s*(?:\(at\)|\[at\]|\{at\}|<at>|\s+at\s+)\s*"
_DOT = r"\s*(?:\(dot\)|\[dot\]|\{dot\}|<dot>|\s+dot\s+)\s*"
_TLDS = (
    r"com|org|net|edu|gov|io|co|me|info|biz|dev|app|ai|uk|de|fr|es|it|nl|be|ch|at|se|no|dk|"
    r"fi|pl|pt|br|ar|mx|ca|us|au|nz|in|jp|cn|kr|ru|ie|eu|mail|email"
)
# "jdoe at outlook dot com": an obfuscated dot before the TLD is required, so "meet at home"
# never matches.
_OBFUSCATED_EMAIL = re.compile(
    rf"(?<![\w.])(?:[a-z0-9._%+-]+{_DOT})*[a-z0-9._%+-]+{_AT}[a-z0-9-]+"
    rf"(?:(?:{_DOT}|\.)[a-z0-9-]+)*?{_DOT}(?:{_TLDS})\b",
    re.I,
)
_PLACEHOLDER_TLDS = frozenset({"tld", "ext", "example", "invalid", "test", "localhost", "local"})
_PLACEHOLDER_LOCAL = frozenset(
    {
        "user",
        "name",
        "username",
        "you",
        "yourname",
        "your.name",
        "someone",
        "email",
        "foo",
        "bar",
        "test",
        "example",
        "firstname.lastname",
        "first.last",
        "me",
    }
)


def find_emails(text: str) -> Iterator[Finding]:
    if "@" in text:
        for m in _EMAIL.finditer(text):
            if _is_placeholder_email(text, m):
                continue
            yield Finding("email", m.start(), m.end())
    lowered = text.lower()
    if "at" in lowered and "dot" in lowered:
        for m in _OBFUSCATED_EMAIL.finditer(text):
            yield Finding("email", m.start(), m.end())


def _is_placeholder_email(text: str, m: re.Match[str]) -> bool:
    local, host, tld = m.group("local").lower(), m.group("host").lower(), m.group("tld").lower()
    if tld in _PLACEHOLDER_TLDS:
        return True
    # scp-style git remotes: git@github.com:owner/repo.git
    if local == "git" or text[m.end() : m.end() + 1] == ":":
        return True
    return local in _PLACEHOLDER_LOCAL and host.split(".")[0] in {"example", "domain", "email"}


# Runs of digits with phone-ish separators; phonenumbers decides what is a number.
_PHONE_RUN = re.compile(r"(?<![\w.,/#$€£¥-])\+?\(?\d[\d\s().\-/]{5,22}\d(?![\w%/-]|\.\d|,\d)")
# Without a cue a number must be valid in one of these regions; after a cue ("Phone:",
# "call me on", "Telefon", "téléphone", "teléfono", "电话") a local format that is possible
# in one of the wider list counts.
_REGIONS = ("US", "GB", "DE", "FR", "IN", "BR", "AU", "CN", "ES", "MX", "IT")
_CUED_REGIONS = (*_REGIONS, "CA", "NL", "BE", "CH", "AT", "PT", "AR", "CO", "CL", "PE", "IE", "PL")
_PHONE_CUE = re.compile(rf"(?:{cues.PHONE_CUES})\W{{0,6}}(?:\w+\W+){{0,2}}?$", re.I)
# Numbers that are something else when one of these names them.
_OTHER_NUMBER = re.compile(
    r"(?:order|invoice|tracking|ticket|ref(?:erence)?|id|isbn|ean|upc|serial|version|build|"
    r"package|parcel|shipment|confirmation|booking|reservation|receipt|policy|claim|"
    r"member(?:ship)?|customer|product|item|model|meeting|"
    r"case|account|acct|routing|sort\s*code|card|iban|ssn|social|passport|licen[cs]e|"
    r"nhs|sin|tax|itin|aadhaa?r|bsb|#|no\.|population|total|sku|part|model|invoice|"
    r"bestell\w*|auftrag\w*|rechnung\w*|kunden\w*|sendung\w*|commande|facture|colis|"
    r"pedido|factura|env[íi]o|订单号?|单号|快递|编号|发票|人口|einwohner|habitantes?|学号|工号|"
    r"会员号|房间号|车牌号|航班号|座位号|批次号|账号|卡号|APO\s+A[EPA]|FPO\s+A[EPA]|DPO\s+A[EPA])"
    r"[^\d]{0,20}$",
    re.I,
)
_PHONE_WORD = re.compile(
    r"(?:phone|mobile|cell|\btel|call|text|whatsapp|landline|telefon|t[ée]l[ée]fono|handy|móvil"
    r"|portable|电话|手机)",
    re.I,
)
_UNIT_AFTER = re.compile(
    r"\s*(?:元|块|万|亿|美元|欧元|人|次|步|个|件|年|km|kg|mb|gb|€|\$|£|"
    r"(?i:euros?|dollars?|usd|eur|people|persons|users|views|steps|points|votes|miles|meters|"
    r"bytes|times|Leute|Menschen|Einwohner|personnes|habitants|personas|habitantes)\b)"
)
_DATE_LIKE = re.compile(r"^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$")


def find_phones(text: str) -> Iterator[Finding]:
    for run in _PHONE_RUN.finditer(text):
        candidate = run.group().rstrip(" .-(")
        digits = sum(ch.isdigit() for ch in candidate)
        if digits < 7 or digits > 15 or _DATE_LIKE.match(candidate.strip()):
            continue
        before = text[max(0, run.start() - 30) : run.start()]
        cue = _PHONE_CUE.search(before) is not None
        if "/" in candidate and not cue:  # "030/12345678" after "Telefon"; else a date or ratio
            continue
        if _OTHER_NUMBER.search(before) and not _PHONE_WORD.search(before):
            continue
        # "1Z 999 AA1 01 2345 6784": digits right after a code are the end of that code.
        previous = before.rstrip().rsplit(None, 1)[-1] if before.strip() else ""
        if before[-1:].isspace() and any(ch.isdigit() for ch in previous):
            continue
        # "1234567890 元", "2500000 people": a quantity with its unit is not a phone number
        if _UNIT_AFTER.match(text, run.end()):
            continue
        # "1400000000": a round number is a count, not a phone number
        if not cue and candidate.isdigit() and candidate.endswith("0000"):
            continue
        # "4 8 15 16 23 42": many short groups are a list of numbers, not one number.
        if len(re.findall(r"\d+", candidate)) > 5 and not candidate.startswith("+"):
            continue
        span = _match_number(candidate, cue or candidate.startswith("+"))
        if span is not None:
            yield Finding("phone", run.start() + span[0], run.start() + span[1])


def _match_number(candidate: str, cued: bool) -> tuple[int, int] | None:
    """Span of a valid number in ``candidate`` for any of the regions, else None."""
    for region in _REGIONS:
        for match in PhoneNumberMatcher(candidate, region, leniency=Leniency.VALID):
            return match.start, match.end
    if not cued:
        return None
    # After a cue, a number that is possible (if unassigned, as "555-201-8844", or local
    # only, as "555-0132") in a likely region counts; fragments under 7 digits do not.
    for region in _CUED_REGIONS:
        for match in PhoneNumberMatcher(candidate, region, leniency=Leniency.POSSIBLE):
            if len(str(match.number.national_number)) >= 7:
                return match.start, match.end
    return None
