"""Street addresses written the international way, and addresses a label or a box names.

``addresses`` knows street words of English, the Romance languages and German. Here:

- a street name and house number with the street word after the name, or none at all:
  Nordic, Finnish, Dutch and Baltic compounds and words ("Vesterbrogade 3", "Hämeentie 14",
  "Karl Johans gate 22", "Brīvības iela 55", "Gedimino pr. 9", "Pärnu mnt 10"), Central
  European ones ("Andrássy út 22", "Václavské náměstí 1", "Slovenska cesta 10", "Národní 9",
  "Kapitulská 92"), German and Slavic names after a preposition ("Am Kupfergraben 6",
  "Unter den Linden 77", "Na Strži 113"), and Greek ("Ερμού 25, Αθήνα 105 63");
- what a label says is an address: "home: ...", "addr: ...", "Anschrift: ...", "domicile :
  ...", "dirección: ...", "住址: ...";
- post-office boxes: "PO Box 4471", "Postfach 1220", "BP 45, 69001 Lyon", "Apartado 123",
  "邮政信箱 1234", "北京市100084信箱";
- a street corner with its city: "the corner of Elm and 5th in Denver", "Ecke Torstraße /
  Brunnenstraße, Berlin", "à l'angle de la rue X et de la rue Y, Paris", "esquina de X con
  Y, Madrid", "朝阳区建国路与东三环路交叉口";
- a flat or suite with a postcode and a town: "Flat 2, 14 Chalton, London NW1 1JD",
  "Wohnung 5, 1010 Wien", "piso 3, 28013 Madrid".

A name and a number with no street word count only where nothing else reads them: the number
ends the address (a comma, a line, a separator, a postcode follows), never a unit or a word
("Alaska 3 times", "Im Garten 3 Tomaten").
"""

from __future__ import annotations

from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from . import towns
from ._text import substring_test
from .findings import Finding

CATEGORY = "street_address"

_CAP = "A-ZÀ-ÖØ-Þ\u0100-\u017f"
_NAME = rf"[{_CAP}][\w'\u2019-]*"
# "22", "5a", "0a/1", "84/92", "03-08", "19." (Hungarian), "2 C"
_NUM = r"\d{1,4}(?:\s?[A-Za-z](?![\w])(?:\s\d{1,3}(?![\w]))?)?(?:\s?[-/]\s?\d{1,4}[A-Za-z]?)?\.?"
# A postcode of most of Europe: "10115", "1010", "105 63", "00-950", "LV-1050", "1017 GC"
_POSTCODE = r"(?:[A-Z]{1,2}-)?(?:\d{3}\s\d{2}|\d{2}-\d{3}|\d{4,6}(?:\s?[A-Z]{2}(?![\w]))?)"
# What may follow the number of an address without a street word: nothing, a comma, the end of
# a line or sentence, a separator, a floor, or a postcode.
_ENDS = compile_on_use(
    rf"\s*(?:$|[,;|>/\n)]|\.(?:\s|$)|\s[-\u2013]\s|{_POSTCODE}\s+[{_CAP}\u0391-\u03a9])"
)
_PLACE_AFTER = compile_on_use(
    rf"\s*[,/|;>]?\s*(?:{_POSTCODE}\b|(?P<town>[{_CAP}\u0391-\u03a9][\w'\u2019-]+(?:\s[{_CAP}][\w-]+)?))"
)

