"""Answers to security questions: the answer is a password too.

- after the question's name, past a colon, an arrow or a verb: "security question answer (name
  of first pet): Biscuit2009", "security question mother's maiden name -> Kowalczyk",
  "question secrète : nom de mon premier animal → Pistache", "pregunta de seguridad: ciudad
  donde nací → Albacete", "密保问题:我小学班主任叫什么?答案:王秀兰" (the question is read past,
  up to the marker of its answer);
- after "the answer to" a quoted question of the kind such questions ask (a first pet, a
  mother's maiden name, a birthplace, a first school): "answer to 'name of your first pet' is
  Biscuit", "Antwort auf „Name des ersten Haustiers“ ist Bello", "“你的宠物叫什么”的答案是 豆豆".

An answer is a few words; a longer clause is talk about such questions ("security questions
are useless: anyone can google them").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from ._text import NOT_A_VALUE, prose_shaped, substring_test
from .findings import Finding

CATEGORY = "credential"

_SECURITY_QUESTION = compile_on_use(
    r"(?i:security\s+(?:question|answer|q)s?|secret\s+(?:question|answer)|mother'?s\s+maiden"
    r"|Sicherheits(?:frage|antwort)|geheime\s+Frage|question\s+(?:secr[èe]te|de\s+s[ée]curit[ée])"
    r"|r[ée]ponse\s+secr[èe]te|pregunta\s+(?:de\s+seguridad|secreta)|respuesta\s+(?:de\s+"
    # not a bare 安全问题: that is also a safety problem ("食品安全问题")
    r"seguridad|secreta))|密保(?:问题|答案)?|密码提示问题"
)
# A value: a few words, not a question; it ends a clause. Arrows, colons and question marks
# are not part of it, so that a question read as a value gives way to the answer after it.
_VALUE = (
    r"(?P<v>[^\s,.;:=!?\u2014\u2013\"'(。、>\u2192][^,.;:=!?\u2014\u2013\n。(>\u2192]{0,40}?)"
    r"(?=\s*(?:[,.;!\u2014\u2013\n。(]|\s-\s|$))"
)
# What stands between a question and its answer.
_ANSWER_AFTER = compile_on_use(
    r"(?:\s*(?:->|=>|\u2192|\u21d2|[:=])\s*|答案是\s*|答案为\s*"
    r"|(?P<verb>(?i:\b(?:answer|name)\s+(?:is|was))\s+"
    # "(Name vom ersten Haustier) ist Krümel": a copula after the question in brackets
    r"|\)\s*(?i:is|ist|est|es|era|was|war)\s+"
    # what was entered as the answer: "(mother's maiden name) I put Kowalczyk", "j'ai mis
    # Pistache", "puse Albacete", "hab Bello eingetragen" is left out (the value comes first)
    r"|(?i:\bI\s+(?:put|used|wrote|entered|typed|set)|j['\u2019]ai\s+(?:mis|[ée]crit|tap[ée])"
    r"|(?:yo\s+)?(?:puse|escrib[íi]|us[ée]))\s+"
    r"|我?(?:填的是|填了|写的是|写了)\s*))" + _VALUE
)
_QUESTION_REACH = 100
_ANSWER_AFTER_NAME = compile_on_use(
    r"(?i:maiden\s+name|pet|street|school|mascota|Haustiers?|animal)\s+(?:is\s+|was\s+)?"
    r"([A-ZÀ-Þ][\w'\u2019-]+)$"
)
_SECURITY_STEMS = ("secur", "secret", "maiden", "sicherheit", "geheime", "secr", "密保",
                   "密码提示", "pregunta", "respuesta", "sécurité")  # fmt: skip
_SECURITY_TEST = substring_test(_SECURITY_STEMS)

# -- "the answer to '<question>' is ..." -----------------------------------------------------
_OPEN = "\"'\u201c\u2018\u201e\u00ab\u300c\u300e("
_CLOSE = "\"'\u201d\u2019\u201c\u00bb\u300d\u300f)"
_ANSWER_TO = compile_on_use(
    r"(?i:\b(?:answer|r[ée]ponse|respuesta|antwort)\s+(?:to|for|on|of|à|a|de|auf|zu|f(?:ü|ue)r)"
    r"\s+(?:(?:the|my|la|ma|mi|die|meine|der|el)\s+)?"
    r"(?:(?:security\s+|secret\s+)?question\s+|pregunta\s+|(?:Sicherheits)?frage\s+)?)"
    rf"[{_OPEN}]\s?(?P<q>[^{_CLOSE}\n]{{3,80}}?)\s?[{_CLOSE}]"
    r"(?:\s+(?i:question|pregunta|frage))?"
    r"(?:\s*,?\s*(?P<verb>(?i:is|was|est|c['\u2019]est|es|era|ist|lautet|war))\s+"
    r"|\s*(?:->|=>|\u2192|[:=])\s*)" + _VALUE
)
_ANSWER_TO_ZH = compile_on_use(
    r"[\u201c\u300c\u300e\"](?P<q>[^\u201d\u300d\u300f\"\n]{2,40})[\u201d\u300d\u300f\"]"
    r"\s*(?:这个问题)?的?(?:答案|回答)\s*(?:是|为|:)\s*" + _VALUE
)
# What a security question asks about, in the five languages.
_QUESTION_TOPIC = compile_on_use(
    r"(?i:\b(?:pet|maiden|school|born|birth\w*|city|town|street|grew\s+up|teacher|best\s+friend"
    r"|first\s+(?:car|job|love|kiss|concert)|mother|father|mum|mom|dad|nickname|childhood|hero"
    r"|favou?rite|honeymoon|hospital|Haustier\w*|M(?:ä|ae)dchenname|Geburts\w+|Schule"
    r"|Lehrer\w*|Stra(?:ß|ss)e|Kindheit|Spitzname|Lieblings\w+|Mutter|Vater|geboren|animal"
    r"|jeune\s+fille|[ée]cole|ville|n[ée]e?|naissance|rue|instituteur|institutrice|professeur"
    r"|enfance|surnom|pr[ée]f[ée]r[ée]e?|m[èe]re|p[èe]re|mascota|soltera|escuela|colegio"
    r"|ciudad|nac[ií]\w*|calle|maestr[oa]|profesor[a]?|infancia|apodo|favorit[oa]|madre"
    r"|padre)\b)"
    r"|宠物|小学|中学|母亲|妈妈|父亲|爸爸|出生|老师|班主任|城市|街|昵称|最喜欢|初恋"
)
# ... and is asked of a person: "your first pet", "mon premier animal", "where you were born";
# not a quiz ("the answer to 'what city is the capital of France' is Paris").
_PERSONAL = compile_on_use(
    r"(?i:\b(?:your|you|my|mother'?s|father'?s|mum'?s|mom'?s|dad'?s|ton|ta|tes|mon|ma|mes|tu|tus"
    r"|mi|mis|dein\w*|mein\w*|first|premi[eè]re?|primer[oa]?|erste[nrs]?|naci\w*|geboren"
    r"|maiden)\b)|你|我|妈妈|母亲|爸爸|父亲"
)
_ANSWER_STEMS = ("answer", "réponse", "reponse", "respuesta", "antwort", "答案", "回答")
_ANSWER_TEST = substring_test(_ANSWER_STEMS)
_EITHER_TEST = substring_test(_SECURITY_STEMS + _ANSWER_STEMS)

# What stands where an answer would, and is none: "Security question: none set",
# "Sicherheitsfrage: keine Ahnung", "The security questions: first pet, first school".
_NO_ANSWER = frozenset(
    {"unknown", "none", "nothing", "n/a", "none set", "not set", "no idea", "dunno",
     "keine ahnung", "keine", "nichts", "weiß nicht", "aucune idée", "aucune", "rien",
     "je ne sais pas", "je ne sais plus", "ni idea", "ninguna", "nada", "no sé", "no me acuerdo",
     "forgot", "forgotten", "vergessen", "oublié", "olvidé", "不知道", "没有", "无", "忘了"}
)  # fmt: skip
_QUESTION_WORDS = frozenset(
    """first pet school car name street city town mother's mothers maiden teacher best friend
    favourite favorite born birth place childhood hero book food colour color""".split()
)
_ZH_NOT_ANSWER = compile_on_use(r"(?:是什么|什么|吗|呢|了|啊)$")
_CJK_CHAR = compile_on_use(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def find(text: str) -> Iterator[Finding]:
    """The answer to a security question, after the question or after "the answer to"."""
    low = text.lower()
    if not _EITHER_TEST.search(low):
        return  # most text: one scan for the stems of both forms
    if _SECURITY_TEST.search(low):
        yield from _after_question(text)
    if _ANSWER_TEST.search(low):
        for pattern in (_ANSWER_TO, _ANSWER_TO_ZH):
            for m in pattern.finditer(text):
                question = m.group("q")
                if _QUESTION_TOPIC.search(question) and _PERSONAL.search(question):
                    yield from _answer(m, verb=pattern is _ANSWER_TO and bool(m.group("verb")))


def _after_question(text: str) -> Iterator[Finding]:
    for question in _SECURITY_QUESTION.finditer(text):
        end = text.find("\n", question.end())
        end = min(len(text) if end == -1 else end, question.end() + _QUESTION_REACH)
        # the first marker whose value is an answer: "question: first pet, answer: Rex"
        for m in _ANSWER_AFTER.finditer(text, question.end(), end):
            found = list(_answer(m, verb=bool(m.group("verb"))))
            if found:
                yield from found
                break


def _answer(m: re.Match[str], verb: bool) -> Iterator[Finding]:
    raw = m.group("v")
    value = raw.strip()
    named = _ANSWER_AFTER_NAME.search(value)
    if named is not None:  # "mom's maiden name Kowalski": the answer, not its question
        start = m.start("v") + raw.index(value) + named.start(1)
        yield Finding(CATEGORY, start, start + len(named.group(1)))
        return
    if not value or len(value.split()) > 3 or value.lower() in NOT_A_VALUE:
        return
    low = value.lower()
    if prose_shaped(value) or any(low == no or low.startswith(f"{no} ") for no in _NO_ANSWER):
        return  # "keine Ahnung mehr", "none set yet"
    if set(value.lower().split()) <= _QUESTION_WORDS:
        return  # "first pet": what the question asks, not its answer
    if _CJK_CHAR.search(value) and (len(value) > 12 or _ZH_NOT_ANSWER.search(value)):
        return  # "我把密保问题的答案写在本子上了": a sentence, not an answer
    if verb and not (value[0].isupper() or value[0].isdigit() or _CJK_CHAR.match(value)):
        return  # "... maiden name is on the form": a name after "is" is capitalised
    start = m.start("v") + (len(raw) - len(raw.lstrip()))
    yield Finding(CATEGORY, start, start + len(value))
