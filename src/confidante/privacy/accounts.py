"""Government ids and financial accounts: checksummed formats, or any id-like number that a
cue word names ("my passport number is ...", "routing 021000021")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum import iban, luhn
from stdnum.be import nn as belgian_nn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.ch import ssn as swiss_ssn
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.it import codicefiscale
from stdnum.mx import curp
from stdnum.nl import bsn
from stdnum.us import ssn

from ..lazy_patterns import compile_on_use
from . import cues, spelled
from ._text import COPULA, enough_digits
from .findings import Finding

# An id: one alphanumeric token with 4+ digits, or digit groups with an optional letter
# prefix/suffix ("QQ 12 34 56 C", "943 476 5919", "390.533.447-05").
_ID_TOKEN = (
    r"(?P<id>(?:[A-Z]{1,3}[\s-]?)?\d[\d\s./-]{2,20}\d(?:[\s-]?[A-Z]{1,2}(?![A-Za-z]))?"
    r"|(?i:[A-Z0-9]*\d[A-Z0-9]*)(?<=\w))"
)
_GOV_CUE = (
    r"social\s+security(?:\s+(?:number|no\.?|#|num))?|social\s+insurance(?:\s+number)?|ssn|"
    r"s\.s\.n\.?|social|sin(?:\s+number)?|itin|ein|tin|"
    r"tax\s*(?:payer\s+)?(?:id(?:entification)?|file|reference)?\s*(?:number|no\.?|#)?|"
    r"tfn|nino|ni\s+(?:number|no\.?)|national\s+insurance(?:\s+(?:number|no\.?))?|"
    r"national\s+id(?:entity)?(?:\s+(?:card|number))*|id(?:entity)?\s+card(?:\s+number)?|"
    r"id\s+number|nhs(?:\s+(?:number|no\.?))?|passport(?:\s+(?:number|no\.?|#|num))?|"
    r"driver'?s?\s+licen[cs]e(?:\s+(?:number|no\.?|#))?|"
    r"driving\s+licen[cs]e(?:\s+(?:number|no\.?))?|licen[cs]e\s+(?:number|no\.?)|licen[cs]e(?=\s*#)|"
    r"dl\s*(?:number|no\.?|#)?|aadhaa?r(?:\s+(?:number|no\.?))?|pan(?:\s+card)?\s+number|"
    r"pan\s+card|cpf|rg|dni|(?-i:NIE)|nif|nric|personalausweis(?:nummer)?|ausweisnummer|"
    r"steuer-?id|bsn|pesel|personnummer|henkilötunnus|codice\s+fiscale|medicare(?:\s+number)?|"
    r"health\s+(?:card|insurance)\s+number|voter\s+id|green\s+card(?:\s+number)?|"
    r"alien\s+(?:registration\s+)?number|a-number|curp|rfc|rut|cuil|cuit"
)
_FIN_CUE = (
    r"(?:bank|checking|chequing|savings|current|business|joint|brokerage|ira|401k)\s+"
    r"account(?:\s+(?:number|no\.?|#|num))?|account(?:\s+(?:number|no\.?|#|num))?|acct\.?|"
    r"a/c|routing(?:\s+(?:number|no\.?|#))?|aba(?:\s+number)?|sort\s*code|bsb|"
    r"swift(?:\s+code)?|bic|iban|(?:(?:credit|debit|bank)\s+)?card(?:\s+(?:number|no\.?|#))?|"
    r"visa|mastercard|amex|discover|clabe|transit\s+number|institution\s+number"
)
# "Tax ID (EIN) 12-3456789": an abbreviation in brackets after the cue
# ("SIN (from my T4): ..."): a short remark in brackets after the cue
_NUMBER_WORDS = r"(?:\s*\([^()\n]{2,24}\))?(?:\s*(?:number|no\.?|#|num|nr\.?))?"
_GOV_CUED = compile_on_use(
    rf"(?<![\w-])(?i:{_GOV_CUE})\)?{_NUMBER_WORDS}(?:{COPULA}|\s+)(?:(?:is|as)\s+)?(?:no\.?\s+)?"
    # "mi DNI es el ...", "c'est le ...", "ist die ..."
    rf"(?i:(?:the|el|la|le|der|die)\s+)?{_ID_TOKEN}"
    r"(?![\w-])"
)
_FIN_CUED = compile_on_use(
    rf"(?<![\w-])(?i:{_FIN_CUE}){_NUMBER_WORDS}(?:{COPULA}|\s+)(?:is\s+)?"
    r"(?P<id>\d{2}-\d{2}-\d{2}(?!\d)|\d{3}-\d{3}(?!\d)|\d[\d\s-]{4,30}\d)"
)

# A few words between the id's name and its value: "my passport number for the visa
# application is X12345678", "SIN on my T4 is ...". Only names that mean the id itself, and
# not when the words between say it is a fee, a size, a date or a count.
_GOV_STRICT_CUE = (
    r"passport(?:\s+(?:number|no\.?|#))?|social\s+security(?:\s+number)?|ssn|(?-i:SIN)"
    r"|social\s+insurance(?:\s+number)?|national\s+insurance(?:\s+number)?"
    r"|driver'?s?\s+licen[cs]e(?:\s+number)?|driving\s+licen[cs]e(?:\s+number)?"
    r"|tax\s+id(?:\s+number)?|national\s+id(?:\s+number)?|id\s+card\s+number"
    r"|licen[cs]e\s+number"
)
_GOV_GAPPED = compile_on_use(
    rf"(?<![\w-])(?i:{_GOV_STRICT_CUE})(?P<gap>(?:\s+(?!\d)[\w'\u2019/-]+){{1,5}}?)"
    r"\s*(?i:is|was|:|=)\s*(?i:(?:the|no\.?)\s+)?"
    rf"{_ID_TOKEN}(?![\w-])"
)
_NOT_THE_ID = compile_on_use(
    r"(?i:\b(?:fees?|costs?|price|prices|photos?|size|expir\w*|valid\w*|renew\w*|appointment"
    r"|wait\w*|queue|days?|weeks?|months?|years?|time|pages?|office|processing|count|total)\b)"
)

# Cue-free formats: specific enough on their own, and checksummed where possible.
_SSN = compile_on_use(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_NINO = compile_on_use(
    r"(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r"\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D](?![A-Za-z0-9])"
)
_CPF = compile_on_use(r"(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?!\d)")
_DNI_NIE = compile_on_use(r"(?<![\w-])(?:\d{8}|[XYZxyz]-?\d{7})-?[A-Za-z](?![\w-])")
_CARD = compile_on_use(r"(?<![\w.-])\d(?:[ -]?\d){12,18}(?![\w-]|\.\d)")
# Grouped by dots ("4111.1111.1111.1111", Amex "3782.822463.10005"): only in card-shaped
# groups, since a dotted run of digits is otherwise a decimal, a version or an address.
_DOTTED_CARD = compile_on_use(
    r"(?<![\w.-])(?:\d{4}(?:\.\d{4}){2,3}(?:\.\d{1,3})?|\d{4}\.\d{6}\.\d{4,5})(?![\w-]|\.\d)"
    # or slashes ("4539/1488/0343/6467"): four groups of four are no date or fraction
    r"|(?<![\w./-])\d{4}(?:/\d{4}){3}(?:/\d{1,3})?(?![\w-]|/\d)"
)
# Upper or lower case, grouped by spaces, dashes or dots: iban.is_valid decides.
_IBAN = compile_on_use(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[\s.-]?[A-Za-z0-9]){10,32}")
_CARD_CUE = compile_on_use(
    rf"(?:card|visa|mastercard|amex|discover|credit|debit|maestro|jcb|diners|\bCB\b"
    rf"|{cues.CARD_CUES})(?:[^.]|(?<=\bno)\.|(?<=\bnr)\.){{0,25}}$",
    re.I,
)
_IBAN_CUED = compile_on_use(
    r"(?i:\b(?:iban|rib|kontonummer|konto|cuenta|compte|conto|conta|账户|账号))\W{0,6}"
    r"(?P<id>[A-Za-z]{2}\d{2}(?:[\s-]?[A-Za-z0-9]{2,4}){3,8})(?![A-Za-z0-9])"
)
_ORDER_CUE = compile_on_use(
    r"(?:order|tracking|invoice|receipt|ticket|booking|ref(?:erence)?|shipment|parcel|isbn|ean|"
    r"bestell\w*|sendung\w*|rechnung\w*|commande|facture|colis|pedido|factura|env[íi]o|"
    r"订单号?|单号|快递|运单|发票|编号|imei|meid|serial|s/n|serien\w*|n[úu]mero\s+de\s+serie"
    r"|num[ée]ro\s+de\s+s[ée]rie|序列号|串号)[\s#:.]{0,4}"
    # "n°", "n.º" (folded: "n.o")
    r"(?:number|no\.?|nr\.?|id|num|nummer|n\.?[°ºo]\.?)?"
    r"[\s#:.]{0,3}(?:是|为)?\s*$",
    re.I,
)
# National numbers with a check digit, named anywhere in the sentence, before or after the
# value ("SIN on my T4 is 464 184 571", "91120357687 - die Steuer-ID von meiner Frau",
# "106277732 and ... - ssn first"), within 60 characters of it. The SIN, BSN and Steuer-ID
# checks pass one number in ten or eleven; a US SSN has no check digit (its rules pass most
# nine-digit numbers), so for it the name nearby does the work.
_NINE_DIGITS = compile_on_use(r"(?<![\d-])\d{3}([ -]?)\d{2,3}\1\d{3,4}(?![\d-])")
_ELEVEN_DIGITS = compile_on_use(r"(?<![\d-])\d{2}([ ]?)\d{3}\1\d{3}\1\d{3}(?![\d-])")
_NAMED_ANYWHERE = (
    (compile_on_use(r"\bSIN\b|\bNAS\b|(?i:social\s+insurance|assurance\s+sociale)"), _NINE_DIGITS,
     sin.is_valid),
    (compile_on_use(r"(?i:\bssn\b|social\s+security)"), _NINE_DIGITS, ssn.is_valid),
    (compile_on_use(r"\bBSN\b|(?i:burgerservicenummer|sofinummer)"), _NINE_DIGITS, bsn.is_valid),
    (compile_on_use(r"(?i:steuer[-\s]?id|steuer-?identifikationsnummer|steuerliche\s+identifikations"
                r"nummer|\bidnr\b|identifikationsnummer)"), _ELEVEN_DIGITS, idnr.is_valid),
)  # fmt: skip
# A French RIB written as its parts: "banque 30004 guichet 00550 compte ... clé 25".
_RIB_PARTS = compile_on_use(
    r"(?i:(?:code\s+)?(?:banque|[ée]tablissement))\s*:?\s*\d{5}\W{1,4}(?i:(?:code\s+)?guichet)\s*:?\s*\d{5}"
    r"(?:\W{1,4}(?i:(?:num[ée]ro\s+de\s+|n[°º]\s*(?:de\s+)?)?compte)\s*:?\s*[A-Za-z0-9]{11})?"
    r"(?:\W{1,4}(?i:cl[ée](?:\s+RIB)?)\s*:?\s*\d{2})?"
)
# Checksummed national ids that need no cue: PRC resident ids (18 characters, the last a
# check digit or X), French NIR, Mexican CURP, Italian codice fiscale.
_RIC = compile_on_use(r"(?<![\w-])\d{6}(?:19|20)\d{2}[01]\d[0-3]\d\d{3}[\dXx](?![\w-])")
_NIR = compile_on_use(
    r"(?<![\w-])[12]\s?\d{2}\s?[01]\d\s?(?:\d{2}|2[AB])\s?\d{3}\s?\d{3}(?:\s?\d{2})?(?![\w-])"
)
_CURP = compile_on_use(r"(?<![\w-])[A-Za-z]{4}\d{6}[HMhm][A-Za-z]{5}[A-Za-z\d]\d(?![\w-])")
_CODICE_FISCALE = compile_on_use(r"(?<![\w-])[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z](?![\w-])")
# A cue in another language, then an id-like token: "身份证号是...", "Reisepassnummer: ...".
# A cue may be part of a compound or carry a number word: "Steuernummer-ID", "Ausweis-Nr.",
# "passeport n°", and a copula: "c'est le", "lautet", "es".
_CUE_TAIL = r"(?i:[-\s]?(?:ID|IdNr|Nr\.?|Nummer|n[°ºo]\.?|num\.?|number|no\.?)(?![\w])){0,2}"
_INTL_SEP = (
    r"(?:\s*(?i:[:=]|是|为|為|ist|lautet|est|c['\u2019]est(?:\s+le)?|es|é|n[°ºo]\.?|nr\.?)\s*"
    r"|\s+)"
    # "hat die Nummer", "a le numéro", "tiene el número", "has the number"
    r"(?i:(?:hat|has|a|tiene|tem|ha)\s+(?:die|the|le|el|o|il)\s+"
    r"(?:Nummer|number|num[ée]ro|n[úu]mero|numero)\s*:?\s*)?"
)
_INTL_GOV_CUED = compile_on_use(
    rf"(?i:{cues.GOV_ID_CUES}){_CUE_TAIL}{_INTL_SEP}"
    r"(?P<id>[A-Z]{0,3}\s?\d[\dA-Z\s./-]{3,24}[\dA-Z])"
)
# A card or account cue in another language, then a long number: "卡号 6222...", "cuenta ...".
_INTL_FIN_CUED = compile_on_use(
    rf"(?i:{cues.CARD_CUES}){_CUE_TAIL}{_INTL_SEP}"
    r"(?P<id>\d[\d\s-]{10,30}\d)"
)

# An account named in another language, then (within a few words, no digits or sentence end
# between) its number: "numéro de compte à la Banque Postale c'est le 1234567W020",
# "mi CLABE interbancaria es 002180700912345673", "Konto-Nr. 1234567890", "CBU: 0170...".
_ACCOUNT_CUED = compile_on_use(
    rf"(?<![A-Za-z0-9-])(?i:{cues.ACCOUNT_CUES}){_CUE_TAIL}"
    r"(?P<gap>[^\d.!?\n]{0,40}?)"
    r"(?<![\w-])(?P<id>[A-Za-z]{2}\d{2}(?:[\s-]?[A-Za-z0-9]{2,4}){3,8}"
    r"|(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{7,34}|\d{2,6}(?:[\s-]\d{2,12}){1,6})(?![\w-])"
)
# A card's security code after its name: "CVV: 318", "Prüfnummer 771", "cryptogramme 442".
_CVV = compile_on_use(
    r"(?<![\w-])(?i:cvv2?|cvc2?|cid|csc|card\s+security\s+code|security\s+code|"
    r"(?:Karten)?prüf(?:nummer|ziffer|code)|Sicherheitscode|cryptogramme(?:\s+visuel)?|"
    r"code\s+de\s+s[ée]curit[ée]|c[óo]digo\s+de\s+seguridad|安全码|验证码|CVV码)"
    r"(?:\s*(?i:is|ist|lautet|est|c['\u2019]est|es|是|:|=)\s*|\s+)(?P<id>\d{3,4})(?!\d)"
)
_AMOUNT_AFTER = compile_on_use(
    r"\s*(?:€|\$|£|¥|元|块|%|(?i:euros?|eur|dollars?|usd|pesos?|mxn|ars|francs?|chf|"
    r"habitants?|habitantes|abonn[ée]s|seguidores|followers|personnes|personas|fois|veces)\b)"
)


def _digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit())


def _network_length_ok(number: str) -> bool:
    """Visa numbers have 13, 16 or 19 digits: a 14-digit "4..." is a company's SIRET or an
    order number, not a card (other networks' lengths vary more)."""
    return number[0] != "4" or len(number) in (13, 16, 19)


def _card_prefix_ok(number: str) -> bool:
    """Issuer prefixes of the major networks (avoids Luhn-valid EANs and ISBNs)."""
    two, four = int(number[:2]), int(number[:4])
    return (
        number[0] == "4"
        or 51 <= two <= 55
        or 2221 <= four <= 2720
        or two in (34, 37, 36, 38, 35, 62, 65)
        or 300 <= int(number[:3]) <= 305
        or number.startswith(("6011", "64"))
    )


def find_gov_ids(text: str) -> Iterator[Finding]:
    if spelled.hint(text):
        for m in _SPELLED_ID.finditer(text):
            if spelled.digit_count(m.group("run")) >= 6:
                yield Finding("gov_id", m.start("run"), m.end("run"))
    if not enough_digits(text, 2):
        return
    for m in _DOC_CUED.finditer(text):
        if not _REFERENCE_WORDS.search(text, m.start(), m.start("id")):
            yield Finding("gov_id", m.start("id"), m.end("id"))
    if not enough_digits(text, 4):  # every other id format here has at least four digits
        return
    for m in _GOV_CUED.finditer(text):
        value = m.group("id").rstrip(" .-/")
        if sum(ch.isdigit() for ch in value) >= 4 and len(value.replace(" ", "")) >= 6:
            yield Finding("gov_id", m.start("id"), m.start("id") + len(value))
    for m in _GOV_GAPPED.finditer(text):
        value = m.group("id").rstrip(" .-/")
        digits = sum(ch.isdigit() for ch in value)
        if _NOT_THE_ID.search(m.group("gap")) or _AMOUNT_AFTER.match(text, m.end("id")):
            continue
        if digits >= 6 or (digits >= 4 and len(value.replace(" ", "")) >= 8):
            yield Finding("gov_id", m.start("id"), m.start("id") + len(value))
    for m in _SSN.finditer(text):
        if ssn.is_valid(m.group()):
            yield Finding("gov_id", m.start(), m.end())
    for m in _NINO.finditer(text):
        yield Finding("gov_id", m.start(), m.end())
    for m in _CPF.finditer(text):
        if cpf.is_valid(m.group()):
            yield Finding("gov_id", m.start(), m.end())
    for m in _DNI_NIE.finditer(text):
        if dni.is_valid(m.group().upper()) or nie.is_valid(m.group().upper()):
            yield Finding("gov_id", m.start(), m.end())
    for cue, pattern, valid in _NAMED_ANYWHERE:
        if cue.search(text):
            for m in pattern.finditer(text):
                before = text[max(0, m.start() - 40) : m.start()]
                if _ORDER_CUE.search(before) or _REFERENCE_WORDS.search(before):
                    continue  # "order 123456789", "case 123456789": another number
                near = text[max(0, m.start() - 60) : m.end() + 60]
                if not cue.search(near):
                    continue  # the name must be near the number, not anywhere in a long text
                if valid(m.group().replace(" ", "").replace("-", "")):
                    yield Finding("gov_id", m.start(), m.end())
    for pattern, validator in _CHECKSUMMED:
        for m in pattern.finditer(text):
            if validator(m.group()):
                yield Finding("gov_id", m.start(), m.end())
    for m in _INTL_GOV_CUED.finditer(text):
        value = m.group("id").rstrip(" .-/")
        digits = sum(ch.isdigit() for ch in value)
        # passport and identity-card numbers mix letters and digits: "L7H4K2R19"
        if digits >= 6 or (digits >= 4 and len(value.replace(" ", "")) >= 8):
            yield Finding("gov_id", m.start("id"), m.start("id") + len(value))


# Swiss AHV numbers ("756.4074.9765.08") and Belgian national numbers ("86.02.14-117.22"):
# their grouping and check digits make them safe to find without a cue.
_AHV = compile_on_use(r"(?<![\w.-])756[.\s]?\d{4}[.\s]?\d{4}[.\s]?\d{2}(?![\w-]|\.\d)")
_BELGIAN_NN = compile_on_use(r"(?<![\w.-])\d{2}\.\d{2}\.\d{2}[-\s]\d{3}[.\s]\d{2}(?![\w-]|\.\d)")
# An identity document's number: uppercase letters and digits, eight to ten of them, at least
# two digits ("CMJL1P36J", "X2GQG8X4P", "ZM0JMM1HL1"), after the document's name and at most
# a few words ("die Nummer vom Perso mit Prüfziffer: ...").
_DOC_CUE = (
    r"passport|reisepass\w*|perso(?:nalausweis(?:nummer)?)?\b|ausweis\w*"
    r"|carte\s+d['\u2019]identit[ée]|passeport|pasaporte|(?-i:DNI|NIE|CNI)"
    r"|documento\s+de\s+identidad|护照|護照|通行证|身份证"
)
_DOC_CUED = compile_on_use(
    rf"(?<![\w-])(?i:{_DOC_CUE})"
    # "Perso-Nummer", "Ausweis-Nr.", "Personalausweis (Perso) Nr.", "passport no."
    r"(?:\s*\([^()\n]{2,20}\))?(?i:[-\s]?(?:Nummer|Nr\.?|number|no\.?|n[°ºo]\.?|ID)(?!\w))?"
    r"(?:\s*(?::|是|为|(?i:ist|lautet|est|es|is)\b)?\s*"
    # a few words, then a colon or a copula: "die Perso-Nummer von Oma lautet ..."
    r"|(?:,?[^\S\n]+[^\s\d:]+){1,4}?\s*(?::|(?i:ist|lautet|est|es|is)\b)\s*)"
    r"(?P<id>(?=[A-Za-z]*\d)(?=(?:[A-Za-z]*\d){2})(?:[A-Z0-9]{8,10}|[a-z0-9]{8,10}))(?![\w-])"
)
# An id read out in words after its name: "my SSN is five five five, one two, three four five
# six", "Steuer-ID: null eins ...", "身份证号是一一零一..." (six digits or more).
_SPELLED_ID = compile_on_use(
    rf"(?:(?<![\w-])(?i:{_GOV_STRICT_CUE}|{_DOC_CUE})(?![\w])|{cues.GOV_ID_CUES})"
    r"(?:\s*(?i:number|no\.?|nummer|nr\.?|num[ée]ro|n[úu]mero))?"
    r"(?:\s+[\w'\u2019]+){0,3}?"
    r"(?:\s*[:=]\s*|\s+(?i:is|was|ist|lautet|est|c['\u2019]est|es|era)\s+|\s*(?:是|为)\s*|\s+)"
    rf"(?P<run>{spelled.DIGIT_RUN.pattern})"
)


# A document's appointment, booking or case number is not the document's number.
_REFERENCE_WORDS = compile_on_use(
    r"(?i:appointment|booking|booked|confirmation|reference|ref\b|tracking|ticket|case|file"
    r"|dossier|claim|order|Vorgang\w*|Termin\w*|Buchung\w*|Aktenzeichen|rendez-vous"
    r"|r[ée]f[ée]rence|cita|reserva\w*|expediente|aanvraag)"
)
_CHECKSUMMED = (
    (_RIC, ric.is_valid),
    (_AHV, swiss_ssn.is_valid),
    (_BELGIAN_NN, belgian_nn.is_valid),
    (_NIR, nir.is_valid),
    (_CURP, lambda value: curp.is_valid(value.upper())),
    (_CODICE_FISCALE, codicefiscale.is_valid),
)


def find_financial(text: str) -> Iterator[Finding]:
    if not enough_digits(text, 3):
        return
    for m in _CVV.finditer(text):
        yield Finding("financial_account", m.start("id"), m.end("id"))
    if not enough_digits(text, 6):  # accounts, cards and IBANs all have six digits or more
        return
    for m in _RIB_PARTS.finditer(text):
        yield Finding("financial_account", m.start(), m.end())
    for m in _IBAN_CUED.finditer(text):  # named an IBAN: a wrong check digit is still one
        yield Finding("financial_account", m.start("id"), m.end("id"))
    for m in _INTL_FIN_CUED.finditer(text):
        value = m.group("id")
        if len(_digits(value)) >= 12:
            yield Finding("financial_account", m.start("id"), m.end("id"))
    for m in _FIN_CUED.finditer(text):
        value = m.group("id").rstrip(" -")
        if len(_digits(value)) >= 6:
            yield Finding("financial_account", m.start("id"), m.start("id") + len(value))
    for m in (*_CARD.finditer(text), *_DOTTED_CARD.finditer(text)):
        before = text[max(0, m.start() - 40) : m.start()]
        carded = _CARD_CUE.search(before) is not None
        if _ORDER_CUE.search(before) and not carded:
            continue  # "order 4111...": an order, tracking or invoice number
        end = _card_end(m.group().replace(".", " ").replace("/", " "), carded)
        if end:
            yield Finding("financial_account", m.start(), m.start() + end)
    for m in _ACCOUNT_CUED.finditer(text):
        value = m.group("id")
        if len(_digits(value)) >= 7 and not _AMOUNT_AFTER.match(text, m.end("id")):
            yield Finding("financial_account", m.start("id"), m.end("id"))
    for m in _IBAN.finditer(text):
        end = _iban_end(m.group())
        if end:
            yield Finding("financial_account", m.start(), m.start() + end)


def _card_end(candidate: str, carded: bool) -> int:
    """Length of the longest card number at the start of ``candidate`` that ends where a
    group ends ("6011 7584 7494 4540 04/28": the expiry is not part of it), 0 if none."""
    ends = [i for i in range(len(candidate), 0, -1) if i == len(candidate) or candidate[i] in " -"]
    for end in ends:
        if _is_card(_digits(candidate[:end]), carded):
            return end
    return 0


def _is_card(number: str, carded: bool) -> bool:
    if not 12 <= len(number) <= 19:
        return False
    luhn_ok = luhn.is_valid(number)
    if luhn_ok and _card_prefix_ok(number) and _network_length_ok(number):
        # 13 digits is also an EAN barcode; ask for a card word then.
        return len(number) >= 14 or carded
    if not carded:
        return False
    # After a card word: Maestro and other issuers' ranges (Luhn-valid, 12 to 19 digits),
    # and UnionPay numbers (62...), which need not pass Luhn, 16 to 19 of them.
    return luhn_ok or (number.startswith("62") and len(number) >= 16)


# An IBAN as it is printed, in groups of four: its mod-97 check and its country's length and
# shape say enough, though the bank code may be one the national list does not know yet
# ("BE68 5390 0754 7034").
_PRINT_FORM = compile_on_use(
    r"[A-Za-z]{2}\d{2}(?:[ -][A-Za-z0-9]{4}){2,7}(?:[ -][A-Za-z0-9]{1,3})?"
)


def _iban_end(candidate: str) -> int:
    """Length of the longest valid IBAN at the start of ``candidate`` (0 if none)."""
    for end in range(len(candidate), 14, -1):
        if candidate[end - 1] == " ":
            continue
        number = candidate[:end]
        if iban.is_valid(number) or (
            _PRINT_FORM.fullmatch(number) and iban.is_valid(number, check_country=False)
        ):
            return end
    return 0