# -- the street word after the name ----------------------------------------------------------
_AFTER_WORDS = (
    # Latvian, Lithuanian, Estonian
    r"iela|gatve|bulv[āa]ris|prospekts|laukums|gatv[ėe]|g\.|prospektas|pr\.|al[ėe]ja|al\.|a\."
    r"|aik[šs]t[ėe]|t[äa]nav|tn\.?|maantee|mnt\.?|puiestee|pst\.?"
    # Hungarian
    r"|[úu]t|utca|u\.|t[ée]r|k[öo]r[úu]t|krt\.|rakpart|s[ée]t[áa]ny|fasor|k[öo]z"
    # Czech, Slovak, Slovenian, Croatian, Serbian
    r"|n[áa]m[ěe]st[íi]|n[áa]m\.|t[řr][íi]da|n[áa]b[řr]e[žz][íi]|ulice|n[áa]mestie|n[áa]bre[žz]ie"
    r"|[úu]dolie|cesta|ulica|trg|pot|vijenac|dol|pre[čc]ac|obala|put|[šs]etali[šs]te"
    # Norwegian, Swedish, Danish, Icelandic, written apart
    r"|gate|gata|gatan|vei|veg|v[äa]g|vej|all[ée]|plass|plads|torv|str[æa]de|str[æa]ti"
)
# Words with another everyday sense, or abbreviations: a town or a postcode must follow.
_AMBIGUOUS_AFTER = frozenset(
    "gate gata vei veg väg vag vej pot dol put obala a. g. al. pr. u. tn tn. pst pst. torv".split()
)
_LITHUANIAN_WORDS = frozenset({"g.", "pr.", "al.", "a."})
_LITHUANIAN_GENITIVE = compile_on_use(r"(?:aus|ios|os|io|ės|o|ų)$")
_WORD_AFTER = compile_on_use(
    rf"(?<![\w-])(?P<name>{_NAME}(?:\s+{_NAME}){{0,2}})\s+(?P<word>(?i:{_AFTER_WORDS}))(?!\w)"
    rf"\s*(?P<num>{_NUM})"
)

# -- one word with the street in it ----------------------------------------------------------
_SUFFIXES = (
    "gata|gaten|gatan|vegen|veien|vägen|stien|stigen|stubben|skogen|ringen|vika|havna|løkka"
    "|haugen|vollen|toppen|myra|bakken|bakke|backen|backe|åsen|tunet|jordet|svingen|kroken"
    "|gränd|torget|torvet|allén|leden|gade|vænget|stræde|plads|katu|kuja|polku|bulevardi|väylä"
    "|tori|kaari|rinne|raitti|puistikko|ranta|kenttä|straat|laan|gracht|plein|kade|singel|dijk"
    "|steeg|dreef|baan|boulevard|tänav|maantee|puiestee|iela|gatvė|stræti|vegur|braut"
)
# Short endings that end ordinary words too ("Auntie", "Notepad", "Earring"): five letters
# or more before them.
_SHORT_SUFFIXES = "tie|pad|ring|lei|hof|vej|vei|veg|väg|tee|gate|torv"
_SUFFIXED = compile_on_use(
    rf"(?<![\w-])(?P<w>[{_CAP}][^\W\d_]*?(?:{_SUFFIXES})|[{_CAP}][^\W\d_]{{4,}}?(?:{_SHORT_SUFFIXES})"
    # German names joined by hyphens: "Rico-Siering-Gasse 28", "Arne-Christoph-Straße 2-4"
    r"|[A-ZÄÖÜ][\wäöüß]*(?:-[A-ZÄÖÜ][\wäöüß]*)*-(?:Stra(?:ss|ß)e|Gasse|Weg|Platz|Allee|Ring"
    r"|Damm|Ufer|Steig|Pfad|Chaussee|Markt|Promenade))"
    rf"\s+(?P<num>{_NUM})"
)
_NOT_STREETS = frozenset(
    """Bahnhof Friedhof Bauernhof Hinterhof Innenhof Flughafen Notepad Launchpad Trackpad
    Touchpad Keypad Earring Keyring Boxring Watergate Colgate Kristiansand""".split()
)

