"""People's names: a bundled first-name list plus the words people put around names.

A capitalised word is not evidence by itself ("Jordan is a country", "Grace Hopper
popularised ..."): a name counts when something ties it to the speaker's life, such as a
relation ("my wife, Elena"), a title ("Dr. Whitfield"), a social verb ("tell Ahmed"), what
follows ("Kenji and I", "Bogdan from accounting"). A first-person sentence alone is not
enough: "I read Stephen King" names a stranger.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from importlib.resources import files

from ..lazy_patterns import compile_on_use
from .findings import Finding

CATEGORY = "person_name"

_RELATIONS = (
    r"wife|husband|partner|spouse|boyfriend|girlfriend|fianc[ée]e?|fiance|son|daughter|kid|"
    r"child|baby|sister|brother|sibling|mum|mom|mother|dad|father|parent|aunt|auntie|uncle|"
    r"cousin|niece|nephew|grandma|grandpa|grandmother|grandfather|granny|nana|grandson|"
    r"granddaughter|stepson|stepdaughter|stepmom|stepdad|friend|buddy|pal|mate|bestie|boss|"
    r"manager|supervisor|colleague|coworker|co-worker|teammate|roommate|flatmate|housemate|"
    r"neighbou?r|landlord|landlady|tenant|therapist|doctor|dentist|gp|teacher|tutor|coach|"
    r"trainer|client|intern|assistant|mentor|mentee|student|ex|crush|date|lawyer|accountant|"
    r"nanny|babysitter|vet|cleaner|lead|cto|ceo|founder|cofounder|co-founder|recruiter|"
    r"physio|nurse|surgeon|pastor|priest|rabbi|imam|barber|hairdresser|plumber|contractor|"
    r"bf|gf|hubby|wifey|in-law|sister-in-law|brother-in-law|mother-in-law|father-in-law"
)
_ADJ = (
    r"(?:(?:best|old|close|new|little|big|older|younger|elder|late|dear|step|twin|baby|"
    r"oldest|youngest|eldest|former|current|good)[\s-]+)*"
)
_STRONG_BEFORE = compile_on_use(
    rf"(?:\b(?:my|our|his|her|their|your|\w+['\u2019]s)\s+{_ADJ}(?:{_RELATIONS})s?\s*,?\s*"
    r"(?:(?:is|was)\s+(?:named|called)\s+|(?:named|called)\s+)?"
    r"|\b(?i:mr|mrs|ms|miss|mx|dr|prof|professor|sir|dame|aunt|auntie|uncle|grandma|grandpa|"
    r"nana|granny|cousin|coach|officer|detective|judge|sgt|ssgt|spc|pfc|cpl|pvt|lt|capt|cpt|"
    r"maj|col|gen|adm|cdr|ens|frau|herr|hr|fr|mme|mlle|monsieur|madame|m|sr|sra|srta|se[ñn]or"
    r"|se[ñn]ora|se[ñn]orita|don|do[ñn]a|dña|dott|sig|sig\.ra)\.?\s+"
    r"|\b(?:my|his|her|their|your)\s+name\s+is\s+|\b(?:my\s+)?name'?s\s+"
    r"|(?:^|[\n.!?]\s*)(?i:signed|regards|best\s+regards|kind\s+regards|sincerely|cheers|"
    r"thanks|many\s+thanks|best|love|xoxo|yours|warmly|from)\s*,\s*"
    r"|\bcc:?\s+)$",
    re.I,
)
# Verbs and words that directly precede a person; "call Fatima", "with Lukas".
_SOCIAL_BEFORE = compile_on_use(
    r"\b(?:with|and|tell|told|telling|ask|asked|asking|ping|pinged|text|texted|texting|call|"
    r"reach|contact|ring|notify|inform|update|warn|dm|pay|paid|give|gave|show|showed|bring|"
    r"calling|email|emailed|message|messaged|remind|reminded|let|meet|met|meeting|see|saw|"
    r"seeing|visit|visited|visiting|invite|invited|inviting|thank|thanked|hug|hugged|kiss|"
    r"kissed|marry|married|marrying|dating|date|owe|owes|miss|missed|introduce|introduced|"
    r"hi|hello|hey|dear|cc|bye|congrats|congratulate|named|called|am|I'm|is|via|tagged|"
    r"bumped\s+into|ran\s+into|hang\s+out\s+with|hanging\s+out\s+with|say\s+hi\s+to|"
    r"talk\s+to|talked\s+to|talking\s+to|spoke\s+to|speak\s+to|spoke\s+with|lunch\s+with|"
    r"dinner\s+with|coffee\s+with|thanks\s+to|pick\s+up|picked\s+up|drop\s+off|dropped\s+off|"
    r"babysit|babysitting|help|helped|helping|know|knows|knew|love|loves|like|likes|"
    r"trust|forward\s+(?:it|this)\s+to|send\s+(?:it|this)\s+to|sent\s+(?:it|this)\s+to)\s+$",
    re.I,
)
# Lower-case names ("ask mike about ...") only straight after these.
_LOWER_BEFORE = compile_on_use(
    r"\b(?:ask|asked|tell|told|ping|text|texted|call|email|emailed|message|remind|let|cc|dm|"
    r"meet|met|with|thank|thanks|hi|hey|hello|dear|invite|visit|and)\s+$",
    re.I,
)
_AFTER = compile_on_use(
    r"^(?:['\u2019]s\s+(?:birthday|wedding|party|house|home|place|flat|apartment|mom|mum|dad|"
    r"number|email|phone|car|dog|cat|kids?|wife|husband|partner|boyfriend|girlfriend|"
    r"son|daughter|baby|funeral|graduation|office|desk|idea|plan|advice)"
    r"|\s*,?\s*(?:said|says|told|tells|asked|asks|sent|sends|called|calls|texted|emailed|"
    r"messaged|wants|wanted|thinks|thought|replied|mentioned|approved|suggested|recommended|"
    r"invited|promised|agreed|forgot|reminded|came|comes|left|moved|lives|works|cooks|"
    r"teaches|broke|got|leaves|arrives|owes|prefers|loves|hates|likes|plays|visits|drives|"
    r"studies|speaks|adore|aime|habite|travaille|joue|liebt|spielt|wohnt|arbeitet|mag|vive|"
    r"trabaja|juega|cumple|is\s+allergic|est\s+(?:le|la|mon|ma)|ist\s+(?:mein|meine|der|die)|"
    r"es\s+(?:mi|el|la)|is\s+(?:coming|visiting|moving|getting|having|pregnant|sick|ill|"
    r"my|our|a\s+(?:friend|colleague|nurse|doctor|teacher))|was\s+(?:my|our)|will\s+be|"
    r"has\s+been|had\s+a|and\s+I|and\s+me|&\s+I|(?:from|in)\s+(?:accounting|finance|"
    r"hr|legal|marketing|sales|it|support|engineering|work|the\s+office|school|church|"
    r"the\s+gym|next\s+door|upstairs|downstairs|class|the\s+team|ops|design|product|"
    r"(?:the|my|our|his|her)\s+\w+)))\b",
    re.I,
)
# What someone does in a community, said of a plain first name (and surname): "Marcus runs
# the raids", "Priya Patel is the guild's treasurer". Only names that are not also words.
_ROLE_AFTER = compile_on_use(
    r"^(?:\s+[A-Z][\w'\u2019-]+)?\s*,?\s*(?:runs|leads|manages|handles|organi[sz]es|hosts|"
    r"moderates|owns|coaches|plays|streams|joined|quit|left|admins|mods|founded|started|"
    r"is\s+(?:the|our|my|their|a|an)\s+(?!\w+\s+(?:of|in)\s+[A-Z])\w+|"
    r"was\s+(?:the|our|my|their)\s+\w+)\b"
)
# A plain first name (never an ordinary word) as the subject of a clause in any language:
# "José trae el pan", "Zoë und Jörg leiten das Training", "Chloé organise le tournoi".
_SUBJECT_AFTER = compile_on_use(
    r"^(?:\s*(?:,|und|and|et|y|e|&)\s*[A-ZÀ-Þ][\w'\u2019-]+)?\s+[a-zà-öø-ÿß]{2,}\b"
)
_PLACE_AFTER = compile_on_use(
    r"^\s+(?:Street|St|Road|Rd|Avenue|Ave|Lane|Drive|Boulevard|Blvd|Way|Park|Lake|Station|"
    r"Square|Bridge|Hill|Heights|Village|District|Gardens|Center|Centre|Hall|University|"
    r"College|School|Hospital|Airport|Church|Inc|Ltd|LLC|Corp|Co)\b"
)
_PREVIOUS_WORD = compile_on_use(r"(?:^|(?P<lead>.)\s*)\b(?P<w>[A-Z][\w'\u2019-]*)\s+$", re.S)
_WORD = compile_on_use(r"[^\W\d_][\w'\u2019-]*")
_SURNAME = compile_on_use(
    r"(?:[ \t]+(?:(?:van|von|de|da|del|di|la|le|al|bin|ibn)[ \t]+)?"
    r"(?:[A-Z][\w'\u2019-]*|O['\u2019][A-Z]\w+|Mc[A-Z]\w+)){1,2}"
)
_NON_NAMES = frozenset(
    """I I'm I'll I've I'd The A An And But Or So If When Then This That These Those My Our
    Your His Her Their We You He She They It Its What Which Who Whom Where Why How Yes No
    Not Please Thanks Thank Hi Hello Hey Dear Okay OK Also Just Maybe Today Tomorrow
    Yesterday Tonight Mr Mrs Ms Dr Prof Sir Madam Street Road Avenue Lane Mom Mum Dad
    Mommy Mummy Daddy Mama Papa Grandma Grandpa Nana Granny Everyone Everybody All Team
    Guys Folks Sis Bro Frau Herr Fräulein Monsieur Madame Mme Mlle Mademoiselle Señor Señora
    Señorita Don Doña Sr Sra Srta English German Dutch Irish French Spanish""".split()
)


@cache
def _name_lists() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(plain names, names that are also common words, mostly-not-names)."""
    plain: set[str] = set()
    common: set[str] = set()
    mostly_not: set[str] = set()
    data = files(__package__).joinpath("data/first_names.txt").read_text(encoding="utf-8")
    for line in data.splitlines():
        if not line or line.startswith("#"):
            continue
        if line.endswith("!"):
            mostly_not.add(line[:-1])
        elif line.endswith("*"):
            common.add(line[:-1])
        else:
            plain.add(line)
    return frozenset(plain), frozenset(common), frozenset(mostly_not)


