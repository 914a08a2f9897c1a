"""Places finer than a city: neighbourhoods, streets, landmarks, postcodes, coordinates."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from importlib.resources import files

from ..lazy_patterns import compile_on_use
from ._text import FIRST_PERSON
from .addresses import STREET_TYPES
from .findings import Finding

CATEGORY = "fine_geo"

_CAP = r"[A-ZÀ-ÖØ-Þ][\w'\u2019.-]*"
_COORD = compile_on_use(
    r"(?<![\w.])[-+]?\d{1,2}\.\d{3,}\s*°?\s*[NS]?\s*,?\s+[-+]?\d{1,3}\.\d{3,}\s*°?\s*[EW]?(?![\w.])"
    r"|\d{1,3}°\s*\d{1,2}['\u2032]\s*(?:\d{1,2}(?:\.\d+)?[\"\u2033]\s*)?[NS],?\s*\d{1,3}°\s*\d{1,2}['\u2032]"
    r"\s*(?:\d{1,2}(?:\.\d+)?[\"\u2033]\s*)?[EW]"
)
_LAT_LON = compile_on_use(
    r"\blat(?:itude)?\s*[:=]?\s*[-+]?\d{1,2}\.\d{2,}\s*,?\s*(?:lon|lng|long|longitude)\s*[:=]?\s*"
    r"[-+]?\d{1,3}\.\d{2,}",
    re.I,
)
_UK_POSTCODE = compile_on_use(r"(?<![\w-])[A-Z]{1,2}\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2}(?![\w-])")
_CA_POSTCODE = compile_on_use(r"(?<![\w-])[ABCEGHJ-NPRSTVXY]\d[A-Z]\s?\d[A-Z]\d(?![\w-])")
_CUED_POSTCODE = compile_on_use(
    r"\b(?i:post\s*code|postal\s+code|zip(?:\s*code)?|plz|code\s+postal|cep|pin\s*code)"
    r"(?:\s+is|\s*:|\s+of)?\s+(?P<v>[A-Z0-9]{2,5}(?:[\s-][A-Z0-9]{3,4})?)(?![\w-])"
)
_US_STATES = (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH "
    "NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY"
).split()
_STATE_ZIP = compile_on_use(rf"\b(?:{'|'.join(_US_STATES)})\s+(?P<v>\d{{5}}(?:-\d{{4}})?)(?!\d)")
_STREET = compile_on_use(
    rf"\b(?:on|off|along|down|near|by|at|just\s+off)\s+(?:the\s+)?"
    rf"(?P<v>(?:{_CAP}\s+){{1,3}}(?:{STREET_TYPES})\b\.?)"
)
_CORNER = compile_on_use(
    rf"\bcorner\s+of\s+(?P<v>(?:{_CAP}|\d+(?:st|nd|rd|th))(?:\s+{_CAP})?\s+(?:and|&)\s+"
    rf"(?:{_CAP}|\d+(?:st|nd|rd|th))(?:\s+(?:{STREET_TYPES}))?)",
    re.I,
)
_LANDMARK_TYPES = (
    r"Park|Lake|Station|Square|Junction|Market|Bridge|Common|Heath|Gardens|Plaza|Mall|Tower|"
    r"Church|Cathedral|Museum|Stadium|Arena|Beach|Pier|Harbou?r|Marina|Hospital|Library|"
    r"Cemetery|Reservoir|Canal|Campus|Centre|Center|Terminal|Airport|Zoo|Castle|Palace|"
    r"Memorial|Fountain|Circus|Cross|Green|Hill|Heights|Village|District|Quarter"
)
_PROXIMITY = (
    r"near|nearby|by|next\s+to|close\s+to|around|from|opposite|behind|beside|across\s+from|"
    r"onto|on\s+to|overlooks|backs\s+onto|"
    r"off|outside|overlooking|facing|walking\s+distance\s+(?:from|to|of)|minutes\s+from|"
    r"blocks?\s+from|streets?\s+from|steps\s+from|round\s+the\s+corner\s+from"
)
_LANDMARK = compile_on_use(
    rf"\b(?:{_PROXIMITY})\s+(?:the\s+)?(?P<v>(?:Lake|Mount|Mt\.?|Lago|Mont|Fort)\s+{_CAP}"
    rf"|(?:{_CAP}\s+){{1,3}}(?i:{_LANDMARK_TYPES})\b(?:\s+(?i:station))?"
    rf"|[A-ZÄÖÜ][\wäöüß]+(?:platz|bahnhof|park|markt|brücke|tor))"
)
# Where someone works or studies, said of anyone ("the owner works at St. Mary's Hospital",
# "she teaches at Lakeside Clinic", "er arbeitet im Klinikum Nord" is a landmark already).
_WORKPLACE_NOUNS = (
    r"Hospital|Clinic|Medical\s+Cent(?:er|re)|Health\s+Cent(?:er|re)|Surgery|Library|Church"
    r"|School|College|Nursery|Daycare|Pharmacy"
)
_WORKPLACE = compile_on_use(
    r"\b(?:works?|working|worked|teach(?:es|ing)?|taught|volunteers?|volunteering|studies"
    r"|studying|attends?|attending|nurse|doctor|receptionist|employed|job)\s+(?:at|in|for)\s+"
    rf"(?:the\s+)?(?P<v>(?:{_CAP}\s+){{1,3}}(?:{_WORKPLACE_NOUNS}))\b"
)
_AREA_WORDS = r"District|Quarter|Heights|Village|Borough|Ward|Barrio|Kiez|Arrondissement"
# A place word or a comma ("Williamsburg, Brooklyn") before a run of capitalised words;
# only runs the gazetteer knows, or that end in an area word, count.
_PLACE_CUE = compile_on_use(
    rf"(?:\b(?i:in|at|from|near|around|to|outside|of|dans|en|à|au|aux|près\s+de|im|bei|nahe"
    rf"|cerca\s+de|desde|por)|,)\s+(?:(?i:the|le|la|les|l['\u2019]|el|los|las|der|die|dem|den)\s*)?"
    rf"(?P<v>\d+(?:st|nd|rd|th|e|er)\s+(?i:arrondissement)|{_CAP}(?:\s+{_CAP}){{0,3}})"
)
_NEIGHBOURHOOD_NAMED = compile_on_use(
    rf"\b(?:my|our|the)\s+(?:neighbou?rhood|hood|part\s+of\s+town)(?:\s+is|\s*,)?\s+"
    rf"(?:the\s+)?(?P<v>{_CAP}(?:\s+{_CAP}){{0,2}})"
)


# "on 5th and Main", "at Elm St & 3rd": a crossing, one side an ordinal, "Main" or a street.
_ORDINAL = r"\d+(?:st|nd|rd|th)"
_CROSS_SIDE = rf"(?:{_ORDINAL}|Main|Broadway|Market|{_CAP}\s+(?:{STREET_TYPES})\b\.?)"
_CROSSING = compile_on_use(
    rf"\b(?:on|at|of|near|by|off)\s+(?:the\s+)?(?P<v>(?:{_CROSS_SIDE}|{_CAP})\s+(?:and|&)\s+"
    rf"{_CROSS_SIDE}|{_CROSS_SIDE}\s+(?:and|&)\s+{_CAP})"
)
# Streets named in German, French, Spanish and Italian, with no house number: "in der
# Kastanienallee", "rue Oberkampf", "calle Argumosa", "Via Roma". Refused rather than
# generalised: there is no stand-in in the sentence's own language.
_GERMAN_STREET = compile_on_use(
    r"(?<![\w-])[A-ZÄÖÜ][\wäöüß-]{0,40}?(?:stra(?:ss|ß)e|str\.|allee|gasse|chaussee)(?![\w])"
    r"|(?:(?<=\b(?:der|die|den|dem|zum|zur)\s)|(?<=\b(?:am|im)\s))[A-ZÄÖÜ][a-zäöüß]+"
    r"(?:weg|platz|ring|damm|ufer|steig|pfad|markt|hof)(?![\w])"
)
# The same streets as spans (for deciding what a finding is).
_FOREIGN_STREET_SPAN = compile_on_use(
    r"[A-ZÄÖÜ][\wäöüß-]*(?:stra(?:ss|ß)e|str\.|allee|gasse|chaussee|weg|platz|ring|damm|ufer"
    r"|steig|pfad|markt|hof)"
    r"|(?i:rue|boulevard|bd|all[ée]e|impasse|quai|chemin|calle|avenida|avda\.?|paseo|carrer|rua"
    r"|travessa|viale|piazza|corso|vicolo|place|avenue|av\.|via|plaza)\s.*"
)
_NOT_GERMAN_STREETS = frozenset(
    """Arbeitsplatz Parkplatz Spielplatz Sportplatz Campingplatz Stellplatz Sitzplatz Marktplatz
    Heimweg Rückweg Umweg Ausweg Arbeitsweg Schulweg Fußweg Radweg Wanderweg Feldweg Waldweg
    Bauernhof Friedhof Bahnhof Hinterhof Innenhof Flughafen Supermarkt Flohmarkt Wochenmarkt
    Weihnachtsmarkt Arbeitsmarkt Wohnungsmarkt Staudamm Flussufer Seeufer Ehering Boxring""".split()
)
_ROMANCE_STREET = compile_on_use(
    r"(?<![\w-])(?:(?i:rue|boulevard|bd|all[ée]e|impasse|quai|chemin|calle|avenida|avda\.?|paseo|avenue"
    r"|carrer|rua|travessa|viale|piazza|corso|vicolo)|(?<=\bla\s)place|Av\.|Via|Plaza|Place)"
    r"\s+(?:(?:de\s+la|de\s+l['\u2019]|du|des|de|del|de\s+los|de\s+las|d['\u2019]|dei|della)\s*)?"
    r"(?P<name>[A-ZÀ-Þ][\w'\u2019-]+)"
)
# An area named by a word for one: "the Riverside Gardens estate", "quartier de la
# Croix-Rousse", "barrio de Lavapiés", "Kiez Neukölln"; a named school or tower; a floor.
_AREA_NOUN_AFTER = compile_on_use(
    rf"\b(?:in|at|on|from|near|around|of)\s+the\s+(?P<v>{_CAP}(?:\s+{_CAP}){{0,3}})\s+"
    r"(?:estate|housing\s+estate|neighbou?rhood|development|complex|projects)\b"
)
_AREA_NOUN_BEFORE = compile_on_use(
    r"(?<![\w-])(?i:quartier|barrio|colonia|urbanizaci[óo]n|fraccionamiento|Viertel|Stadtteil"
    r"|Kiez|Siedlung|cit[ée]|r[ée]sidence|lotissement|bairro|quartiere|rione)"
    r"\s+(?:(?:de\s+la|de\s+l['\u2019]|du|des|de|del|d['\u2019])\s*)?"
    r"(?P<v>[A-ZÀ-Þ][\w'\u2019-]+(?:\s+[A-ZÀ-Þ][\w'\u2019-]+){0,2})"
)
_ESTATE = compile_on_use(
    r".+\s(?:estate|housing\s+estate|neighbou?rhood|development|complex|projects)", re.I
)
_NAMED_BUILDING = compile_on_use(
    r"(?<![\w-])(?P<v>(?i:[ée]cole|coll[èe]ge|lyc[ée]e|Grundschule|Gesamtschule|Realschule"
    r"|Gymnasium|Kita|Kindergarten|escuela|colegio|instituto|liceo|scuola|torre|Turm)"
    r"\s+(?:(?:de\s+la|du|des|de|del|am|an\s+der)\s+)?[A-ZÀ-Þ][\w'\u2019-]+)"
    rf"|(?<![\w'\u2019.-])(?P<w>{_CAP}(?:\s+{_CAP})?\s+(?:Elementary|Primary|Middle|High|Junior|Academy|Prep)"
    r"(?:\s+School)?)\b"
    r"|(?<![\w-])(?P<x>[A-ZÄÖÜ][\wäöüß]+-(?:Gymnasium|Grundschule|Realschule|Gesamtschule|Schule"
    r"|Kita|Oberschule|Hauptschule|Akademie))(?![\w-])"
)
_FLOOR = compile_on_use(
    r"(?<![\w-])(?P<v>(?i:planta|piso|[ée]tage|Stock|Etage|floor)\s*\d{1,3}"
    r"|\d{1,3}\s*(?:e|er|ème|º|ª|\.|st|nd|rd|th)?\s*(?i:[ée]tage|Stock|Etage|floor|piso|planta))"
    r"(?![\w])"
)

_CJK = compile_on_use(r"[\u4e00-\u9fff]")
# Chinese districts, streets and estates after "in / live in / near": "住在朝阳区", "在望京".
_ZH_DISTRICT = compile_on_use(
    r"(?:住在|在|位于|搬到|靠近|附近的?)\s*(?:[\u4e00-\u9fff]{2,4}市)?"
    r"(?P<v>[\u4e00-\u9fff]{2,6}(?:区|县|镇|乡|村|街道|小区|路|街|胡同|社区|新村|花园))"
)


@cache
def subcity_places() -> dict[str, str]:
    """Neighbourhood or district name -> its city ("" when the city is ambiguous)."""
    places: dict[str, str] = {}
    data = files(__package__).joinpath("data/subcity_places.tsv").read_text(encoding="utf-8")
    for line in data.splitlines():
        if line and not line.startswith("#"):
            name, _, city = line.partition("\t")
            places[name] = city
            if name.startswith("the "):
                places[name[4:]] = city
    return places


@cache
def _zh_places() -> tuple[str, ...]:
    return tuple(name for name in subcity_places() if _CJK.search(name))


def city_of(place: str) -> str | None:
    """The city a fine place lies in, when the bundled map knows it."""
    return subcity_places().get(place.removeprefix("the ").strip()) or None


def _gazetteer_prefix(words: str) -> str | None:
    """Longest run of leading words that names a known sub-city place."""
    places = subcity_places()
    parts = words.split()
    for n in range(len(parts), 0, -1):
        candidate = " ".join(parts[:n]).rstrip(",.;:!?")
        if candidate in places:
            return candidate
    return None


def find(text: str) -> Iterator[Finding]:
    """Yield fine-location spans in ``text``."""
    for pattern in (_COORD, _LAT_LON, _UK_POSTCODE, _CA_POSTCODE):
        for m in pattern.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    for pattern in (_STATE_ZIP, _CUED_POSTCODE, _STREET, _CORNER):
        for m in pattern.finditer(text):
            yield Finding(CATEGORY, m.start("v"), m.end("v"))
    for m in _WORKPLACE.finditer(text):
        yield Finding(CATEGORY, m.start("v"), m.end("v"))
    personal = FIRST_PERSON.search(text) is not None
    if personal:
        for m in _LANDMARK.finditer(text):
            yield Finding(CATEGORY, m.start("v"), m.end("v"))
    for m in _PLACE_CUE.finditer(text):
        words = m.group("v")
        if words[0].isdigit():
            yield Finding(CATEGORY, m.start("v"), m.start("v") + len(words))
            continue
        known = _gazetteer_prefix(words)
        if known:
            yield Finding(CATEGORY, m.start("v"), m.start("v") + len(known))
            continue
        area = re.match(rf"(?:{_CAP}\s+){{1,3}}(?:{_AREA_WORDS})\b", words)
        if area:
            yield Finding(CATEGORY, m.start("v"), m.start("v") + area.end())
    for m in _NEIGHBOURHOOD_NAMED.finditer(text):
        yield Finding(CATEGORY, m.start("v"), m.end("v"))
    yield from _sub_city(text)
    if _CJK.search(text):
        for m in _ZH_DISTRICT.finditer(text):
            yield Finding(CATEGORY, m.start("v"), m.end("v"))
        for name in _zh_places():  # "望京", "陆家嘴": known neighbourhoods need no suffix
            start = text.find(name)
            while start != -1:
                yield Finding(CATEGORY, start, start + len(name))
                start = text.find(name, start + len(name))


def _sub_city(text: str) -> Iterator[Finding]:
    """Crossings, streets in other languages, named areas, schools, towers and floors."""
    if " and " in text or "&" in text:
        for m in _CROSSING.finditer(text):
            yield Finding(CATEGORY, m.start("v"), m.end("v"))
    for m in _GERMAN_STREET.finditer(text):
        if m.group() not in _NOT_GERMAN_STREETS:
            yield Finding(CATEGORY, m.start(), m.end())
    for m in _ROMANCE_STREET.finditer(text):
        yield Finding(CATEGORY, m.start(), m.end())
    for m in _AREA_NOUN_AFTER.finditer(text):  # "Riverside Gardens estate": the word too
        yield Finding(CATEGORY, m.start("v"), m.end())
    for pattern in (_AREA_NOUN_BEFORE, _FLOOR):  # the area word and floor word go too
        for m in pattern.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    for m in _NAMED_BUILDING.finditer(text):
        group = next(g for g in ("v", "w", "x") if m.group(g))
        yield Finding(CATEGORY, m.start(group), m.end(group))


_ENGLISH_SCHOOL = compile_on_use(
    r"(?i:.*\b(?:school|academy|high|prep|primary|elementary|middle|junior))"
)


def _no_stand_in(place: str) -> bool:
    """A street, area, building or floor named in German, French, Spanish or Italian (or a
    floor in any language): refused in public text, not described in English inside
    someone else's sentence."""
    if _NAMED_BUILDING.fullmatch(place):
        return not _ENGLISH_SCHOOL.match(place)
    return any(
        p.fullmatch(place) for p in (_GERMAN_STREET, _ROMANCE_STREET, _AREA_NOUN_BEFORE, _FLOOR)
    )