# -- a street word first, no number, then a postcode and a town ------------------------------
# "chemin de Hardy, 63996 Chauveau", "rue de la Paix, 75002 Paris", "Via Roma, 00184 Roma"
_ROMANCE_NO_NUMBER = compile_on_use(
    r"(?<![\w-])(?i:rue|chemin|avenue|boulevard|impasse|all[ée]e|quai|route|calle|avenida|paseo"
    r"|camino|rua|travessa|via|viale|piazza|strada|drumul|aleea|[șş]oseaua|soseaua)\s+"
    r"(?:(?:de|du|des|la|le|les|del|da|do|dos|das|di|della|d['\u2019])\s*)*"
    rf"{_NAME}(?:\s+{_NAME}){{0,3}},\s*{_POSTCODE}\s+[{_CAP}][\w'\u2019-]+"
)

# -- Slavic names: an adjective or a possessive, no street word ------------------------------
_SLAVIC_LETTERS = "čćđěňřšťůžľĺŕďČĆĐĚŇŘŠŤŮŽĽĹŔĎ"
_SLAVIC_ENDINGS = "ová|ská|cká|ní|ná|ova|eva|ska|cka|ina|ovac|[čšž]ka|[čšž]ke|[čšž]ki|ić"
_SLAVIC = compile_on_use(
    rf"(?<![\w-])(?P<w>[{_CAP}][^\W\d_]{{2,}}(?:{_SLAVIC_ENDINGS})"
    rf"|[{_CAP}][^\W\d_]*[{_SLAVIC_LETTERS}][^\W\d_]*(?:ov|ev|ac|ec))"
    rf"\s+(?P<num>{_NUM})"
)
_ACCENTED_ENDING = compile_on_use(r"(?:ová|ská|cká|ní|ná)$")
_ADJECTIVE_ENDING = compile_on_use(r"(?:sk|ck|šk|čk)[aáeéiíoyý]$|(?:ov|ev)[aáeé]$|[čć]ki$")
_CZECH_VOWELS = frozenset("áéíóúýů")


def _slavic_name(name: str) -> bool:
    """Whether a street name reads as Slavic: a letter only those languages write ("Kozarčev",
    "Na Strži"), an accented adjective's ending ("Národní", "Kapitulská"), or an adjective's
    ending with a Czech or Slovak accent inside ("Benákova")."""
    word = name.split()[-1]
    if any(ch in _SLAVIC_LETTERS for ch in name) or _ACCENTED_ENDING.search(word):
        return True
    return bool(_ADJECTIVE_ENDING.search(word)) and (
        not _CZECH_VOWELS.isdisjoint(word) or len(name.split()) > 1
    )


# -- a preposition before the name -----------------------------------------------------------
_GERMAN_PREPOSITION = (
    r"Am|Im|An\s+der|An\s+den|An\s+dem|Auf\s+der|Auf\s+dem|Auf\s+den|In\s+der|In\s+den"
    r"|Unter\s+den|Hinter\s+der|Hinter\s+dem|Vor\s+dem|Zum|Zur|Beim|Bei\s+der|Über\s+dem"
)
_SLAVIC_PREPOSITION = r"Na|Nad|Pod|Za|Pred|Před|Pri|Při|U|K|V|Ve|Od|Do"
_PREPOSITIONAL = compile_on_use(
    rf"(?<![\w-])(?:(?P<de>{_GERMAN_PREPOSITION})|(?P<sl>{_SLAVIC_PREPOSITION}))\s+"
    rf"(?P<name>[{_CAP}][^\W\d_]+(?:-[{_CAP}][^\W\d_]+)*)\s+(?P<num>{_NUM})"
)
# The ends of German place names: "Kupfergraben", "Rosengarten", "Lindenfeld", "Linden".
_GERMAN_PLACE_ENDINGS = (
    "graben", "berg", "bach", "feld", "felde", "garten", "gärten", "anger", "hain", "wall",
    "tor", "brunnen", "kamp", "grund", "stein", "wiese", "wiesen", "busch", "born", "holz",
    "horst", "deich", "hafen", "moor", "bruch", "linden", "eichen", "buchen", "weiden",
    "kanal", "hof", "markt", "platz", "ring", "weg", "damm", "ufer", "steig", "pfad", "kai",
    "gasse", "allee", "bogen", "winkel", "rain", "acker", "höhe", "hang", "kreuz", "teich",
    "eck", "werder", "park", "mühle", "leite", "schanze", "sand", "stieg", "heide", "hagen",
    "rode", "tal", "aue", "au", "wald", "gut", "hügel", "kirchplatz", "zeile", "reihe",
)  # fmt: skip

