"""Street addresses: a house number with a street word, in English, Romance and Germanic
styles, plus PO boxes and "I live at 12 ..." phrasing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .findings import Finding

STREET_TYPES = (
    r"Street|St|Avenue|Ave|Av|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Court|Ct|Place|Pl|"
    r"Terrace|Terr|Crescent|Cres|Close|Parkway|Pkwy|Highway|Hwy|Square|Sq|Circle|Cir|Trail|"
    r"Row|Mews|Gardens|Grove|Walk|Alley|Wharf|Embankment|Broadway|Hill|Rise|Parade|Esplanade|"
    r"Expressway|Freeway|Turnpike|Pike|Loop|Plaza|Green|Vale|View|Park|Gate|Passage|Quay"
)
# Lower case allowed only where the word has no English sense ("17 rue Oberkampf", but
# never "sent 3 via Slack").
ROMANCE_STREETS = (
    r"(?i:rue|chemin|impasse|all[ée]e|quai|viale|piazza|corso|vicolo|calle|avenida|paseo|"
    r"carrer|rua|travessa|pra[çc]a|carretera|strada|calea|ulica|ul\.)"
    r"|Avenue|Boulevard|Bd|Place|Via|Largo|Plaza|Av\."
)
GERMANIC_SUFFIX = (
    r"stra(?:ss|ß)e|str\.|weg|allee|platz|gasse|damm|ufer|chaussee|"
    r"straat|laan|gracht|plein|kade|gatan|vägen|vej|veien|gade|torget"
)

_NAME_WORD = r"(?:[A-Z][\w'\u2019.-]*|\d+(?:st|nd|rd|th)|of|the|de|la|du|des)"
_NUMBER = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,5}[A-Za-z]?)?"
_UNIT = r"(?:(?:Apt|Apartment|Flat|Unit|Suite|Ste|Fl|Floor|#)\.?\s*[\w-]{1,5},?\s+)?"
_DIRECTION = r"(?:(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?\s+)?"
_TAIL = (
    r"(?:,?\s+(?:Apt|Apartment|Flat|Unit|Suite|Ste)\.?\s*[\w-]{1,5})?"
    r"(?:,\s*(?![A-Z]{2}\s+\d)[A-Z][\w'\u2019-]*(?:\s(?![A-Z]{2}\s+\d)[A-Z][\w'\u2019-]*){0,2}){0,2}"
    r"(?:,?\s+(?:[A-Z]{2}\s+\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}))?"
)
_ENGLISH = re.compile(
    rf"(?<![\w.,-]){_UNIT}{_NUMBER},?\s+{_DIRECTION}(?:{_NAME_WORD}\s+){{0,3}}"
    rf"(?:{STREET_TYPES})\b\.?{_TAIL}"
)
_ROMANCE = re.compile(
    rf"(?<![\w.,-])(?:{_NUMBER},?\s+(?:{ROMANCE_STREETS})\s+(?:{_NAME_WORD}\s?){{1,4}}"
    rf"|(?:{ROMANCE_STREETS})\s+(?:{_NAME_WORD}\s){{1,4}}\d{{1,4}}[a-z]?\b){_TAIL}"
)
_GERMANIC = re.compile(
    rf"(?<![\w-])(?:[A-ZÄÖÜ][\wäöüßéè-]*(?:{GERMANIC_SUFFIX})\s+\d{{1,4}}[a-z]?\b"
    rf"|{_NUMBER}\s+[A-ZÄÖÜ][\wäöüßéè-]*(?:{GERMANIC_SUFFIX})(?![\w])){_TAIL}"
)
_PO_BOX = re.compile(
    r"\b(?i:P\.?\s?O\.?\s*Box|Post\s+Office\s+Box|Postfach|Apartado(?:\s+de\s+Correos)?|"
    r"Caixa\s+Postal|Bo[iî]te\s+Postale)\s*\d{1,7}\b" + _TAIL
)
# "I live at number 12", "my address is 4 the Crescent": a cue makes any house number count.
_CUED = re.compile(
    r"\b(?:live[sd]?\s+at|living\s+at|(?:home|postal|mailing|street|my|our|his|her|their)\s+"
    r"address(?:\s+is|:)|address\s*:|ship(?:ped)?\s+(?:it\s+)?to|send\s+(?:it|this|that|the\s+\w+)"
    r"\s+to|deliver(?:ed)?\s+(?:it\s+)?to|moved\s+(?:in)?to|mail\s+it\s+to)\s+"
    r"(?P<addr>(?:(?:number|no\.?|flat|apt|unit)\s*)?\d{1,5}[A-Za-z]?(?:[-/]\d{1,5})?,?\s+"
    r"[A-Za-z][\w'\u2019-]*(?:\s+[A-Za-z][\w'\u2019-]*){0,3})",
    re.I,
)
_STREET_WORD = re.compile(rf"\b(?:{STREET_TYPES}|{ROMANCE_STREETS})\b", re.I)
_CUED_STOP = re.compile(r"\s+(?:in|on|for|and|but|when|if|with|last|next|this|every|since)\b.*")


def find(text: str) -> Iterator[Finding]:
    """Yield street-address spans in ``text``."""
    if not any(ch.isdigit() for ch in text):
        return
    for pattern in (_ENGLISH, _ROMANCE, _GERMANIC, _PO_BOX):
        for m in pattern.finditer(text):
            yield Finding("street_address", m.start(), m.end())
    for m in _CUED.finditer(text):
        addr = _CUED_STOP.sub("", m.group("addr"))
        # "moved to 3 different cities" is not an address; a name or street word must follow.
        if _STREET_WORD.search(addr) or re.search(r"\d[\w/-]*,?\s+[A-Z]", addr):
            yield Finding("street_address", m.start("addr"), m.start("addr") + len(addr))