def _inside_proper_noun(before: str) -> bool:
    """Whether a capitalised word, not one starting a sentence, comes just before."""
    m = _PREVIOUS_WORD.search(before)
    if not m or _bare(m.group("w")) in _NON_NAMES:
        return False
    lead = m.group("lead")
    return lead is not None and lead not in '.!?:;"\u201c(\n'


def _bare(word: str) -> str:
    for suffix in ("'s", "\u2019s", "'", "\u2019"):
        if word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _unaccented(word: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch))


def find(text: str) -> Iterator[Finding]:
    """Yield person-name spans in ``text``."""
    plain, common, mostly_not = _name_lists()
    last_end = -1
    for m in _WORD.finditer(text):
        if m.start() < last_end:
            continue
        # "Élodie" is looked up as "Elodie" (same length: the span does not move)
        word = _bare(m.group())
        if not word.isascii() and word not in plain:
            bare = _unaccented(word)
            if len(bare) == len(word) and bare in plain:
                word = bare
        before = text[max(0, m.start() - 48) : m.start()]
        if _inside_proper_noun(before) and not _STRONG_BEFORE.search(before):
            continue  # "New York", "Golden Gate": part of a longer proper noun
        after = text[m.start() + len(word) : m.start() + len(word) + 40]
        if _PLACE_AFTER.match(after):
            continue
        if not _is_name(word, before, after, plain, common, mostly_not) and not _name_pair(
            text, m.start(), word, plain, common
        ):
            continue
        end = m.start() + len(word)
        if word[0].isupper():
            surname = _SURNAME.match(text, end)
            if surname and all(_bare(w) not in _NON_NAMES for w in surname.group().split()):
                end = surname.end()
                if text[end - 2 : end] in ("'s", "\u2019s"):
                    end -= 2
        last_end = end
        lead = _PREVIOUS_WORD.search(before)  # "Don Quixote": a title may start the name
        if not _famous(text[m.start() : end]) and not (
            lead and _famous(f"{lead.group('w')} {text[m.start() : end]}")
        ):
            yield Finding(CATEGORY, m.start(), end)