# -- Greek -----------------------------------------------------------------------------------
# Greek letters by code point: a capital (accented or not), then small letters
_GREEK_WORD = "[\u0386-\u038f\u0391-\u03a9][\u03ac-\u03ce\u0390]+"
_GREEK_LETTER = compile_on_use("[\u0370-\u03ff]")
_GREEK = compile_on_use(
    r"(?<![\w])(?:(?P<gw>Οδός|οδός|Οδ\.|Λεωφόρος|Λεωφ\.|Λ\.|Πλατεία|Πλ\.|Πάροδος)\s+)?"
    rf"(?P<name>{_GREEK_WORD}(?:\s+{_GREEK_WORD}){{0,2}})\s+"
    r"(?P<num>\d{1,4}[\u03b1-\u03c9\u0391-\u03a9]?(?:\s?[-/]\s?\d{1,4})?)(?![\d\w])"
)
# the postcode, after its abbreviation (T.K.) or not: "105 63"
_GREEK_POSTCODE = compile_on_use(r",*\s*(?:\u03a4\.?\u039a\.?\s*)?\d{3}\s?\d{2}\b")

# -- a label that says "address" -------------------------------------------------------------
_LABEL = compile_on_use(
    r"(?<![\w-])(?i:home|addr|adr|add|address|adresse|anschrift|wohnadresse|heimadresse"
    r"|lieferadresse|rechnungsadresse|postanschrift|zuhause|domicile|domicilio|direcci[óo]n"
    r"|dir|casa|maison|r[ée]sidence|residencia|shipping|billing|ship\s+to|deliver\s+to"
    r"|livraison|env[íi]o|entrega)\.?[ \t]*[:=][ \t]*"
    r"(?P<addr>[^\n;|]{3,120})"
)
# A number beside a capitalised word: "14 Elm Close", "Kastanienallee 12", "Calle Mayor 5".
_NUMBER_BY_NAME = compile_on_use(
    rf"(?<![\w.,:/-])\d{{1,5}}[A-Za-z]?(?:[-/]\d{{1,5}})?,?\s+[{_CAP}]"
    rf"|[{_CAP}][\w'\u2019.-]*,?\s+\d{{1,5}}[A-Za-z]?(?![\w:.,/]\d|\d)"
)
_ZH_LABEL = compile_on_use(
    r"(?:收货地址|收件地址|家庭住址|住址|地址|家)\s*[:=]\s*"
    r"(?P<addr>[\u4e00-\u9fff]{2,30}\s*\d{1,5}\s*(?:号|號|弄|室|栋|幢|楼)[\u4e00-\u9fff\d\s]{0,20})"
)
_SENTENCE_END = compile_on_use(r"\.\s|\s[-\u2013\u2014]\s|\s+(?:and|but|so|und|et|y|mais|pero)\s")