_STREET_WORD = compile_on_use(rf"\b(?:{STREET_TYPES})\b\.?$")
_LANDMARK_WORD = compile_on_use(
    rf"(?i:\b(?:{_LANDMARK_TYPES}|station)$|^(?:Lake|Mount|Mt\.?|Lago|Mont|Fort)\b)"
    r"|(?:platz|bahnhof|park|markt|brücke|tor)$"
)
_DESCRIPTIONS = {
    "coordinates": "a nearby location",
    "postcode": "a local postcode",
    "corner": "a street corner",
    "street": "a local street",
    "landmark": "a local landmark",
    "neighbourhood": "a neighbourhood",
    "school": "a local school",
    "hospital": "a local hospital",
    "clinic": "a local clinic",
    "library": "a local library",
    "church": "a local church",
}
# Kinds whose stand-in takes the place of "the" before the name too.
WHOLE_NAME_KINDS = frozenset({"landmark", "school", "hospital", "clinic", "library", "church"})
_INSTITUTION = compile_on_use(
    r".*\b(?P<k>Hospital|Clinic|Medical\s+Cent(?:er|re)|Health\s+Cent(?:er|re)|Library|Church"
    r"|School|College)",
)
_INSTITUTION_KIND = {"medical": "clinic", "health": "clinic", "college": "school"}


def kind_of(place: str) -> str:
    """What sort of fine place a ``fine_geo`` span is ("unnamed": refuse, no stand-in)."""
    if _no_stand_in(place):
        return "unnamed"
    if _NAMED_BUILDING.fullmatch(place):
        return "school"
    if _ESTATE.fullmatch(place):
        return "neighbourhood"
    if _COORD.fullmatch(place) or _LAT_LON.fullmatch(place):
        return "coordinates"
    if " and " in place or " & " in place:
        return "corner"
    if any(ch.isdigit() for ch in place) and not re.search(r"(?i)arrondissement", place):
        return "postcode"
    if place in subcity_places():
        return "neighbourhood"
    institution = _INSTITUTION.fullmatch(place)
    if institution:
        word = institution.group("k").split()[0].lower()
        return _INSTITUTION_KIND.get(word, word)
    if _LANDMARK_WORD.search(place):
        return "landmark"
    if _STREET_WORD.search(place):
        return "street"
    return "neighbourhood"


def describe(kind: str) -> str:
    """A plain stand-in for a fine place of ``kind``."""
    return _DESCRIPTIONS[kind]