# First names that mostly begin a place's name: "Santa Monica", "Victoria Falls".
_PLACE_FIRST_WORDS = frozenset({"Santa", "Santo", "Sankt", "Saint", "Victoria", "Mary", "Rio"})
_NEXT_CAPITAL = compile_on_use(r"[ \t]+(?P<w>[A-ZÀ-ÖØ-Þ][\w'\u2019-]+)")


def _name_pair(
    text: str, start: int, word: str, plain: frozenset[str], common: frozenset[str]
) -> bool:
    """Two capitalised words, either of them a first name, that are not a place or a
    brand: "Tom Becker", "Marie Dupont", "Lucía Herrera". What the owner writes for every
    audience is held to this stricter reading; a famous person is let through (``_famous``)."""
    if not word[:1].isupper() or word in _NON_NAMES or (word.isupper() and len(word) > 1):
        return False
    previous = _PREVIOUS_WORD.search(text[max(0, start - 48) : start])
    if previous and _bare(previous.group("w")) not in _NON_NAMES:
        return False  # "New York City": the end of a longer proper noun
    nxt = _NEXT_CAPITAL.match(text, start + len(word))
    if nxt is None:
        return False
    other = _bare(nxt.group("w"))
    if other in _NON_NAMES or other.isupper() or _PLACE_AFTER.match(text[nxt.start() :]):
        return False
    return word in plain and word not in _PLACE_FIRST_WORDS