# -- post-office boxes -----------------------------------------------------------------------
_BOX = compile_on_use(
    r"(?<![\w-])(?:(?i:P\.?\s?O\.?\s?B(?:ox|\.)?|Post(?:al)?\s+(?:Office\s+)?Box|GPO\s+Box"
    r"|Locked\s+Bag|Private\s+Bag|Postboks|Postbus|Postfach|Bo[iî]te\s+postale|Case\s+postale"
    r"|Apartado(?:\s+(?:de\s+correos|postal))?|Apdo\.?(?:\s+de\s+correos)?"
    r"|Casilla(?:\s+de\s+correos?)?|Caixa\s+postal|Casella\s+postale|Skrytka\s+pocztowa)"
    r"\s*(?i:No\.?|Nr\.?|n[°º]\.?|#)?\s*\d{1,7}\b"
    # "BP 45, 69001 Lyon", "CS 70001", "Box 7830, 102 74 Stockholm": a postcode and a town
    rf"|(?:BP|B\.P\.|CS|Box)\s*\d{{1,6}}\s*,?\s*{_POSTCODE}\s+[{_CAP}][\w'\u2019-]+)"
)
_ZH_BOX = compile_on_use(
    r"(?:[\u4e00-\u9fff]{1,8}(?:省|市|区|县)\s*)?(?:(?:邮政)?信箱\s*\d{1,6}(?:\s*(?:号|號))?"
    r"(?:\s*\d{1,4}\s*分箱)?|\d{4,6}\s*(?:邮政)?信箱(?:\s*\d{1,4}\s*分箱)?)"
)

# -- a street corner and its city ------------------------------------------------------------
_EN_STREET = rf"(?:{_NAME}|\d+(?:st|nd|rd|th))(?:\s+{_NAME}){{0,2}}"
_FR_STREET = (
    rf"(?:(?i:rue|avenue|boulevard|bd|place|quai|all[ée]e|chemin|cours)\s+"
    rf"(?:de\s+la\s+|de\s+l['\u2019]|du\s+|des\s+|de\s+|d['\u2019])?)?{_NAME}(?:\s+{_NAME}){{0,2}}"
)
_ES_STREET = (
    rf"(?:(?i:calle|avenida|av\.|paseo|plaza|carrera|ronda)\s+"
    rf"(?:de\s+la\s+|de\s+los\s+|de\s+las\s+|del\s+|de\s+)?)?{_NAME}(?:\s+(?:de\s+)?{_NAME}){{0,2}}"
)
_TOWN = rf"(?P<town>[{_CAP}][\w'\u2019-]+(?:\s[{_CAP}][\w'\u2019-]+)?)"
# Before the town: a comma, the word for "in", or both ("..., à Paris", "..., en Madrid")
_IN = r"(?:,\s*(?:{0}\s+)?|\s+{0}\s+)"
_CORNERS = tuple(
    compile_on_use(pattern)
    for pattern in (
        rf"(?i:corner\s+of)\s+{_EN_STREET}\s+(?:and|&)\s+{_EN_STREET}{_IN.format('in')}{_TOWN}",
        rf"(?i:Ecke)\s+{_NAME}(?:\s+{_NAME})?\s*(?:/|und|&)\s*{_NAME}(?:\s+{_NAME})?"
        rf"{_IN.format('in')}{_TOWN}",
        r"(?i:(?:à\s+l['\u2019]angle|au\s+coin)\s+(?:de\s+la\s+|de\s+l['\u2019]|du\s+|des\s+|de\s+))"
        rf"{_FR_STREET}\s+et\s+(?:de\s+la\s+|de\s+l['\u2019]|du\s+|des\s+|de\s+)?{_FR_STREET}"
        rf"{_IN.format('à')}{_TOWN}",
        rf"(?i:esquina\s+(?:de\s+(?:la\s+|el\s+)?)?){_ES_STREET}\s+(?:con|y|e)\s+{_ES_STREET}"
        rf"{_IN.format('en')}{_TOWN}",
    )
)
_NEAR_BEFORE = compile_on_use(
    r"(?i:\b(?:near|around|close\s+to|next\s+to|by|not\s+far\s+from|off|past|nahe|bei|près\s+de"
    r"|cerca\s+de)\s+(?:the\s+|der\s+|la\s+)?)$|附近|旁边|不远"
)
_ZH_CORNER = compile_on_use(
    r"[\u4e00-\u9fff]{1,8}(?:市|区|县)\s*[\u4e00-\u9fff]{1,8}?(?:路|街|道)\s*(?:与|和|跟|、)\s*"
    r"[\u4e00-\u9fff]{1,8}?(?:路|街|道)\s*(?:交叉口|交汇处|路口|十字路口|拐角)"
)
_NOT_TOWNS = frozenset(
    """I We You He She It They The This That My Our His Her Their Its There Here Then Now
    January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today Tomorrow Yesterday""".split()
)

