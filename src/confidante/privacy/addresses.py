"""Street addresses: a house number with a street word, in English, Romance and Germanic
styles, plus PO boxes and "I live at 12 ..." phrasing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from . import postcodes, streets, towns
from ._text import has_digit, substring_test
from .findings import Finding

STREET_TYPES = (
    r"Street|St|Avenue|Ave|Av|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Court|Ct|Place|Pl|"
    r"Terrace|Terr|Crescent|Cres|Close|Parkway|Pkwy|Highway|Hwy|Square|Sq|Circle|Cir|Trail|"
    r"Row|Mews|Gardens|Grove|Walk|Alley|Wharf|Embankment|Broadway|Hill|Rise|Parade|Esplanade|"
    r"Expressway|Freeway|Turnpike|Pike|Loop|Plaza|Green|Vale|View|Park|Gate|Passage|Quay|"
    # more of the USPS suffixes people write
    r"Ridge|Trace|Landing|Manor|Meadows?|Glen|Hollow|Crossing|Xing|Point|Pt|Heights|Hts|"
    r"Commons|Estates|Knoll|Summit|Cove|Bend|Path|Ter|Trl|Pkway"
)
# Lower case allowed only where the word has no English sense ("17 rue Oberkampf", but
# never "sent 3 via Slack").
ROMANCE_STREETS = (
    r"(?i:rue|chemin|impasse|all[ée]e|quai|boulevard|viale|piazza|corso|vicolo|calle|avenida|paseo|"
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
# The rest of the USPS street suffixes, for the English pattern only (they are places too,
# but "on the Lake" is not a street for the public-text detector).
MORE_STREET_TYPES = (
    r"Lock|Locks|Pass|Ports?|Extension|Ferry|Haven|Junctions?|Shoals?|Spurs?|Viaduct|Vistas?"
    r"|Bypass|Canyon|Causeway|Creek|Crest|Dale|Fields|Forks?|Gateway|Harbou?rs?|Inlet|Isle"
    r"|Keys|Lakes|Mills?|Orchard|Oval|Pines|Plains?|Prairie|Ranch|Shores?|Springs|Stravenue"
    r"|Valleys?|Villages?|Ville|Wells|Brook|Falls|Forest|Hills|Ramp|Route|Underpass|Overpass"
    r"|Throughway|Trafficway|Skyway|Motorway|Mountains?|Neck|Radial|Rapids|Burgs?|Cape|Cliffs"
    r"|Corners|Divide|Flats|Fords|Forges?|Groves|Greens|Islands?|Knolls|Lights|Mount|Mounts"
    r"|Parks|Parkways|Ridges|Roads|Routes|Squares|Streets|Tunnel|Unions?|Views|Walks|Ways"
    r"|Quad|Reserve|Pocket|Tollway|Distributor|Driveway|Anchorage|Track|Gates|Close|Circuit"
)
_ENGLISH = compile_on_use(
    # a street type needs a name before it ("1402, Gate A38" is a flight's gate), but Broadway
    rf"(?<![\w.,-]){_UNIT}{_NUMBER},?\s+{_DIRECTION}(?:(?:{_NAME_WORD}\s+){{1,3}}"
    rf"(?:{STREET_TYPES}|{MORE_STREET_TYPES})|Broadway)\b\.?{_TAIL}"
)
_ROMANCE = compile_on_use(
    rf"(?<![\w.,-])(?:{_NUMBER},?\s+(?:{ROMANCE_STREETS})\s+(?:{_NAME_WORD}\s?){{1,4}}"
    rf"|(?:{ROMANCE_STREETS})\s+(?:{_NAME_WORD}\s){{1,4}}\d{{1,4}}[a-z]?\b){_TAIL}"
)
_GERMANIC = compile_on_use(
    rf"(?<![\w-])(?:[A-ZÄÖÜ][\wäöüßéè-]*(?:{GERMANIC_SUFFIX})\s+\d{{1,4}}[a-z]?\b"
    rf"|{_NUMBER}\s+[A-ZÄÖÜ][\wäöüßéè-]*(?:{GERMANIC_SUFFIX})(?![\w])){_TAIL}"
)
_PO_BOX = compile_on_use(
    r"\b(?i:P\.?\s?O\.?\s*Box|Post\s+Office\s+Box|Postfach|Apartado(?:\s+de\s+Correos)?|"
    r"Caixa\s+Postal|Bo[iî]te\s+Postale)\s*\d{1,7}\b" + _TAIL
)
# "I live at number 12", "my address is 4 the Crescent": a cue makes any house number count.
_CUED = compile_on_use(
    r"\b(?:live[sd]?\s+at|living\s+at|(?:home|postal|mailing|street|my|our|his|her|their)\s+"
    r"address(?:\s+is|:)|address\s*:|ship(?:ped)?\s+(?:it\s+)?to|send\s+(?:it|this|that|the\s+\w+)"
    r"\s+to|deliver(?:ed)?\s+(?:it\s+)?to|moved\s+(?:in)?to|mail\s+it\s+to)\s+"
    r"(?P<addr>(?:(?:number|no\.?|flat|apt|unit)\s*)?\d{1,5}[A-Za-z]?(?:[-/]\d{1,5})?,?\s+"
    r"[A-Za-z][\w'\u2019-]*(?:\s+[A-Za-z][\w'\u2019-]*){0,3})",
    re.I,
)
_STREET_WORD = compile_on_use(rf"\b(?:{STREET_TYPES}|{ROMANCE_STREETS})\b", re.I)

# Street word first, house number last, as in most of Europe and Latin America:
# "Calle de Alcalá, 45", "Avenida Paulista, 1578", "Rua das Flores nº 123", "Via Roma 10".
# Lower case only where the word has no English sense.
_EU_STREET = (
    r"(?i:calle|c/|avenida|avda\.?|paseo|carrera|carretera|ctra\.|camino|ronda|traves[ií]a"
    r"|rambla|glorieta|r[uú]a|travessa|estrada|rodovia|pra[çc]a|viale|piazza|piazzale|corso|vicolo"
    r"|rue|chemin|impasse|all[ée]e|quai|boulevard|bd\.|ulica|ul\.|calea|bulevardul|jalan|jl\.)"
    r"|Av\.?|Via|Avenue|Place|Plaza|Largo|Alameda|Strada|Cours|Route|Pl\.|Jir[óo]n"
    r"|Jr\.(?=\s+(?:de|del)\b)"
)
# Polish, Romanian, Portuguese, Spanish and Italian words, Mexican street kinds: a second
# pattern behind a substring test, so that ordinary chat pays for none of them.
_EU_STREET_MORE = (
    r"(?i:plac|aleja|al\.|pl\.|os\.|osiedle|skwer|rondo|drumul|aleea|[șş]oseaua|soseaua"
    r"|splaiul|intrarea|pia[țţ]a|str\.|beco|ladeira|cuesta|vial|pasaje|callej[óo]n"
    r"|urbanizaci[óo]n|cerrada|privada|prolongaci[óo]n|continuaci[óo]n|calzada|andador"
    r"|circuito|retorno|peatonal|borgo|rotonda|contrada|vicoletto|traversa)|R\."
)
_EU_MORE_TEST = substring_test(
    ("plac", "aleja", "al. ", "pl. ", "os. ", "osiedle", "skwer", "rondo", "drumul", "aleea",
     "oseaua", "splaiul", "intrarea", "piața", "piata", "str. ", "beco", "ladeira", "cuesta",
     "vial ", "pasaje", "callej", "urbaniz", "cerrada", "privada", "prolongaci", "continuaci",
     "calzada", "andador", "circuito", "retorno", "peatonal", "borgo", "rotonda", "contrada",
     "vicoletto", "traversa", "r. ")
)  # fmt: skip
_PARTICLE = (
    r"(?:de|del|de\s+la|de\s+los|de\s+las|la|las|los|el|da|das|do|dos|di|della|du|des|d['\u2019])"
)
# Capitals of Latin-1 and Latin Extended-A ("Świat", "Łódź"; the range holds small letters too)
_CAPS = "A-ZÀ-ÖØ-Þ\u0100-\u017f"
# A street name may start with a date: "Avenida 9 de Julio", "Calle 5 de Mayo".
_EU_NAME = rf"(?:[{_CAPS}][\w'\u2019.-]*|{_PARTICLE}|\d{{1,2}}(?=\s+de\s))"
_EU_NUMBER = (
    r"(?:(?:n[ºo°]\.?\s*|no\.\s*|num\.\s*|nr\.\s*|#\s*)?\d{1,4}[A-Za-z]?"
    r"(?:\s?[-/]\s?\d{1,5}[A-Za-z]?)?|[Ss]/[Nn](?![\w/]))"
)
_EU_TAIL = (
    r"(?:,?\s*(?:\d{1,2}\s?[ºª°]\s?[A-Za-z]?|piso\s+\d+|apto\.?\s*\d+|apt\.?\s*\d+|bajo|"
    r"dcha\.?|izq(?:da)?\.?|esc\.?\s*\w+|Stock\s+\d+|étage\s+\d+|\d+(?:er|e|ème)\s+étage))*"
    r"(?:\s*[-,]\s*[A-ZÀ-Þ][\w'\u2019-]*(?:\s[A-ZÀ-Þ][\w'\u2019-]*){0,2})?"
    r"(?:,?\s*(?:[A-Z]{1,2}-)?\d{4,5}(?:-\d{3})?(?:\s+[A-ZÀ-Þ][\w'\u2019-]*){0,3})?"
)
_EUROPEAN, _EUROPEAN_MORE = (
    compile_on_use(
        rf"(?<![\w-])(?:{words})\s+(?:{_EU_NAME}\s+){{0,4}}{_EU_NAME},?\s*{_EU_NUMBER}\b{_EU_TAIL}"
    )
    for words in (_EU_STREET, _EU_STREET_MORE)
)
# Colombia and neighbours: "Calle 50 # 45-30", "Carrera 7 No. 71-21", "Cra 15 #88-64".
_GRID = compile_on_use(
    r"(?<![\w-])(?i:calle|cll?\.?|carrera|cra\.?|kra\.?|avenida|av\.?|transversal|tv\.?"
    r"|diagonal|dg\.?)\s*\d{1,3}\s?[A-Za-z]?(?:\s+(?i:bis|sur|norte|este|oeste))?\s*"
    r"(?:#|(?i:no\.?|n[ºo°]\.?))\s*\d{1,3}\s?[A-Za-z]?\s*-\s*\d{1,3}"
)
# US military mail: "PSC 1234, Box 5678, APO AE 09876", "Unit 2050 Box 4190", "FPO AP 96620".
_MILITARY = compile_on_use(
    r"\b(?:(?:PSC|CMR|UMR|Unit)\s+\d{3,5},?\s+Box\s+\d{1,5}(?:,?\s+(?:APO|FPO|DPO)\s+"
    r"(?:AE|AP|AA)(?:\s+\d{5}(?:-\d{4})?)?)?"
    r"|(?:APO|FPO|DPO)\s+(?:AE|AP|AA)(?:\s+\d{5}(?:-\d{4})?)?)\b"
)
# A postal line (US "City, ST 12345", UK or Canadian postcode, European "28013 Madrid") after
# a line or comma-separated part that starts with a house number, a unit or a box: the parts
# of a multi-line address ("Suite 200 / Mountain View, CA 94043 / USA").
# (each branch starts by consuming a character and looks behind after it: a pattern that
# starts with an assertion is tried at every position of the text)
_POSTAL_LINE = compile_on_use(
    # a town starts a word
    r"[A-Z](?<![\w.'\u2019-][A-Z])[\w.'\u2019-]*(?:\s+[A-Z][\w.'\u2019-]*){0,3},?\s+[A-Z]{2}\s+"
    r"\d{5}(?:-\d{4})?\b"
    r"|[A-Z](?<!\w[A-Z])[A-Z]?\d[A-Z\d]?\s?\d[ABD-HJLNP-UW-Z]{2}\b"
    r"|[ABCEGHJ-NPRSTVXY](?<!\w[A-Z])\d[A-Z]\s?\d[A-Z]\d\b"
    r"|[A-Z](?<![\w-][A-Z])[A-Z]?-\d{5}(?:-\d{3})?[ \t]+[A-ZÀ-Þ][\w'\u2019-]+"
    r"(?:[ \t]+[A-ZÀ-Þ][\w'\u2019-]+)?"
    r"|\d(?<![\w-]\d)\d{4}(?:-\d{3})?[ \t]+[A-ZÀ-Þ][\w'\u2019-]+(?:[ \t]+[A-ZÀ-Þ][\w'\u2019-]+)?"
    # "1010 Wien", "2000 Antwerpen": four digits are a year ("a 1968 Kustom") unless they
    # follow a comma, a line break or a separator (taken into the match)
    r"|[\n,;|>/][ \t]?(?:[A-Z]{1,2}-)?\d{4}[ \t]+[A-ZÀ-Þ][\w'\u2019-]+"
    r"(?:[ \t]+[A-ZÀ-Þ][\w'\u2019-]+)?"
)
_YEAR_TOWN = compile_on_use(r"[\n,;|>/]?[ \t]?(?:19|20)\d\d\s")
_ADDRESS_PART = compile_on_use(
    r"(?:^|[\n,;|>]|(?<!\d):|\bto\b|\bat\b)\s*(?P<part>(?:\d{1,6}[A-Za-z]?(?:[-/]\d{1,5})?\s+[A-Za-zÀ-ÿ]"
    r"|(?i:suite|ste\.?|unit|apt\.?|apartment|flat|floor|room|bldg\.?|building|p\.?\s?o\.?\s*box|"
    r"c/o)\s*#?\s*\w"
    # a named street with no number, then the town ("Church Lane, Little Snoring, NR21 0JF")
    rf"|[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*){{0,2}}\s+(?:{STREET_TYPES})\b)"
    r"[^\n;]{0,80})$"
)
# Chinese: road, number and 号, then building, unit and room; or an estate's building and room.
_ZH_ADDRESS = compile_on_use(
    r"(?:[\u4e00-\u9fff]{1,8}?(?:省|自治区|特别行政区|市|区|县|旗|镇|乡|街道)\s*)*"
    r"[\u4e00-\u9fff\w]{1,12}?(?:路|街|大街|大道|道|巷|弄|胡同|里)"
    r"(?:\s*(?:[一二三四五六七八九十\d]{1,3}|[东南西北中])\s*段)?(?:\s*\d{1,5}\s*(?:弄|巷|支弄))?"
    r"\s*\d{1,5}\s*(?:号|號)"
    r"(?:\s*[\u4e00-\u9fff]{0,10}?\s*\d{1,5}\s*(?:号楼|号院|栋|幢|楼|座|单元|层|室|号|房))*"
    r"|[\u4e00-\u9fff]{1,10}(?:小区|花园|公寓|大厦|家园|新村|苑|村)\s*\d{1,4}\s*(?:栋|幢|号楼|座)"
    r"(?:\s*\d{1,3}\s*单元)?(?:\s*\d{1,5}\s*(?:室|号|房))?"
    r"|\d{1,2}\s*丁目\s*\d{1,4}\s*(?:番地?|-)\s*\d{1,4}\s*号?"
    # a garden, estate or square with a number, after its city or district: "海淀区清华园1号"
    r"|(?:[\u4e00-\u9fff]{1,8}?(?:省|市|区|县)\s*)+[\u4e00-\u9fff]{1,8}?"
    r"(?:园|苑|庄|坊|广场|大厦|小区|新村)\s*\d{1,5}\s*(?:号|號)"
)
_CJK = compile_on_use(r"[\u3040-\u30ff\u4e00-\u9fff]")
# A European postal code and town after a street name and house number with no street word:
# "Unter den Linden 77, 10117 Berlin", "Drottninggatan 5, 111 51 Stockholm".
_EU_POSTAL = compile_on_use(
    r"(?<![\w-])(?:[A-Z]{1,2}-)?(?:\d{5}|\d{4}\s?[A-Z]{2}|\d{3}\s\d{2}|\d{2}-\d{3}|\d{4}-\d{3}|\d{4})"
    r"[ \t]+[A-ZÀ-Þ][\w'\u2019-]+"
)
_EU_PART = compile_on_use(
    r"(?:^|[\n;:]|\b(?:an|in|at|to|en|au|à|a|na|no|is|ist|lautet|est|es|jetzt|nun|wohne|wohnen"
    r"|wohnt|lebe|leben"
    r"|habite|habitons|vivo|vive|vivimos|live|lives|moved|bei|chez|c/o)\b)\s*"
    r"(?P<part>[A-ZÀ-Þ][\w.'\u2019-]*(?:\s+[\w.'\u2019-]+){0,4}\s+\d{1,4}\s?[a-zA-Z]?"
    r"(?:\s?[-/]\s?\d{1,4}[a-zA-Z]?)?\.?)"
    # a comma, a separator, or the next line of a label
    r"(?:\s*(?:,|\bin\b|\s-|[|>/;])\s*|[^\S\n]*\n\s*)$"
)
_NOT_A_STREET = frozenset(
    """Wir Ich Es Das Die Der Er Sie We I It The They He She You Nous Je Il Elle On Les Le La
    Nosotros Yo El Ellos Los Las Noi Io Lui Lei Eu Ele Ela Page Seite Chapter Kapitel Room
    Version Level Round Game Team Top Day Week""".split()
)
# French number-first with a lower-case street word, told from English by the particle and
# capital after it: "au 5 avenue des Champs-Élysées", "3 place du Marché".
_FRENCH = compile_on_use(
    # atomic and possessive: a long run of spaces or newlines must not be tried every way
    r"(?<![\w,.-])\d{1,4}(?>\s*(?:bis|ter))?(?>\s*,)?\s++(?i:avenue|place|cours|route|rue|chemin|all[ée]e"
    r"|impasse|quai|boulevard|bd\.?|av\.?|square|passage|sentier)\s+(?:(?:de\s+la|de|du|des|d['\u2019])\s*)?"
    r"[A-ZÀ-Þ][\w'\u2019-]*(?:\s+[A-ZÀ-Þ][\w'\u2019-]*){0,3}"
)
# German street names in two words: "Berliner Allee 45a", "Am Markt 3", "An der Alster 12".
_GERMAN_WORDS = (
    r"Stra(?:ss|ß)e|Str\.|Weg|Allee|Platz|Gasse|Ring|Damm|Ufer|Chaussee|Markt|Steig|Pfad|Kai"
    r"|Graben|Hof|Berg"
)
_GERMAN_TWO_WORDS = compile_on_use(
    r"(?<![\w-])(?:(?:Am|Im|An\s+der|An\s+den|Auf\s+der|Auf\s+dem|In\s+der|Unter\s+den|Zum|Zur|"
    r"Alte|Alter|Neue|Neuer|Hohe|Lange|Obere|Untere|[A-ZÄÖÜ][a-zäöüß]+er)\s+)"
    rf"(?:{_GERMAN_WORDS})\s+\d{{1,4}}(?:\s?[a-z](?![\w]))?(?![\w])"
)
# A street name and house number, no street word, after someone says they live or moved
# there: "me mudé a Los Leones 1450", "wir wohnen jetzt Am Kirchberg 4", "j'habite Rue Neuve 23".
_RESIDENCE_CUE = (
    r"(?:me\s+mud[ée]\s+a|nos\s+mudamos\s+a|(?:vivo|vive|vivimos|viven)\s+en(?:\s+la)?"
    r"|mi\s+direcci[óo]n\s+es|direcci[óo]n\s*:|domicilio\s*:?"
    r"|(?:wohne|wohnen|wohnt|lebe|leben|lebt)(?:\s+(?:jetzt|nun|seit\s+\w+|schon))?"
    r"(?:\s+(?:in\s+der|im|am|an\s+der|auf\s+der|in))?|(?:neue\s+)?Adresse\s*:"
    r"|(?:meine|unsere|seine|ihre)\s+(?:neue\s+)?Adresse\s+(?:ist|lautet)"
    r"|(?:mon|notre|son)\s+adresse\s+(?:est|c['\u2019]est)"
    r"|(?:j['\u2019]|on\s+|nous\s+)habit(?:e|ons)(?:\s+au)?|mon\s+adresse\s*:?|adresse\s*:"
    r"|moved\s+to|live[sd]?\s+(?:at|on)|my\s+address\s+is)"
)
_CUED_NAME_NUMBER = compile_on_use(
    rf"(?i:{_RESIDENCE_CUE})\s+"
    r"(?P<addr>[A-ZÀ-Þ][\w'\u2019.-]*(?:\s+(?:de|del|la|las|los|du|des|der|von|[A-ZÀ-Þ][\w'\u2019.-]*))"
    r"{0,4},?\s+\d{1,5}[a-zA-Z]?\b(?!\s*(?:%|(?i:años|a[ñn]o|días|meses|semanas|years?|months?"
    r"|weeks?|days?|Jahre?n?|Monate?n?|Wochen?|Tage?n?|ans?|mois|semaines?|jours?|km|min)\b)))"
)
# A number named as a house's, a flat's or a floor's, with no street: "ich wohne in Hausnummer
# 4", "I live at number 4", "vivo en el piso 3", "j'habite au numéro 4".
_NUMBER_NOUNS = frozenset(
    """hausnummer hausnr nummer nr number no numéro numero número núm num haus house flat
    apartment apt wohnung zimmer room stock etage étage piso planta puerta door tür porte
    bloque block gebäude building bâtiment edificio portal unit suite appartement""".split()
)
_CUED_STOP = compile_on_use(r"\s+(?:in|on|for|and|but|when|if|with|last|next|this|every|since)\b.*")


def find(text: str) -> Iterator[Finding]:
    """Yield street-address spans in ``text``: every candidate but a famous public address
    said in passing (see ``_famous``)."""
    yield from streets.find_corners(text)  # "the corner of Elm and 5th in Denver": no digit
    if not has_digit(text):
        return
    for f in _candidates(text):
        if not _famous(text, f):
            yield f


_TRAILING_NUMBER = compile_on_use(r",?\s+\d{1,5}[a-zA-Z]?$")


# Chat in lower case: "kaiserstr 88 frankfurt", "calle alcala 48 madrid", "88 colmore row
# birmingham b3 2bb". A street word and a number are common in talk ("calle hace 30 grados"),
# so a city or a postcode must follow.
_LOWER_STREET = compile_on_use(
    r"(?<![\w-])(?:(?P<german>[a-zäöüß]{3,}(?:stra(?:ss|ß)e|str\.?|weg|allee|platz|gasse|damm)"
    r"\s+\d{1,4}(?:\s?[a-z](?![a-z]))?)"
    r"|(?:calle|c/|avenida|avda\.?|paseo|carrer|rue|avenue|boulevard|bd|via|viale|rua|r[uú]a"
    r"|plaza|place|piazza|corso)\s+(?:[a-záéíóúñàâçèêëîïôûüß'\u2019-]+\s+){1,4}\d{1,4}[a-z]?"
    r"|\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|boulevard|bd|avenue|av|all[ée]e|impasse|chemin|quai"
    r"|place|cours|route)\s+(?:[a-zàâçèéêëîïôûü'\u2019-]+\s+){0,3}[a-zàâçèéêëîïôûü'\u2019-]+"
    r"|\d{1,5}[a-z]?\s+(?:[a-z'\u2019-]+\s+){1,3}(?:street|st|road|rd|row|lane|ln|avenue|ave"
    r"|drive|dr|close|way|place|court|crescent|terrace|gardens|grove|hill|square|boulevard"
    r"|blvd)\.?)(?![\w-])",
    re.I,
)
_POSTCODE_AFTER = compile_on_use(
    r",?\s+(?:\d{5}(?:-\d{4})?|[a-z]{1,2}\d[a-z\d]?\s?\d[a-z]{2})(?![\w-])", re.I
)
_WORD_AFTER = compile_on_use(r",?\s+([^\W\d_]+)")
_UNIT_AFTER = compile_on_use(
    r"\s*(?i:minuten|min|km|m|meter|metres?|meters?|jahre?n?|mal|euro|prozent|%|grad|stunden)\b"
)


_DOOR_AFTER = compile_on_use(
    r",?\s+(?:\d{1,2}(?:st|nd|rd|th)\s+floor|floor\s+\d{1,2}|apt\.?\s*#?\s*\w+|apartment\s+\w+"
    r"|unit\s+\w+|flat\s+\w+|suite\s+\w+|#\s?\d{1,4}|\d{1,2}(?:er|e|ème)\s+étage|piso\s+\d+"
    r"|\d{1,2}º\s?\w?|\d\.\s+(?:Stock|OG|Etage))",
    re.I,
)


def _place_after(text: str, pos: int) -> int | None:
    """End of a postcode, a known town (one or two words, and a postcode after it) or a
    floor or flat number right after ``pos``; None when none follows."""
    code = _POSTCODE_AFTER.match(text, pos) or _DOOR_AFTER.match(text, pos)
    if code is not None:
        return code.end()
    first = _WORD_AFTER.match(text, pos)
    if first is None:
        return None
    second = _WORD_AFTER.match(text, first.end())
    end = None
    if second is not None and f"{first.group(1)} {second.group(1)}".casefold() in towns.names():
        end = second.end()
    elif first.group(1).casefold() in towns.names():
        end = first.end()
    if end is not None:
        code = _POSTCODE_AFTER.match(text, end)
        return code.end() if code is not None else end
    # a town we do not know, with its postcode: "12 lark lane liverpool l17 8uu"
    for word in (first, second):
        code = _POSTCODE_AFTER.match(text, word.end()) if word is not None else None
        if code is not None:
            return code.end()
    return None


def _a_city(words: str) -> bool:
    """Whether a street-name-and-number is a city and a district number ("Paris 15e")."""
    return _TRAILING_NUMBER.sub("", words) in towns.cities()


def _candidates(text: str) -> Iterator[Finding]:
    for pattern in (_ENGLISH, _ROMANCE, _GERMANIC, _PO_BOX):
        for m in pattern.finditer(text):
            yield Finding("street_address", m.start(), m.end())
    for pattern in (_EUROPEAN, _GRID, _MILITARY, _FRENCH):
        for m in pattern.finditer(text):
            yield Finding("street_address", m.start(), m.end())
    if _EU_MORE_TEST.search(text.lower()):
        for m in _EUROPEAN_MORE.finditer(text):
            yield Finding("street_address", m.start(), m.end())
    for m in _GERMAN_TWO_WORDS.finditer(text):
        if not _UNIT_AFTER.match(text, m.end()):  # "Auf dem Berg 2 Stunden gewandert"
            yield Finding("street_address", m.start(), m.end())
    if _CJK.search(text):
        for m in _ZH_ADDRESS.finditer(text):
            yield Finding("street_address", m.start(), m.end())
    for m in _EU_POSTAL.finditer(text):
        part = _EU_PART.search(text, max(0, m.start() - 80), m.start())
        if part is None:
            continue
        first = part.group("part").split()[0]
        if first not in _NOT_A_STREET and first.casefold() not in _NUMBER_NOUNS:
            yield Finding("street_address", part.start("part"), m.end())
    for m in _POSTAL_LINE.finditer(text):
        part = _ADDRESS_PART.search(text, max(0, m.start() - 140), m.start())
        if part is None:
            continue
        # "Flat 12 was nice, 2019 Berlin trip": a year after prose, not a postcode
        year = _YEAR_TOWN.match(m.group()) is not None
        if not (year and streets.prose_between(text, part.start("part"), m.start())):
            yield Finding("street_address", part.start("part"), m.end())
    for m in _CUED_NAME_NUMBER.finditer(text):
        if m.group("addr").split()[0].casefold().rstrip(".") in _NUMBER_NOUNS:
            continue  # "ich wohne in Hausnummer 4": a number with no street
        if not _a_city(m.group("addr")):  # "j'habite Paris 15e": a district, not a door
            yield Finding("street_address", m.start("addr"), m.end("addr"))
    for m in _LOWER_STREET.finditer(text):
        end = _place_after(text, m.end())
        if end is None and m.group("german") and not _UNIT_AFTER.match(text, m.end()):
            end = m.end()  # a German compound street name needs no town after it
        if end is not None:
            yield Finding("street_address", m.start(), end)
    yield from streets.find(text)
    yield from postcodes.find(text)
    for m in _CUED.finditer(text):
        addr = _CUED_STOP.sub("", m.group("addr"))
        # "moved to 3 different cities" is not an address; a name or street word must follow.
        if _STREET_WORD.search(addr) or re.search(r"\d[\w/-]*,?\s+[A-Z]", addr):
            yield Finding("street_address", m.start("addr"), m.start("addr") + len(addr))


# Addresses of public buildings and of fiction, said in passing ("10 Downing Street released
# a statement", "the museum at 221B Baker Street"), are nobody's private address. They count
# only when someone ties them to themselves or a person they know: "I live at ...", "send it
# to my flat at ...", "wir wohnen ...". Lower case, single spaces, as the text has them.
FAMOUS_ADDRESSES = (
    "10 downing street", "11 downing street", "221b baker street", "1600 pennsylvania avenue",
    "1600 pennsylvania ave", "350 fifth avenue", "350 5th avenue", "30 rockefeller plaza",
    "1 infinite loop", "1 apple park way", "1600 amphitheatre parkway", "1 hacker way",
    "1 microsoft way", "11 wall street", "405 lexington avenue", "89 east 42nd street",
    "1000 fifth avenue", "30 st mary axe", "1 canada square", "3 abbey road",
    "24 sussex drive", "112 mercer street", "4 privet drive", "742 evergreen terrace",
    "12 grimmauld place", "1313 mockingbird lane", "124 conch street", "0001 cemetery lane",
    "55 rue du faubourg-saint-honoré", "55 rue du faubourg saint-honoré", "57 rue de varenne",
    "126 rue de l'université", "platz der republik 1", "willy-brandt-straße 1",
    "spreeweg 1", "pariser platz 1", "balcarce 50",
    "景山前街4号", "景山前街 4号", "外滩18号", "长安街1号",
)  # fmt: skip
_FAMOUS = tuple(a.replace("-", "").replace(" ", "") for a in FAMOUS_ADDRESSES)
_PERSONAL_RESIDENCE = compile_on_use(
    r"(?i:\b(?:I|we|my|our|me|us|I'm|we're)\b[^.!?\n]{0,40}\b(?:live|living|moved|stay|staying"
    r"|address|home|flat|apartment|house|office|studio|shop|work|place|send|ship|deliver|mail)"
    r"|\b(?:send|ship|deliver|mail|post|bring|forward)\b[^.!?\n]{0,20}\b(?:me|us|to)\b"
    r"|\b(?:schick|liefer|envoie|envoyez|livre[rz]?|env[ií]a|manda)\w*"
    r"|\b(?:ich|wir|mein\w*|unser\w*)\b[^.!?\n]{0,40}(?:wohn|leb|adresse|schick)"
    r"|\b(?:j['\u2019]|je|nous|on|mon|ma|notre)\b[^.!?\n]{0,40}(?:habit|adresse|envo|livr)"
    r"|\b(?:vivo|vivimos|mi|nuestra|me\s+mud|nos\s+mud|env[ií]a(?:me|lo))\b"
    r"|\b(?:home\s+|postal\s+|mailing\s+)?address\s*:|adresse\s*:|\bdirecci[óo]n\s*:"
    r"|\b(?:home|addr|anschrift|domicile|domicilio)\s*:"
    r"|\b(?:mein\w*|unser\w*)\s+(?:Büro|Praxis|Wohnung|Haus|Laden|Atelier|Kanzlei)"
    r"|\b(?:mon|ma|notre)\s+(?:bureau|appartement|maison|cabinet|atelier|boutique)"
    r"|\b(?:mi|nuestra|nuestro)\s+(?:oficina|casa|piso|despacho|tienda|estudio)"
    r"|我家|我住|我们住|我的地址|地址|寄到|寄给我)"
)


# A public institution named just before the address: its address, not a person's ("le
# Louvre est au 99 rue de Rivoli", "the embassy at 24 Grosvenor Square", "故宫博物院在...").
_PUBLIC_PLACE_BEFORE = compile_on_use(
    r"(?i:\b(?:museum|mus[ée]e|museo|palace|palais|palacio|palast|cathedral|cath[ée]drale"
    r"|catedral|dom|embassy|ambassade|embajada|botschaft|consulate|consulat|consulado"
    r"|konsulat|ministry|minist[èe]re|ministerio|ministerium|parliament|parlement|parlamento"
    r"|bundestag|town\s+hall|city\s+hall|mairie|h[ôo]tel\s+de\s+ville|ayuntamiento|rathaus"
    r"|theat(?:er|re)|th[ée][âa]tre|teatro|opera|op[ée]ra|stadium|stade|estadio|stadion"
    r"|station|gare|estaci[óo]n|bahnhof|airport|a[ée]roport|aeropuerto|flughafen|university"
    r"|universit[ée]|universidad|universit[äa]t|library|biblioth[èe]que|biblioteca|bibliothek"
    r"|church|[ée]glise|iglesia|kirche|zoo|louvre|[ée]lys[ée]e|white\s+house|casa\s+blanca"
    r"|casa\s+rosada|kanzleramt|reichstag|headquarters|HQ)\b)|博物馆|博物院|大使馆|领事馆"
    r"|医院|图书馆|体育馆|火车站|机场|政府|大学"
)


# "... is where I work", "... is my address", "..., that's our office": tied to someone after.
_PERSONAL_AFTER = compile_on_use(
    r"[^.!?\n]{0,12}?\b(?:is|that['\u2019]s|it['\u2019]s)\s+(?:where\s+(?:I|we)\b"
    r"|(?:my|our)\s+(?:address|home|place|house|flat|apartment|office|work))",
    re.I,
)


def _famous(text: str, f: Finding) -> bool:
    """A famous public address, or a public institution's, mentioned in passing (with no
    personal residence cue before it)."""
    before = text[max(0, f.start - 60) : f.start]
    if _PERSONAL_RESIDENCE.search(before) or _PERSONAL_AFTER.match(text, f.end):
        return False
    span = "".join(text[f.start : f.end].lower().replace("-", "").split())
    if any(a in span for a in _FAMOUS):
        return True
    sentence = re.split(r"[.!?\n]\s", before)[-1]
    return _PUBLIC_PLACE_BEFORE.search(sentence[-50:]) is not None