@cache
def _famous_people() -> frozenset[str]:
    data = files(__package__).joinpath("data/famous_people.txt").read_text(encoding="utf-8")
    return frozenset(
        line.strip().lower() for line in data.splitlines() if line and not line.startswith("#")
    )


def _famous(name: str) -> bool:
    """A public figure ("Marie Curie", "Lionel Messi") is nobody's private acquaintance."""
    return " ".join(name.split()).lower() in _famous_people()


def _is_name(
    word: str,
    before: str,
    after: str,
    plain: frozenset[str],
    common: frozenset[str],
    mostly_not: frozenset[str],
) -> bool:
    if word in _NON_NAMES or len(word) < 2:
        return False
    if not word[0].isupper():
        # "ask mike about ...": lower case only straight after a verb aimed at a person,
        # and only for names that are not also ordinary words.
        title = word[:1].upper() + word[1:]
        return len(word) > 2 and title in plain and _LOWER_BEFORE.search(before) is not None
    if word.isupper() and len(word) > 2:
        return False  # acronyms
    if _STRONG_BEFORE.search(before):
        return True
    social = _SOCIAL_BEFORE.search(before) is not None
    follows = _AFTER.match(after) is not None
    if word in plain:
        return (
            social
            or follows
            or _ROLE_AFTER.match(after) is not None
            # not the end of a longer proper noun ("San Francisco has ...")
            or (_SUBJECT_AFTER.match(after) is not None and not _PREVIOUS_WORD.search(before))
        )
    if word in common:
        sentence_start = not before.strip() or before.rstrip()[-1] in '.!?:;"\u201c'
        return follows or (social and not sentence_start)
    return False


# Chinese: a relation or a title ties two or three Han characters to someone's life:
# "我的同事王伟", "李老师", "叫张三".
_ZH_RELATION = (
    r"朋友|同事|老板|上司|领导|妻子|老婆|老公|丈夫|女朋友|男朋友|女友|男友|妈妈|母亲|爸爸|父亲|"
    r"儿子|女儿|哥哥|姐姐|弟弟|妹妹|邻居|医生|老师|室友|同学|客户|助理|表哥|表姐|表弟|表妹"
)
_ZH_NAME_AFTER = compile_on_use(
    rf"(?:我的|我|他的|她的|我们的)(?:{_ZH_RELATION})\s*(?:叫|是)?\s*(?P<n>[\u4e00-\u9fff]{{2,3}})"
    r"|(?:叫做?|名叫|名字是)\s*(?P<m>[\u4e00-\u9fff]{2,3})"
)
_ZH_NAME_TITLE = compile_on_use(
    r"(?P<t>[\u4e00-\u9fff]{1,2})(?:先生|女士|小姐|老师|医生|律师|经理|总|阿姨|叔叔|师傅)"
)
_ZH_NOT_A_NAME_START = frozenset("的了在是和与跟给对把被说要会有这那我你他她它们一个")


