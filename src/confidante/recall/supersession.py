"""Newest truth first: which facts state something a later fact has changed.

A fact that states a *changing attribute* of someone ("I live in Paris", "my dog is called
Biscuit", "my favourite colour is green", "I work as a nurse", "I started a job at Acme") is a
claim: (holder, attribute, value). Facts of one partition and one author whose claims share
holder and attribute but differ in value are one attribute's history; the newest *present*
claim is current and every other with another value is *superseded* by it, so "I used to
live in Paris" said after "I moved to Berlin" is history, not news. A liking is one attribute
per thing, on or off: "I love coffee" is replaced by "I don't like coffee anymore" (or
"我不喝咖啡了", "ich mag keinen Kaffee mehr", "je n'aime plus le café", "ya no me gusta el
café"), never by "I love tea", since both can be true. Deterministic: a small table of
phrasings per language (English, Chinese, German, French, Spanish), no model and no LLM, so
it errs on the side of linking nothing: events ("I had lunch with Anna") are never claims.

Pure: `claim` reads one text; `superseded` links the facts a reader can see (see
`PartitionIndex.superseded`), so a fact they may not see never marks one they can.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..lazy_patterns import compile_on_use
from .analysis import fold
from .analysis import speaker as transcript_speaker

__all__ = ["Claim", "claim", "superseded"]


@dataclass(frozen=True, slots=True)
class Claim:
    holder: str  # who the attribute belongs to: "self", "my sister", a speaker's name
    attribute: str  # "residence", "job", "employer", "pet_name", "favourite:colour", ...
    value: str  # folded, trimmed
    wildcard: bool = False  # "we renamed her Pepper": a pet_name of the holder's latest pet
    past: bool = False  # "I used to live in Paris": history, never the current value


# Full-width (CJK) comma, full stop, semicolon, exclamation and question marks, enumeration
# comma; escaped, as lookalikes of ASCII punctuation are easy to misread in source.
_ZH_PUNCT = "\uff0c\u3002\uff1b\uff01\uff1f\u3001"
# What ends a value: punctuation, or a word that starts another clause or a time.
_END = (
    rf"(?=\s*(?:[,.;!?{_ZH_PUNCT})]|$|\s(?:now|anymore|again|already|with|because|since|for|and|"
    r"but|from|last|this|next|at|in|on|near|where|which|who|that|until|jetzt|seit|und|aber|"
    r"bei|mehr|maintenant|depuis|et|mais|chez|ahora|desde|pero|y|con)\b))"
)
_VAL = r"(?P<value>[^\W\d_][\w' .-]{0,40}?)"
_CJK_VAL = rf"(?P<value>[^\s{_ZH_PUNCT},.;!?了的吧啊呢]{{1,12}}?)"
_CJK_END = rf"(?=[{_ZH_PUNCT},.;!?了的吧啊呢]|$|\s|现在|以后|工作)"
_ZH_ADV = (
    r"(?:现在|目前|已经|还|就|也|一直|不再|没有|正在|刚刚|刚|最近|上个月|上周|上个星期|这个月|"
    r"去年|今年|前年|昨天|前天|[0-9一二三四五六七八九十]{1,2}月(?:份)?)*"
)

_EN_RELATIONS = (
    "sister|brother|mum|mom|mother|dad|father|partner|wife|husband|girlfriend|boyfriend|"
    "son|daughter|cousin|aunt|uncle|grandmother|grandfather|grandma|grandpa|friend|"
    "boss|manager|neighbour|neighbor|roommate|flatmate|best friend"
)
_EN_HOLDER = rf"(?P<holder>i|we|my (?:{_EN_RELATIONS}))"
_EN_BE = (
    r"(?:'m|'re|'s|'ll be|'ve|'ve been|\s+am|\s+are|\s+is|\s+will be|\s+have been|\s+has been|"
    r"\s+have|\s+has)?(?:\s+(?:don't|do not|doesn't|does not|no longer|not|never|used to))?"
)
_ANIMALS = {
    "dog": "dog",
    "puppy": "dog",
    "pup": "dog",
    "cat": "cat",
    "kitten": "cat",
    "rabbit": "rabbit",
    "bunny": "rabbit",
    "hamster": "hamster",
    "parrot": "bird",
    "bird": "bird",
    "fish": "fish",
    "horse": "horse",
    "turtle": "turtle",
    "狗": "dog",
    "小狗": "dog",
    "狗狗": "dog",
    "猫": "cat",
    "小猫": "cat",
    "猫咪": "cat",
    "兔子": "rabbit",
    "鸟": "bird",
    "鹦鹉": "bird",
    "鱼": "fish",
    "hund": "dog",
    "katze": "cat",
    "kater": "cat",
    "chien": "dog",
    "chienne": "dog",
    "chat": "cat",
    "chatte": "cat",
    "perro": "dog",
    "perra": "dog",
    "gato": "cat",
    "gata": "cat",
}
_EN_ANIMAL = "|".join(a for a in _ANIMALS if a.isascii())
_ZH_ANIMAL = "|".join(sorted((a for a in _ANIMALS if not a.isascii()), key=len, reverse=True))
_ZH_RELATIONS = (
    "姐姐|妹妹|哥哥|弟弟|妈妈|爸爸|母亲|父亲|男朋友|女朋友|老公|老婆|丈夫|妻子|儿子|女儿|"
    "表哥|表姐|表弟|表妹|朋友|老板|经理|邻居|室友|伴侣"
)
_ZH_HOLDER = rf"(?P<holder>我们|我(?:的)?(?:{_ZH_RELATIONS})|我)"

# (attribute, pattern). A pattern's named groups: holder (optional), value, animal (optional).
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # -- English -----------------------------------------------------------------------------
    (
        "residence",  # "we moved to a new flat in Berlin": the city, not the flat
        compile_on_use(
            rf"\b{_EN_HOLDER}{_EN_BE}(?:\s+(?:now|just|finally|recently))?\s+(?:moved|moving|"
            rf"relocated)\s+(?:in)?to\s+(?:a|an|our|my|the)\s+(?:new\s+|bigger\s+|smaller\s+)?"
            rf"(?:place|flat|apartment|house|home|condo|studio)\s+in\s+{_VAL}{_END}"
        ),
    ),
    (
        "employer",  # "I started a new job at Acme", "I got a job with the BBC"
        compile_on_use(
            rf"\b{_EN_HOLDER}{_EN_BE}(?:\s+(?:now|just|finally|recently))?\s+(?:got|started|"
            rf"found|landed|took|accepted|have|began|starting|start)\s+(?:a\s+)?(?:new\s+)?"
            rf"(?:job|position|role)\s+(?:at|with)\s+(?:the\s+)?{_VAL}{_END}"
        ),
    ),
    (
        "employer",  # "I quit my job at Acme": no longer there
        compile_on_use(
            rf"\b{_EN_HOLDER}(?:'ve| have)?(?:\s+(?:just|finally))?\s+(?P<neg>quit|left)\s+"
            rf"(?:my|our|the)\s+job\s+(?:at|with)\s+(?:the\s+)?{_VAL}{_END}"
        ),
    ),
    (
        "residence",
        compile_on_use(
            rf"\b{_EN_HOLDER}{_EN_BE}(?:\s+(?:now|still|currently|finally|just))?\s+"
            rf"(?:living|live|lives|based|moved|moving|relocated|relocating)"
            rf"\s+(?:back\s+)?(?:in|to)\s+{_VAL}{_END}"
        ),
    ),
    (
        "residence",
        compile_on_use(
            rf"\b(?P<holder>i|we)(?:'ve| have)?\s+(?:just\s+)?moved\s+to\s+{_VAL}{_END}"
        ),
    ),
    (
        "job",
        compile_on_use(
            rf"\b{_EN_HOLDER}{_EN_BE}(?:\s+(?:now|still|currently))?\s+(?:work|works|working|"
            rf"started working|got a job|got a new job|have a new job)\s+as\s+(?:an?\s+)?"
            rf"{_VAL}{_END}"
        ),
    ),
    (
        "job",
        compile_on_use(
            rf"\b(?P<holder>my|their|our)\s+(?:new\s+)?(?:job|role|position) is\s+{_VAL}{_END}"
        ),
    ),
    (
        "employer",
        compile_on_use(
            rf"\b{_EN_HOLDER}{_EN_BE}(?:\s+(?:now|still|currently))?\s+(?:work|works|working|"
            rf"started working)\s+(?:at|for)\s+(?:the\s+)?{_VAL}{_END}"
        ),
    ),
    (
        "pet_name",
        compile_on_use(
            rf"\b(?P<holder>my|our)\s+(?:new\s+)?(?:\w+\s+)?(?P<animal>{_EN_ANIMAL})(?:'s name)?"
            rf"\s+(?:is|was)\s+(?:called|named|now called|now named)?\s*{_VAL}{_END}"
        ),
    ),
    (
        "pet_name",
        compile_on_use(
            rf"\b(?P<holder>we|i){_EN_BE}(?:\s+(?:now|just|finally))?\s+(?:re)?(?:named|renamed|calling|call|called)"
            rf"\s+(?:him|her|it|them|(?:the|our|my) (?P<animal>{_EN_ANIMAL}))\s+(?:to\s+)?"
            rf"{_VAL}{_END}"
        ),
    ),
    (
        "favourite",
        compile_on_use(
            rf"(?<!one of )\b(?P<holder>my|our)\s+(?:new\s+|all-time\s+)?favou?rite\s+"
            rf"(?P<thing>\w+)"
            rf"\s+is\s+(?:now\s+)?{_VAL}{_END}"
        ),
    ),
    (
        "partner",
        compile_on_use(
            rf"\b(?P<holder>my)\s+(?:new\s+)?(?:partner|girlfriend|boyfriend|wife|husband)"
            rf"(?:'s name is|\s+is\s+called|\s+is\s+named)\s+{_VAL}{_END}"
        ),
    ),
    # -- Chinese -----------------------------------------------------------------------------
    (
        "residence",
        compile_on_use(
            rf"{_ZH_HOLDER}{_ZH_ADV}(?:住在|搬到了|搬到|搬去了|搬去|搬回了|搬回|定居在|"
            rf"生活在){_CJK_VAL}{_CJK_END}"
        ),
    ),
    (
        "employer",
        compile_on_use(rf"{_ZH_HOLDER}{_ZH_ADV}在{_CJK_VAL}(?:工作|上班){_CJK_END}"),
    ),
    (
        "job",
        compile_on_use(
            rf"{_ZH_HOLDER}{_ZH_ADV}(?:在[^\s{_ZH_PUNCT}]{{1,10}}?)?(?:的(?:新)?工作是|当|是一名|"
            rf"是一个|做)(?P<value>[^\s{_ZH_PUNCT},.;!?了的吧啊呢]{{1,8}}?)"
            rf"(?=[{_ZH_PUNCT},.;!?了的吧啊呢]|$)"
        ),
    ),
    (
        "pet_name",
        compile_on_use(
            rf"(?P<holder>我们|我)(?:的|家的|家)?(?:新)?(?P<animal>{_ZH_ANIMAL})"
            rf"(?:的名字)?(?:现在)?(?:叫做|叫|是){_CJK_VAL}{_CJK_END}"
        ),
    ),
    (
        "pet_name",
        compile_on_use(
            rf"(?P<holder>我们|我)?(?:给|把)?(?:她|他|它)(?:改名|取名|起名)(?:叫做|叫|为){_CJK_VAL}{_CJK_END}"
        ),
    ),
    (
        "pet_name",
        compile_on_use(rf"(?P<holder>我们|我)(?:暂时|现在)?叫(?:她|他|它){_CJK_VAL}{_CJK_END}"),
    ),
    (
        "favourite",
        compile_on_use(
            rf"(?P<holder>我们|我)最喜欢的(?P<thing>[^\s{_ZH_PUNCT}是]{{1,4}})是(?:现在)?"
            rf"{_CJK_VAL}{_CJK_END}"
        ),
    ),
    # -- German, French, Spanish -------------------------------------------------------------
    (
        "residence",
        compile_on_use(
            rf"(?:\b(?P<holder>ich|wir)\s+(?:wohne|wohnen|lebe|leben)|\b(?:wohne|wohnen|lebe|leben)\s+"
            rf"(?P<holder2>ich|wir))\s+(?:\w+\s+){{0,2}}?in\s+{_VAL}{_END}"
        ),
    ),
    (
        "residence",
        compile_on_use(
            rf"\b(?P<holder>ich|wir)\s+(?:bin|sind)\s+(?:jetzt\s+)?nach\s+{_VAL}\s+(?:gezogen|umgezogen)"
        ),
    ),
    (
        "job",
        compile_on_use(rf"\b(?P<holder>ich|wir)\s+arbeite[n]?\s+(?:jetzt\s+)?als\s+{_VAL}{_END}"),
    ),
    (
        "pet_name",
        compile_on_use(
            rf"\b(?P<holder>mein|meine|unser|unsere)\s+(?P<animal>hund|katze|kater)\s+hei(?:ss|ß)t"
            rf"\s+(?:jetzt\s+)?{_VAL}{_END}"
        ),
    ),
    (
        "residence",
        compile_on_use(
            rf"\b(?P<holder>j'|je\s|nous\s)(?:habite|vis|habitons|vivons|suis\s+install[ée]e?|"
            rf"ai\s+déménagé|avons\s+déménagé)\s*(?:(?:maintenant|toujours|encore|désormais)\s+)?"
            rf"(?:à|a|en|au)\s+{_VAL}{_END}"
        ),
    ),
    (
        "job",
        compile_on_use(rf"\b(?P<holder>je|nous)\s+travaill(?:e|ons)\s+comme\s+{_VAL}{_END}"),
    ),
    (
        "pet_name",
        compile_on_use(
            rf"\b(?P<holder>mon|ma|notre)\s+(?P<animal>chien|chienne|chat|chatte)\s+s'appelle"
            rf"\s+(?:maintenant\s+)?{_VAL}{_END}"
        ),
    ),
    (
        "residence",
        compile_on_use(
            rf"(?:^|\s)(?P<holder>yo\s+|nosotros\s+)?(?:vivo|vivimos|sigo viviendo|me mudé|me mude|"
            rf"nos mudamos)"
            rf"\s+(?:ahora\s+)?(?:en|a)\s+{_VAL}{_END}"
        ),
    ),
    (
        "job",
        compile_on_use(
            rf"(?:^|\s)(?P<holder>yo\s+)?trabajo\s+(?:ahora\s+)?(?:como|de)\s+{_VAL}{_END}"
        ),
    ),
    (
        "pet_name",
        compile_on_use(
            rf"\b(?P<holder>mi|nuestro|nuestra)\s+(?P<animal>perro|perra|gato|gata)\s+se\s+llama"
            rf"\s+(?:ahora\s+)?{_VAL}{_END}"
        ),
    ),
    (
        "likes",  # "I love coffee", "I don't like coffee anymore": one liking, on or off
        compile_on_use(
            rf"\b{_EN_HOLDER}{_EN_BE}(?:\s+(?:really|still|now|also))?\s+(?:like|love|enjoy|"
            rf"liking|loving|enjoying)\s+{_VAL}{_END}"
        ),
    ),
    (
        "likes",  # "我喜欢喝咖啡", "我不喝咖啡了": drinking or eating counts only when it stopped
        compile_on_use(
            rf"{_ZH_HOLDER}{_ZH_ADV}(?:(?:很|最|也|真的)?(?:喜欢|爱)(?:喝|吃)?|(?:不再|不)(?:喝|吃))"
            rf"{_CJK_VAL}{_CJK_END}"
        ),
    ),
    (
        "likes",  # "ich mag Kaffee", "ich mag keinen Kaffee mehr", "ich trinke keinen Kaffee mehr"
        compile_on_use(
            rf"\b(?P<holder>ich|wir)\s+(?:(?:mag|mögen|liebe|lieben)\s+(?:jetzt\s+)?"
            rf"(?:kein(?:en|e|es)?\s+)?|(?:trinke|trinken|esse|essen)\s+kein(?:en|e|es)?\s+)"
            rf"{_VAL}{_END}"
        ),
    ),
    (
        "likes",  # "j'aime le café", "je n'aime plus le café"
        compile_on_use(
            rf"\b(?P<holder>j'|je\s|nous\s)(?:n')?(?:aime|adore|aimons|adorons)\s+"
            rf"(?:plus\s+|pas\s+|maintenant\s+)?(?:le\s+|la\s+|les\s+|l')?{_VAL}{_END}"
        ),
    ),
    (
        "likes",  # "me gusta el café", "ya no me gusta el café"
        compile_on_use(
            rf"(?:^|\s)(?:a mí\s+)?(?:ya no\s+|no\s+)?me\s+(?:gusta|gustan|encanta|encantan)\s+"
            rf"(?:el\s+|la\s+|los\s+|las\s+)?{_VAL}{_END}"
        ),
    ),
]

# Per phrasing above, in order: substrings one of which it cannot match without. Checked
# first (a substring test costs ~50 ns, a pattern ~2 us), so most texts run no pattern.
_NEEDS: list[tuple[str, ...]] = [
    ("moved", "moving", "relocated"),
    ("job", "position", "role"),
    ("quit", "left"),
    ("liv", "mov", "relocat", "based"),
    ("moved to",),
    ("work", "job"),
    ("job is", "role is", "position is"),
    ("work",),
    tuple(a for a in _ANIMALS if a.isascii()),
    ("nam", "call"),
    ("favourite", "favorite"),
    ("partner", "girlfriend", "boyfriend", "wife", "husband"),
    ("住", "搬", "定居", "生活在"),
    ("工作", "上班"),
    ("工作是", "当", "是一", "做"),
    ("叫", "是"),
    ("改名", "取名", "起名"),
    ("叫她", "叫他", "叫它"),
    ("最喜欢",),
    ("wohn", "lebe"),
    ("gezogen",),
    ("arbeite",),
    ("heißt", "heisst"),
    ("habit", "vis", "vivons", "install", "déménag"),
    ("travaill",),
    ("appelle",),
    ("vivo", "vivimos", "viviendo", "mud"),
    ("trabajo",),
    ("llama",),
    ("like", "love", "enjoy"),
    ("喜欢", "爱", "喝", "吃"),
    ("mag", "mögen", "liebe", "trink", "esse"),
    ("aime", "adore"),
    ("gusta", "encanta"),
]
_RULES = [
    (attribute, needs, pattern)
    for (attribute, pattern), needs in zip(_PATTERNS, _NEEDS, strict=True)
]

_SELF = {"i", "we", "my", "our", "我", "我们", "ich", "wir", "mein", "meine", "unser", "unsere"}
_SELF |= {"j'", "je", "nous", "mon", "ma", "notre", "yo", "nosotros", "mi", "nuestro", "nuestra"}
_NOT_HOLDERS = {"he", "she", "they", "it", "you", "this", "that", "there", "who", "which"}
_ARTICLES = compile_on_use(r"^(?:the|a|an|der|die|das|le|la|les|l'|el|los|las)\s+")
_NEGATION = compile_on_use(
    r"\b(?:don't|do not|doesn't|does not|no longer|not|never|nicht|kein\w*|plus|pas|no)\b|"
    r"\bn'|不再|不|没"
)
# What marks a claim as history, not the present: "I used to live in Paris", "my dog was
# called Rex", "以前", "früher". Such a claim never outranks a present one of another value.
_PAST = compile_on_use(
    r"\b(?:used to|was called|was named|formerly|previously|back then|früher|damals|"
    r"autrefois|avant|antes)\b|以前|曾经|过去"
)
# Values that name nothing: "I love it", "I like that".
_NOT_VALUES = {"it", "that", "this", "them", "you", "him", "her", "to", "so", "much", "all"}


def _holder(raw: str | None, speaker: str | None) -> str | None:
    if raw is None or not raw.strip():
        return speaker or "self"
    h = raw.strip().removesuffix("'s")
    if h in _NOT_HOLDERS:
        return None
    if h in _SELF:
        return speaker or "self"
    if h.startswith(("my ", "我的", "我")) and h not in _SELF:
        rel = h.removeprefix("my ").removeprefix("我的").removeprefix("我")
        return f"{speaker or 'self'}'s {rel}"
    return h


def claim(text: str) -> Claim | None:
    """The changing attribute a text states, or None. The first phrasing that matches wins;
    a leading "Name:" is the speaker (a transcript line) and holds a first-person claim."""
    speaker = None
    line = transcript_speaker(text)
    if line is not None:
        speaker, text = fold(line[0]).strip(), line[1]
    folded = fold(text)
    for attribute, needs, pattern in _RULES:
        if not any(n in folded for n in needs):
            continue
        found = pattern.search(folded)
        if found is None:
            continue
        groups = found.groupdict()
        holder = _holder(groups.get("holder") or groups.get("holder2"), speaker)
        if holder is None:
            continue
        value = _ARTICLES.sub("", groups["value"].strip(" '-."))
        if not value or value in _NOT_VALUES or value.split()[0] in _NOT_VALUES:
            continue
        negated = bool(groups.get("neg")) or bool(
            _NEGATION.search(folded[found.start() : found.start("value")])
        )
        past = _PAST.search(folded) is not None
        if attribute == "likes":  # one liking per thing, on or off: "I love tea" is not
            # replaced by "I love hiking", only by "I don't like tea anymore"
            return Claim(holder, f"likes:{value}", "no" if negated else "yes", past=past)
        if negated:
            value = f"not {value}"  # "I don't live in Paris anymore" changes where I live
        attr = attribute
        if groups.get("thing"):
            attr = f"favourite:{groups['thing']}"
        animal = groups.get("animal")
        if attribute == "pet_name":
            if animal:
                attr = f"pet_name:{_ANIMALS.get(animal, animal)}"
            return Claim(holder, attr, value, wildcard=animal is None, past=past)
        return Claim(holder, attr, value, past=past)
    return None


def superseded(
    claims: list[Claim | None], authors: list[str | None], order: list[int]
) -> dict[int, int]:
    """Row -> the row of the newest claim that replaced it, over the rows in `order` (the
    rows a reader can see, oldest first). Rows of one author whose claims share holder and
    attribute form one history; a row is superseded by that history's newest row when their
    values differ. A wildcard pet name ("renamed her Pepper") joins its holder's latest pet."""
    latest_pet: dict[tuple[str | None, str], str] = {}
    histories: dict[tuple[str | None, str, str], list[int]] = {}
    for row in order:
        c = claims[row]
        if c is None:
            continue
        attr = c.attribute
        if c.attribute == "pet_name":  # a wildcard with no pet named before
            attr = latest_pet.get((authors[row], c.holder), "pet_name:pet")
        elif c.attribute.startswith("pet_name:"):
            latest_pet[(authors[row], c.holder)] = c.attribute
        histories.setdefault((authors[row], c.holder, attr), []).append(row)
    out: dict[int, int] = {}
    for rows in histories.values():
        # The newest present claim is current: "I used to live in Paris", said after "I live
        # in Berlin", is history and never replaces it.
        present = [r for r in rows if not claims[r].past]  # type: ignore[union-attr]
        newest = present[-1] if present else rows[-1]
        current = claims[newest]
        assert current is not None
        for row in rows:
            c = claims[row]
            if row != newest and c is not None and c.value != current.value:
                out[row] = newest
    return out
