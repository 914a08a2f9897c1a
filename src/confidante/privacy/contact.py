"""Email addresses (plain and "name at host dot com") and phone numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from phonenumbers import Leniency, PhoneNumberMatcher, PhoneNumberType, number_type

from ..lazy_patterns import compile_on_use
from . import cues, spelled
from .findings import Finding

# A colon may come right before ("邮箱:li@x.cn" with a full-width colon, "mailto:bob@x.com");
# a URL's user part ("https://user:pw@host") is the credential detector's, which wins.
_EMAIL = compile_on_use(
    # letters of any script ("jürgen.müller@gmx.de", "josé@correo.es")
    r"(?<![\w.+/%'-])(?P<local>[^\W_][\w.%+'-]*)@"
    r"(?P<host>[^\W_](?:[\w-]*[^\W_])?(?:\.[\w-]+)*\.(?P<tld>[^\W\d_]{2,24}))"
    r"(?![\w@-])"
)
# "at" and "dot" spelled out, bracketed, or as symbols with spaces round them, in the
# languages of the cue words: "dave dot kim at proton dot me", "julie point bernard arobase
# gmail point com", "wangfang 艾特 126 点 com", "camille . dubois @ orange . fr".
_AT_WORD = r"at|ät|arobase|arroba|chiocciola|klammeraffe|艾特|圈a"
_DOT_WORD = r"dot|punkt|point|punto|ponto|点|點"
_AT = (
    rf"\s*(?:[(\[{{<]\s*(?:{_AT_WORD}|@)\s*[)\]}}>])\s*"
    rf"|\s+(?:{_AT_WORD})\s+|\s+@\s*|\s*@\s+"
)
_DOT = (
    rf"\s*(?:[(\[{{<]\s*(?:{_DOT_WORD}|\.)\s*[)\]}}>])\s*"
    rf"|\s+(?:{_DOT_WORD})\s+|\s+\.\s+"
)
_TLDS = (
    r"com|org|net|edu|gov|io|co|me|info|biz|dev|app|ai|uk|de|fr|es|it|nl|be|ch|at|se|no|dk|"
    r"fi|pl|pt|br|ar|mx|ca|us|au|nz|in|jp|cn|kr|ru|ie|eu|cl|co|pe|ve|uy|lu|li|tw|hk|sg|"
    r"mail|email"
)
# An obfuscated "at" and an obfuscated dot before the TLD are both required, so "meet at
# home" or "a point for us" never match.
_OBFUSCATED_EMAIL = compile_on_use(
    rf"(?<![\w.])(?:[a-z0-9_%+-]{{1,40}}(?:{_DOT}|\.)){{0,3}}[a-z0-9_%+-]{{1,40}}(?:{_AT})"
    rf"[a-z0-9-]{{1,40}}(?:(?:{_DOT}|\.)[a-z0-9-]{{1,40}}){{0,3}}?(?:{_DOT})(?:{_TLDS})\b",
    re.I,
)
# "john.smith at gmail.com": a spelled-out "at" alone, when the name part has a dot, digit or
# underscore in it (so "I work at amazon.com" stays).
_HALF_OBFUSCATED_EMAIL = compile_on_use(
    rf"(?<![\w.])[a-z0-9%+-]{{0,40}}[._\d][a-z0-9._%+-]{{0,40}}(?:{_AT})[a-z0-9-]{{1,40}}"
    rf"(?:\.[a-z0-9-]{{1,40}}){{0,3}}\.(?:{_TLDS})\b",
    re.I,
)
# Defanged, as security mail and spam-shy people write it: "jane[at]gmail.com",
# "jane@example[.]com", "j.doe (at) uni-bonn (dot) de". A bracketed "at" or dot is never prose,
# so either one is enough, with the other written plainly or defanged too.
_BRACKET_AT = rf"\s*[(\[{{<]\s*(?:{_AT_WORD}|@)\s*[)\]}}>]\s*"
_BRACKET_DOT = rf"\s*[(\[{{<]\s*(?:{_DOT_WORD}|\.)\s*[)\]}}>]\s*"
_DEFANGED_EMAIL = compile_on_use(
    rf"(?<![\w.+-])[a-z0-9][a-z0-9._%+-]{{0,63}}(?P<at>{_BRACKET_AT}|@)"
    rf"[a-z0-9-]{{1,63}}(?:(?:{_BRACKET_DOT}|\.)[a-z0-9-]{{1,63}}){{0,3}}"
    rf"(?P<dot>{_BRACKET_DOT}|\.)[a-z]{{2,24}}(?![\w-])",
    re.I,
)
_DEFANGED_HINT = compile_on_use(rf"[(\[{{<]\s*(?:{_AT_WORD}|@|{_DOT_WORD}|\.)\s*[)\]}}>]", re.I)
_VERSION = compile_on_use(r"v?\d+(?:\.\d+)*\s", re.I)  # "v2.0 at github.com": a release
# "we were at the dot com party", "look at google dot com": the words round a spelled "at"
# are a verb and a place, not a mailbox and a host.
_NOT_LOCAL = frozenset(
    """i m s re we you they he she it me us them him her were was is are am be been look
    looking looked meet met meeting stay stayed staying arrive arrived work works worked
    live lives lived go went going come came coming see saw seen find found check checked
    sign signed log logged shop shopped buy bought sell sold one two point""".split()
)
_NOT_HOST = frozenset("the a an my our your their his her this that home work school".split())
_OBFUSCATED_HINT = compile_on_use(rf"(?:\b(?:{_AT_WORD})\b|[\s\[(]@|@[\s\])])", re.I)
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
    if ("(" in text or "[" in text or "{" in text or "<" in text) and _DEFANGED_HINT.search(text):
        for m in _DEFANGED_EMAIL.finditer(text):
            if m.group("at") != "@" or m.group("dot") != ".":
                yield Finding("email", m.start(), m.end())
    if _OBFUSCATED_HINT.search(text):
        for pattern in (_OBFUSCATED_EMAIL, _HALF_OBFUSCATED_EMAIL):
            for m in pattern.finditer(text):
                if pattern is _HALF_OBFUSCATED_EMAIL and _VERSION.match(m.group()):
                    continue
                if _spelled_words_not_an_address(m.group()):
                    continue
                yield Finding("email", m.start(), m.end())


_AT_SPLIT = compile_on_use(_AT, re.I)
_LAST_WORD = compile_on_use(r"[a-z0-9_%+-]+$", re.I)
_FIRST_WORD = compile_on_use(r"^[a-z0-9-]+", re.I)


def _spelled_words_not_an_address(value: str) -> bool:
    parts = _AT_SPLIT.split(value, maxsplit=1)
    if len(parts) != 2:
        return False
    local = _LAST_WORD.search(parts[0])
    host = _FIRST_WORD.match(parts[1])
    return (local is not None and local.group().lower() in _NOT_LOCAL) or (
        host is not None and host.group().lower() in _NOT_HOST
    )


def _is_placeholder_email(text: str, m: re.Match[str]) -> bool:
    local, host, tld = m.group("local").lower(), m.group("host").lower(), m.group("tld").lower()
    if tld in _PLACEHOLDER_TLDS:
        return True
    # scp-style git remotes: git@github.com:owner/repo.git
    if local == "git" or text[m.end() : m.end() + 1] == ":":
        return True
    return local in _PLACEHOLDER_LOCAL and host.split(".")[0] in {"example", "domain", "email"}


# Runs of digits with phone-ish separators; phonenumbers decides what is a number.
_PHONE_RUN = compile_on_use(r"(?<![\w.,/#$€£¥-])\+?\(?\d[\d\s().\-/]{5,22}\d(?![\w%/-]|\.\d|,\d)")
# Without a cue a number must be valid in one of these regions; after a cue ("Phone:",
# "call me on", "Telefon", "téléphone", "teléfono", "电话") a local format that is possible
# in one of the wider list counts.
_REGIONS = ("US", "GB", "DE", "FR", "IN", "BR", "AU", "CN", "ES", "MX", "IT")
_CUED_REGIONS = (*_REGIONS, "CA", "NL", "BE", "CH", "AT", "PT", "AR", "CO", "CL", "PE", "IE", "PL")
_PHONE_CUE = compile_on_use(
    rf"(?:{cues.PHONE_CUES})\W{{0,6}}(?:\w+\W+){{0,2}}?(?:是|为|為|:)?\s*$", re.I
)
# Numbers that are something else when one of these names them.
_OTHER_NUMBER = compile_on_use(
    r"(?:order|invoice|tracking|ticket|\bref(?:erence)?|\bid\b|isbn|ean|upc|serial|version|build|"
    r"package|parcel|shipment|confirmation|booking|reservation|receipt|policy|claim|"
    r"member(?:ship)?|customer|product|item|model|meeting|"
    r"case|account|acct|routing|sort\s*code|card|iban|ssn|social|passport|licen[cs]e|"
    r"nhs|sin|tax|itin|aadhaa?r|bsb|#|no\.|population|total|sku|part|model|invoice|"
    r"bestell\w*|auftrag\w*|rechnung\w*|kunden\w*|sendung\w*|commande|facture|colis|"
    r"pedido|factura|env[íi]o|订单号?|单号|快递|编号|发票|人口|einwohner|habitantes?|学号|工号|"
    r"paquete|paquet|\bpaket\w*|lieferung|livraison|entrega|reserva|r[ée]servation|buchung|"
    r"billet|boleto|vorgang|包裹|"
    r"会员号|房间号|车牌号|航班号|座位号|批次号|账号|卡号|APO\s+A[EPA]|FPO\s+A[EPA]|DPO\s+A[EPA]|"
    # part, article and reference numbers; parcel services and their guide numbers
    r"\blott?o|lotter|ganador|gagnant|tirage|sorteo|quiniela|bingo|euromillion|powerball|"
    r"双色球|彩票|大乐透|\bcharge\b|\blote?\b|\bbatch|批号|"
    r"\bclient|\bcliente|\bkunde|\babonn|\bsocio|contrat|vertrag|dossier|expediente|aktenzeichen|"
    r"\bnr\b\.?|\bn\.?[°º]|\bn\.o\b|ersatzteil\w*|artikel\w*|teilenummer|\br[ée]f\b\.?|r[ée]f[ée]rence|pi[èe]ce|"
    r"referencia|pieza|modelo|mod[eè]le|c[óo]digo\s+del?\s+producto|\bgu[íi]a\b|seguimiento|"
    r"suivi|\b(?:dhl|ups|fedex|usps|gls|dpd|hermes|correos|colissimo|chronopost|estafeta)\b|"
    r"顺丰|中通|圆通|韵达|申通|京东|型号|配件|编码)"
    r"[^\d]{0,20}$",
    re.I,
)
_PHONE_WORD = compile_on_use(
    r"(?:phone|mobile|cell|\btel|call|text|whatsapp|landline|telefon|t[ée]l[ée]fono|handy|móvil"
    r"|portable|电话|手机)",
    re.I,
)
_UNIT_AFTER = compile_on_use(
    r"\s*(?:元|块|万|亿|美元|欧元|人|次|步|个|件|年|km|kg|mb|gb|€|\$|£|"
    r"(?i:euros?|dollars?|usd|eur|people|persons|users|views|steps|points|votes|miles|meters|"
    r"bytes|times|Leute|Menschen|Einwohner|personnes|habitants|personas|habitantes)\b)"
)
_DATE_LIKE = compile_on_use(r"^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$")
# "2024-05-12 10:30" is a timestamp, "2024-0815-12" a batch or file number: a year first.
_STARTS_WITH_DATE = compile_on_use(r"\d{4}-\d{2}-\d{2}(?!\d)|(?:19|20)\d{2}-")


_DECIMAL = compile_on_use(r"\d+\.\d+")
_IPV4 = compile_on_use(r"\d{1,3}(?:\.\d{1,3}){3}")  # "192.168.1.100": an address on a network
# Arithmetic round the number: "2^32 = 4294967296", "2**20 is 1048576", "1024*1024",
# "4294967296 = 2^32", "等于 4294967296". A result or an operand, never a phone number.
_MATH_BEFORE = compile_on_use(
    r"(?:\d\s*(?:\^|\*\*?|\u00d7|\u00f7|·|/|\+|hoch|to\s+the(?:\s+power\s+of)?|puissance"
    r"|elevado\s+a(?:\s+la)?|的)\s*\(?\d+\)?\s*(?:次方|次幂|th|nd|rd|st)?\s*"
    r"(?:=|==|≈|is|equals|makes|gives|ist|ergibt|gleich|est|fait|font|es|son|da|等于|是|得)?\s*"
    r"|(?:\^|\*\*?|\u00d7|\u00f7|=|≈)\s*)$",
    re.I,
)
_MATH_AFTER = compile_on_use(r"\s*(?:\^|\*|\u00d7|\u00f7|=|≈|\+\s*\d)")
# "2 147 483 647": a large number with thin-space thousands, as French and others write it
_THOUSANDS = compile_on_use(r"\d{1,3}(?: \d{3}){3,}|\d(?: \d{3}){2,}")
# Numbers a business publishes (toll-free, shared-cost, premium, "universal access"):
# nobody's personal number.
_SERVICE_TYPES = frozenset(
    {
        PhoneNumberType.TOLL_FREE,
        PhoneNumberType.SHARED_COST,
        PhoneNumberType.PREMIUM_RATE,
        PhoneNumberType.UAN,
    }
)


# The letter O for a zero ("07700 9OO123", "O171 2345678"): inside a run of digits and
# separators that has five real digits, read as 0 (one character for one: spans are kept).
_O_HINT = compile_on_use(r"\d[Oo]|[Oo]\d")
_O_RUN = compile_on_use(r"(?<![A-Za-z])[+(]?[\dOo][\dOo \t().\-/]{5,22}[\dOo](?![A-Za-z])")


def _zeros(m: re.Match[str]) -> str:
    run = m.group()
    if sum(ch.isdigit() for ch in run) < 5:
        return run
    return run.replace("O", "0").replace("o", "0")


def find_phones(text: str) -> Iterator[Finding]:
    if _O_HINT.search(text):
        text = _O_RUN.sub(_zeros, text)
    for run in _PHONE_RUN.finditer(text):
        candidate = run.group().rstrip(" .-(")
        digits = sum(ch.isdigit() for ch in candidate)
        if digits < 7 or digits > 15 or _DATE_LIKE.match(candidate.strip()):
            continue
        # "3.14159265", "37.400068", "192.168.1.100": never a phone number
        if _DECIMAL.fullmatch(candidate) or _IPV4.fullmatch(candidate):
            continue
        if _THOUSANDS.fullmatch(candidate) and not candidate.startswith("0"):
            continue
        before = text[max(0, run.start() - 30) : run.start()]
        cue = _PHONE_CUE.search(before) is not None
        if not cue and (_MATH_BEFORE.search(before) or _MATH_AFTER.match(text, run.end())):
            continue
        if _STARTS_WITH_DATE.match(candidate) and not cue:
            continue
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
        groups = re.findall(r"\d+", candidate)
        # "4 8 15 16 23 42": many short groups are a list of numbers, not one number.
        if len(groups) > (8 if cue else 5) and not candidate.startswith("+"):
            continue
        # (an international prefix says phone number: "+33 6 47 18 92 05" is not a series)
        if not cue and not candidate.startswith("+") and _small_numbers(groups):
            continue
        span = _match_number(candidate, cue or candidate.startswith("+"))
        if span is not None:
            yield Finding("phone", run.start() + span[0], run.start() + span[1])
    yield from _spelled_phones(text)


def _small_numbers(groups: list[str]) -> bool:
    """Lottery draws and number series ("7 12 23 34 41", "06 12 18 24 30"): four or more
    groups of one or two digits that vary in length or step evenly. People write a phone
    number in even groups that do not count up."""
    if len(groups) < 4 or any(len(g) > 2 for g in groups):
        return False
    if len({len(g) for g in groups}) > 1:
        return True
    values = [int(g) for g in groups]
    steps = {b - a for a, b in pairwise(values)}
    return len(steps) == 1


def _match_number(candidate: str, cued: bool) -> tuple[int, int] | None:
    """Span of a valid number in ``candidate`` for any of the regions, else None. A
    business's service number (toll-free, shared-cost, premium) is not a person's."""
    # Read in every likely region: a service number in most of those where it is valid
    # ("0800 ...": toll-free in the UK, Germany, Brazil, China) is a business's; a number
    # that is a person's in more of them ("030 ...": Berlin, an access number in the UK) is.
    personal: tuple[int, int] | None = None
    votes = 0
    for region in _REGIONS:
        for match in PhoneNumberMatcher(candidate, region, leniency=Leniency.VALID):
            if number_type(match.number) in _SERVICE_TYPES:
                votes -= 1
            else:
                votes += 1
                personal = personal or (match.start, match.end)
            break
    if votes < 0:
        return None
    if personal is not None:
        return personal
    if votes or not cued:
        return None
    # After a cue, a number that is possible (if unassigned, as "555-201-8844", or local
    # only, as "555-0132") in a likely region counts; fragments under 7 digits do not.
    for region in _CUED_REGIONS:
        for match in PhoneNumberMatcher(candidate, region, leniency=Leniency.POSSIBLE):
            if len(str(match.number.national_number)) >= 7:
                return match.start, match.end
    return None


# Digits written as words after a phone cue: "six four six, three eight two, ...",
# "一三八一二三四五六七八", "null eins fünf eins ...". English, German, French, Spanish, Chinese.
_DIGIT_WORD = spelled.DIGIT_WORD
_SPELLED_DIGITS = compile_on_use(
    rf"(?<!\w)(?:(?:double|triple)\s+)?(?:{_DIGIT_WORD})(?:[\s,.-]+(?:(?:double|triple)\s+)?"
    rf"(?:{_DIGIT_WORD})){{6,}}(?!\w)"
    r"|[〇零一二三四五六七八九幺两\d](?:\s*[〇零一二三四五六七八九幺两\d]){6,}",
    re.I,
)


def _spelled_phones(text: str) -> Iterator[Finding]:
    # read in pairs, as French and Spanish speakers say a number: "zéro six, quarante-sept,
    # quatre-vingt-deux, ...", "seis cuarenta y siete ...": the digits must make a number
    for start, end in spelled.pair_spans(text):
        for m in spelled.PAIR_RUN.finditer(text, start, min(len(text), end + 1)):
            before = text[max(0, m.start() - 30) : m.start()]
            digits = spelled.digits_of(m.group())
            # without a cue, a long run that makes a valid number is one too: nobody reads
            # out nine or more digits in pairs for anything else
            if not (9 <= len(digits) <= 15 and (_PHONE_CUE.search(before) or len(digits) >= 10)):
                continue
            if _match_number(digits, False) is not None:  # valid in a likely region
                yield Finding("phone", m.start(), m.end())
    if not spelled.hint(text):
        return
    for m in _SPELLED_DIGITS.finditer(text):
        if sum(ch.isdigit() for ch in m.group()) == len(m.group().replace(" ", "")):
            continue  # plain digits are the run detector's
        before = text[max(0, m.start() - 30) : m.start()]
        if _PHONE_CUE.search(before):
            yield Finding("phone", m.start(), m.end())
        elif 9 <= len(digits := spelled.digits_of(m.group())) <= 15 and _match_number(
            digits, False
        ):
            yield Finding("phone", m.start(), m.end())  # nine digits read out, a valid number