# A common surname and one or two given characters where a person stands: at the start of a
# clause or after a verb aimed at someone, and before what people do or are ("李伟是我大学室友",
# "王秀英阿姨对花生过敏", "跟张伟说"). Common words that start with a surname are not names.
_ZH_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕"
    "丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃"
    "武戴莫孔向汤"
)
_ZH_DOUBLE_SURNAMES = "欧阳|司马|诸葛|上官|东方|慕容|令狐|皇甫|尉迟|公孙|司徒|夏侯"
# (folded text: full-width punctuation is ASCII there)
_ZH_BEFORE = (
    r"(?:^|(?<=[\s,.!?;:、。\u201c\u201d\"(])|(?<=[和跟与给叫找问让请带陪帮见约等])"
    r"|(?<=告诉|通知|提醒))"
)
_ZH_AFTER = (
    r"是|在|说|讲|对|和|跟|与|向|给|今天|昨天|明天|每|住|也|都|很|去|来|喜欢|不|没|要|会|能|想|有|打"
    r"|刚|又|还|已经|正在|一直|经常|总是|特别|最|负责|把|被|生日|过敏|阿姨|叔叔|先生|女士|小姐|老师"
    r"|医生|师傅|哥|姐|同学|同事|家|他|她|一起|一块|聊|吃|喝|见|做|买|问|找|叫|让|帮|送|拿|带|用|写"
    r"|学|教|玩|唱|跑|走|坐|请|陪|约|等|发|回|到|从|觉得|认为|知道|需要|告诉|上班|下班|[,.!?。]|$"
)
# Characters that do not start a given name: "钱不够" is "not enough money", not 钱不.
_ZH_NOT_GIVEN = frozenset(
    "的了在是和与跟给对把被说要会有这那我你他她它们一个不没很都也就还又才吗呢吧啊"
)
_ZH_PERSON = compile_on_use(
    rf"{_ZH_BEFORE}(?P<n>(?:{_ZH_DOUBLE_SURNAMES}|[{_ZH_SURNAMES}])[\u4e00-\u9fff]{{1,2}}?)"
    rf"(?=\s?(?:{_ZH_AFTER}))"
)
_ZH_NOT_NAMES = frozenset(
    """马上 周末 周围 周一 周二 周三 周四 周五 周六 周日 高兴 高中 高铁 高速 高级 高手
    黄色 方便 方法 方面 方向 方案 文件 金额 金融 金色 安全 常常 于是 向来 白天 白色
    石头 石油 江湖 时间 张开 陈述 何时 何况 许多 许可 韩国 曾经 田野 董事 余下 叶子
    程序 程度 任何 任务 范围 夏天 付款 熊猫 段落 雷电 龙虾 史上 黎明 顾客 毛病 万一
    钱包 严重 武器 孔子 汤圆 谢谢 宋朝 唐朝 秦朝 林业 马路 王国 王者 李子 朱红 胡说
    罗列 郑重 苏醒 陆续 陆地 邓 钟头 钟表 江南 江边 白菜 黄金 黄瓜 金鱼 高度 高温
    马桶 马车 龙头 杨树 杜绝 姜汤 孟买 秦岭 邱 雷达 侯 陶瓷 贺卡 毛巾 万元 钱款
    严格 武汉 戴上 莫名 向上 向下 汤面 方才 白领 石家庄 何必 何处 许久 周到 周期 高考
    高兴地 黄河 长江 朱古力 林子 梁上 吴语 孙子 徐徐 曹操 彭湃 田地 袁大头 江西 江苏 武昌
    常州 许昌 金华 龙岩 周口 高雄 沈阳 邵阳 苏州 潘多拉 蒋介石 蔡 余额 余地 杜鹃 叶片
    魏晋 吕 丁点 姚 卢 崔 谭 汪汪""".split()
)


# "江西", "黄山", "王府井": places whose first character is also a surname.
_ZH_PLACE_ENDS = frozenset("省市县区镇村乡路街巷山河湖江海岛州城府井门口湾桥港站")


def _chinese_people(text: str) -> Iterator[Finding]:
    for m in _ZH_PERSON.finditer(text):
        name = m.group("n")
        if name in _ZH_NOT_NAMES or name[:2] in _ZH_NOT_NAMES or name[-1] in _ZH_PLACE_ENDS:
            continue
        given = name[2:] if name[:2] in _ZH_DOUBLE_SURNAMES.split("|") else name[1:]
        if given[:1] in _ZH_NOT_GIVEN:
            continue
        yield Finding(CATEGORY, m.start("n"), m.end("n"))


def find_chinese(text: str) -> Iterator[Finding]:
    """Yield Chinese person-name spans in ``text``."""
    if not _CJK.search(text):
        return
    for m in _ZH_NAME_AFTER.finditer(text):
        group = "n" if m.group("n") else "m"
        name = m.group(group)
        if name[0] not in _ZH_NOT_A_NAME_START:
            yield Finding(CATEGORY, m.start(group), m.end(group))
    for m in _ZH_NAME_TITLE.finditer(text):
        if m.group("t")[-1] not in _ZH_NOT_A_NAME_START:
            yield Finding(CATEGORY, m.start(), m.end())
    yield from _chinese_people(text)


_CJK = compile_on_use(r"[\u4e00-\u9fff]")
