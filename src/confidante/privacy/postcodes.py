"""A postcode given with its country: "postcode is EH8 9YL, United Kingdom", "meine PLZ: 8004
Zürich, Schweiz", "code postal 1003 Lausanne, Suisse", "código postal 08001, España",
"邮编 100084,中国".

A postcode with its country is where a letter reaches someone; a postcode alone, a town and
its country, or talk about postcodes ("el código postal es obligatorio", "die Postleitzahlen
in Heidelberg fangen mit 69 an") is not. The grammar, in the five languages:

    [postcode word [copula or colon]] CODE [Town [Town]] , COUNTRY

where CODE has a postcode's shape (British, Canadian, Dutch, Polish, Portuguese, Swedish or
Czech, four to six digits, a country letter and a dash before digits) and COUNTRY is a
country's name in English, German, French, Spanish or its own language. Without the postcode
word, a code of digits needs a town and must not read as a year ("In 2019 Berlin, Germany");
a British or Canadian code is a postcode by its shape alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from . import towns
from .findings import Finding

CATEGORY = "street_address"

_COUNTRIES = frozenset(
    "|".join(
        (
            "united kingdom|uk|u.k.|great britain|england|scotland|wales|northern ireland",
            "ireland|irlande|irland|irlanda|united states|usa|u.s.a.|u.s.|us|canada|kanada",
            "canadá|australia|australien|australie|new zealand|neuseeland|nouvelle-zélande",
            "nueva zelanda|germany|deutschland|allemagne|alemania|austria|österreich|autriche",
            "switzerland|schweiz|suisse|suiza|svizzera|france|frankreich|francia|spain",
            "spanien|espagne|españa|italy|italien|italie|italia|portugal|netherlands",
            "the netherlands|niederlande|pays-bas|países bajos|nederland|holland|holanda",
            "belgium|belgien|belgique|bélgica|belgië|luxembourg|luxemburg|luxemburgo|denmark",
            "dänemark|danemark|dinamarca|danmark|sweden|schweden|suède|suecia|sverige|norway",
            "norwegen|norvège|noruega|norge|finland|finnland|finlande|finlandia|suomi|poland",
            "polen|pologne|polonia|polska|czech republic|czechia|tschechien",
            "république tchèque|chequia|república checa|česko|hungary|ungarn|hongrie|hungría",
            "magyarország|greece|griechenland|grèce|grecia|ελλάδα|mexico|méxico|mexique",
            "mexiko|argentina|argentinien|argentine|chile|chili|colombia|kolumbien|colombie",
            "peru|perú|pérou|brazil|brasil|brasilien|brésil|japan|japon|japón|china|chine",
            "monaco|andorra|andorre|liechtenstein|india|inde|indien|israel|croatia|kroatien",
            "croatie|croacia|hrvatska|slovenia|slowenien|slovénie|eslovenia|slovenija",
            "slovakia|slowakei|slovaquie|eslovaquia|slovensko|romania|rumänien|roumanie",
            "rumania|românia|bulgaria|bulgarien|bulgarie|estonia|estland|estonie|eesti|latvia",
            "lettland|lettonie|letonia|latvija|lithuania|litauen|lituanie|lituania|lietuva",
            "iceland|island|islande|islandia|ísland|turkey|türkei|turquie|turquía|türkiye",
            "morocco|marokko|maroc|marruecos|algeria|algérie|argelia|tunisia|tunisie|túnez",
            "uruguay|venezuela|ecuador|bolivia|paraguay|costa rica|panama|panamá|cuba",
            "puerto rico|dominican republic|república dominicana|guatemala|honduras|nicaragua",
            "el salvador|south africa|singapore|québec|quebec",
        )
    ).split("|")
)
_COUNTRIES_ZH = (
    "中国|英国|美国|德国|法国|西班牙|瑞士|奥地利|意大利|加拿大|澳大利亚|日本|荷兰|比利时|葡萄牙"
    "|瑞典|挪威|丹麦|芬兰|爱尔兰|新西兰|新加坡|香港|台湾|澳门"
)
_CAP = "A-ZÀ-ÖØ-Þ\u0100-\u017f\u0391-\u03a9"
_CUE = (
    r"post\s?code|postal\s+code|zip(?:\s*code)?|PLZ|Postleitzahl|code\s+postal|CP|C\.P\."
    r"|c[óo]d(?:igo|\.)\s+postal|n[úu]mero\s+postal"
)
_SHAPED = r"[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}|[A-Z]\d[A-Z]\s?\d[A-Z]\d"  # British, Canadian
_DIGITS = r"(?:[A-Z]{1,2}-)?\d{4,6}(?:-\d{3,4})?(?:\s?[A-Z]{2}(?![\w]))?|\d{3}\s\d{2}|\d{2}-\d{3}"
_POSTCODE_COUNTRY = compile_on_use(
    rf"(?:(?P<cue>(?i:{_CUE}))\s*(?:(?i:is|was|ist|lautet|est|c['\u2019]est|es|era)\s+"
    r"|[:=#]\s*)?)?"
    rf"(?<![\w-])(?P<code>(?P<shaped>{_SHAPED})|{_DIGITS})(?![\w-])"
    # a town of up to three words, with the particles between them ("Ciudad de México")
    rf"(?P<town>(?:[ \t]+[{_CAP}][\w'\u2019.-]*"
    rf"(?:[ \t]+(?:de|del|am|an|der|sur|en)(?=[ \t]+[{_CAP}]))?){{0,3}})"
    r"[ \t]*,[ \t]*(?P<country>[^\W\d_][\w.'\u2019-]*(?:[ \t][^\W\d_][\w.'\u2019-]*){0,2})"
)
# the cheap test: a comma, then a word that is a country's name
_COMMA_WORDS = compile_on_use(
    r",[ \t]*([^\W\d_][\w.'\u2019-]*(?:[ \t][^\W\d_][\w.'\u2019-]*){0,2})"
)
_ZH = compile_on_use(r"(?:邮编|邮政编码)\s*(?:是|为|:)?\s*(?P<code>\d{6})(?!\d)")
_ZH_COUNTRY = compile_on_use(_COUNTRIES_ZH)
_YEAR = compile_on_use(r"(?:1[89]|20)\d\d")


_WORD = compile_on_use(r"\S+")


# A postal line starts the text, a part of it (after a comma, a colon, a separator) or follows
# "in", "à", "en": not "Flight 1234 Paris, France", where the number is the flight's.
_LINE_START = compile_on_use(r"(?:^|[,;:|/>(\n]|\b(?:in|im|à|a|en|at|to|nach|bei|near))[ \t]*$")


def _starts_line(m: re.Match[str]) -> bool:
    return _LINE_START.search(m.string, max(0, m.start("code") - 8), m.start("code")) is not None


def _known_town(town: str) -> bool:
    words = town.casefold().split()
    return any(" ".join(words[:n]) in towns.names() for n in (3, 2, 1) if len(words) >= n)


def _country_end(words: str) -> int:
    """Length of the country's name at the start of ``words`` (three words, two or one), 0 if
    none is."""
    for end in reversed([m.end() for m in _WORD.finditer(words)][:3]):
        name = words[:end].casefold().rstrip(".")
        # "UK", "USA" only in capitals: "10001, us too" is a word
        short = len(name) <= 3 and not words[:end].isupper()
        if (name in _COUNTRIES or f"{name}." in _COUNTRIES) and not short:
            return end
    return 0


def find(text: str) -> Iterator[Finding]:
    """Yield a postcode and its country (with the town between them)."""
    if "," in text and any(_country_end(m.group(1)) for m in _COMMA_WORDS.finditer(text)):
        for m in _POSTCODE_COUNTRY.finditer(text):
            country = _country_end(m.group("country"))
            if not country:
                continue
            code, town = m.group("code"), m.group("town").strip()
            # "In 2019 Berlin, Germany", "Room 1204 Hilton, USA": digits alone need a town
            # we know, and no year's shape
            bare = not (m.group("cue") or m.group("shaped"))
            if bare and (_YEAR.fullmatch(code) or not _known_town(town) or not _starts_line(m)):
                continue
            yield Finding(CATEGORY, m.start("code"), m.start("country") + country)
    if not text.isascii() and ("邮编" in text or "邮政编码" in text):
        for m in _ZH.finditer(text):
            near = text[max(0, m.start() - 20) : m.end() + 20]
            if _ZH_COUNTRY.search(near):
                yield Finding(CATEGORY, m.start("code"), m.end("code"))