# -- a flat or suite, then a postcode and a town ---------------------------------------------
_UNIT = compile_on_use(
    r"(?<![\w-])(?i:apt\.?|apartment|suite|ste\.|flat|unit|studio|wohnung|whg\.?|appartement"
    r"|appt\.?|apto\.?|piso|depto\.?|departamento|lgh\.?|lejl\.?|leilighet|asunto|byt"
    r"|lokal|bloco|bloque|esc\.|escalera|interior|edif\.|appartamento|puerta)"
    r"\s*#?\s*[\w-]{0,5}\d[\w-]{0,5}\b"
)
_UNIT_POSTCODE = compile_on_use(
    rf"[^\n.;|]{{0,80}}?(?:,\s*|\n\s*|[{_CAP}][a-z][\w'\u2019-]*\s+)"
    rf"(?P<code>{_POSTCODE}|[A-Z]{{1,2}}\d[A-Z\d]?\s?\d[A-Z]{{2}}|[A-Z]\d[A-Z]\s?\d[A-Z]\d)"
    rf"(?![\w-])(?P<town>,?\s+[{_CAP}][\w'\u2019-]+(?:\s[{_CAP}][\w'\u2019-]+)?)?"
)

# A quantity after the number: a name and a number that is not an address.
_QUANTITY = compile_on_use(
    r"[ \t]*(?:%|€|\$|£|(?i:km|m|kg|g|min|h|mb|gb|x|uhr|stunden|jahre?n?|years?|days?|times"
    r"|weeks?|months?|hours?|minutes?|points?|goals?|pts|mal|tage?n?|wochen|monate?n?|ans?"
    r"|jours|años|días|veces)\b)"
)


def _ends(text: str, pos: int) -> bool:
    return _ENDS.match(text, pos) is not None and not _QUANTITY.match(text, pos)


def _town_after(text: str, pos: int) -> bool:
    m = _PLACE_AFTER.match(text, pos)
    if m is None:
        return False
    return m.group("town") is None or m.group("town").casefold() in towns.names()


# Cheap tests first: every name-and-number form ends in a word right before a number, and
# each family's word has a shape that a set or a suffix test tells at C speed.
_AFTER_ONLY = compile_on_use(rf"(?i:{_AFTER_WORDS})")
_SUFFIX_ENDS = (
    *_SUFFIXES.split("|"),
    *_SHORT_SUFFIXES.split("|"),
    *"straße strasse gasse weg platz allee ring damm ufer steig pfad chaussee markt".split(),
    "promenade",
)
_SLAVIC_END = compile_on_use(rf"(?:{_SLAVIC_ENDINGS})$|[{_SLAVIC_LETTERS}]")
_SLAVIC_PREPOSITION_HINT = compile_on_use(rf"(?<![\w-])(?:{_SLAVIC_PREPOSITION})\s+[{_CAP}]")
# "..., 63996 Chauveau": a postcode after a comma, then a town
_COMMA_POSTCODE = compile_on_use(rf",\s*{_POSTCODE}\s+[{_CAP}]")
_NUMBER_RUN = compile_on_use(r"\d+")
_STEMS = {
    "label": ("home", "addr", "adr", "add", "adresse", "anschrift", "zuhause", "domicil",
              "direcci", "dir", "casa", "maison", "siden", "shipping", "billing", "ship to",
              "deliver to", "livraison", "env", "entrega"),
    "box": ("box", "postfach", "bp", "b.p.", "cs", "apartado", "apdo", "casilla", "caixa",
            "casella", "skrytka", "boîte", "boite", "postale", "postbus", "postboks", "bag",
            "pmb"),
    "unit": ("apt", "apartment", "suite", "ste.", "flat", "unit", "studio", "wohnung", "whg",
             "appart", "appt", "apto", "piso", "depto", "departamento", "lgh", "lejl",
             "leilighet", "asunto", "byt", "lokal", "bloco", "bloque", "esc", "interior",
             "edif", "puerta"),
}  # fmt: skip
_LABEL_TEST, _BOX_TEST, _UNIT_TEST = (substring_test(_STEMS[k]) for k in ("label", "box", "unit"))
_ANY_TEST = substring_test(tuple(stem for stems in _STEMS.values() for stem in stems))


def _words_before_numbers(text: str) -> list[str]:
    """The word right before each number ("Hämeentie" of "Hämeentie 14", "g" of "g. 12"):
    found from the numbers, which are few, by reading back."""
    words = []
    for m in _NUMBER_RUN.finditer(text):
        end = m.start()
        while end > 0 and text[end - 1] in " \t":
            end -= 1
        if end > 0 and text[end - 1] == ".":
            end -= 1
        start = end
        while start > 0 and text[start - 1].isalpha():
            start -= 1
        if start < end:
            words.append(text[start:end])
    return words


def find(text: str) -> Iterator[Finding]:
    """Yield street-address spans written in the ways above (but corners: ``find_corners``)."""
    words = _words_before_numbers(text)
    if words:
        yield from _named_streets(text, words)
    if _COMMA_POSTCODE.search(text):
        for m in _ROMANCE_NO_NUMBER.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())
    low = text.lower()
    if not _ANY_TEST.search(low) and "信箱" not in text:
        return
    if (":" in text or "=" in text) and _LABEL_TEST.search(low):
        yield from _labelled(text)
    if _BOX_TEST.search(low) or "信箱" in text:
        yield from _boxes(text)
    if _UNIT_TEST.search(low):
        yield from _units(text)


def _named_streets(text: str, words: list[str]) -> Iterator[Finding]:
    low = [w.lower() for w in words]
    after = any(_AFTER_ONLY.fullmatch(w) or _AFTER_ONLY.fullmatch(f"{w}.") for w in low)
    # the other forms end in a capitalised name ("Hämeentie 14", "Kapitulská 92", "Am
    # Kupfergraben 6"), or in "Gasse" after a hyphen
    names = [w for w in words if w[0].isupper()]
    suffixed = any(w.lower().endswith(_SUFFIX_ENDS) for w in names)
    slavic = any(_SLAVIC_END.search(w) for w in names)
    german = any(w.lower().endswith(_GERMAN_PLACE_ENDINGS) for w in names)
    for m in _WORD_AFTER.finditer(text) if after else ():
        end = m.end("num")
        word = m.group("word").lower()
        if word in _AMBIGUOUS_AFTER:
            # a Lithuanian genitive names its street: "Vilniaus g. 12", "Gedimino pr. 9"
            name = m.group("name")
            genitive = word in _LITHUANIAN_WORDS and _LITHUANIAN_GENITIVE.search(name)
            # "Radnički dol 752", "Kolesarska pot 3c": an adjective before the street word
            named = genitive or _slavic_name(name) or _ADJECTIVE_ENDING.search(name.lower())
            if not (named and _ends(text, end)) and not _town_after(text, end):
                continue
            if m.group("name") in _NOT_TOWNS:
                continue
        elif not _ends(text, end):
            continue
        yield Finding(CATEGORY, m.start(), end)
    for m in _SUFFIXED.finditer(text) if suffixed else ():
        if m.group("w") not in _NOT_STREETS and _ends(text, m.end("num")):
            yield Finding(CATEGORY, m.start(), m.end("num"))
    for m in _SLAVIC.finditer(text) if slavic else ():
        word, end = m.group("w"), m.end("num")
        if _ends(text, end) and (_slavic_name(word) or _town_after(text, end)):
            yield Finding(CATEGORY, m.start(), end)
    prepositional = german or slavic or (names and _SLAVIC_PREPOSITION_HINT.search(text))
    for m in _PREPOSITIONAL.finditer(text) if prepositional else ():
        name, end = m.group("name"), m.end("num")
        if not _ends(text, end):
            continue
        if m.group("de"):
            ok = name.lower().endswith(_GERMAN_PLACE_ENDINGS)
        else:
            ok = any(ch in _SLAVIC_LETTERS for ch in name) or _town_after(text, end)
        if ok:
            yield Finding(CATEGORY, m.start(), end)
    if not text.isascii() and _GREEK_LETTER.search(text):
        for m in _GREEK.finditer(text):
            end = m.end("num")
            short = len(m.group("num").split("-")[0].split("/")[0]) <= 3
            if m.group("gw") or _GREEK_POSTCODE.match(text, end) or (short and _ends(text, end)):
                yield Finding(CATEGORY, m.start(), end)


def _labelled(text: str) -> Iterator[Finding]:
    for m in _LABEL.finditer(text):
        addr = m.group("addr")
        cut = _SENTENCE_END.search(addr)
        if cut is not None:
            addr = addr[: cut.start()]
        if _NUMBER_BY_NAME.search(addr):
            start = m.start("addr")
            yield Finding(CATEGORY, start, start + len(addr.rstrip(" ,.")))
    for m in _ZH_LABEL.finditer(text):
        yield Finding(CATEGORY, m.start("addr"), m.end("addr"))


def _boxes(text: str) -> Iterator[Finding]:
    for m in _BOX.finditer(text):
        yield Finding(CATEGORY, m.start(), m.end())
    if "信箱" in text:
        for m in _ZH_BOX.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())


def find_corners(text: str) -> Iterator[Finding]:
    """A street corner with its city (no house number, so no digit needed)."""
    if (
        "orner" not in text
        and "cke" not in text
        and "angle" not in text
        and "oin" not in text
        and "squina" not in text
        and "口" not in text
        and "处" not in text
        and "拐角" not in text
    ):
        return
    for pattern in _CORNERS:
        for m in pattern.finditer(text):
            if m.group("town").split()[0] in _NOT_TOWNS:
                continue
            if _NEAR_BEFORE.search(text, max(0, m.start() - 30), m.start()):
                continue  # "near the corner of 5th and Pine": an area, not a door (fine_geo)
            yield Finding(CATEGORY, m.start(), m.end())
    if "口" in text or "处" in text or "拐角" in text:
        for m in _ZH_CORNER.finditer(text):
            yield Finding(CATEGORY, m.start(), m.end())


# Between a flat and its postcode stand a house number, names and particles; a lower-case word
# is prose ("Flat 12 was nice, 2019 Berlin trip").
_PROSE_WORD = compile_on_use(
    r"(?<![\w'\u2019-])(?!(?:de|del|la|las|los|le|les|du|des|der|die|das|dem|den|am|an|im|of"
    r"|the|and|y|et|und|rue|calle|via|viale|rua|piso|bis|ter|floor|bloque|escalera|ulica|utca"
    r"|iela|gatan|gate|vej|tie|katu)\b)[a-zäöüßàâçéèêëîïôûùÿñæœ]{3,}\b"
)


def prose_between(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds a lower-case word that is no particle or street word:
    what stands between the parts of an address never does."""
    return _PROSE_WORD.search(text, start, end) is not None


def _units(text: str) -> Iterator[Finding]:
    for unit in _UNIT.finditer(text):
        m = _UNIT_POSTCODE.match(text, unit.end())
        if m is None or prose_between(text, unit.end(), m.start("code")):
            continue
        town = m.group("town")
        # a postcode of four or six digits reads as a year or a count unless a town follows
        code = m.group("code")
        if code.isdigit() and len(code) != 5 and not town:
            continue
        if town is not None and town.strip(" ,").split()[0] in _NOT_TOWNS:
            continue
        yield Finding(CATEGORY, unit.start(), m.end())
