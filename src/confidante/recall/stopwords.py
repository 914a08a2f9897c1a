"""Function words per language: words that say nothing about what a fact is about.

Small, hand-kept lists (the most frequent function words of each language, pronouns and
auxiliaries included), used two ways: to tell a text's language (`analysis.language`) and
to leave these words out of keyword recall. Lower case, accents as written.
"""

from __future__ import annotations

_RAW = {
    "en": """a an and are as at be but by did do does for from had has have he her him his
        how i if in into is it its me my of on or our she so than that the their them then
        there these they this to was we were what when where which who whom why will with
        you your""",
    "de": """aber als am an auch auf aus bei bin bist bis da das dass dein deine dem den der
        des die dir doch du ein eine einem einen einer er es euch für hat hatte hatten ich
        ihr ihre im in ist ja mein meine mich mir mit nach nicht noch nur oder sich sie sind
        so um und uns unser von vor war waren was wie wir wo zu zum zur über wann warum wer
        welche welcher wem wen""",
    "fr": """au aux avec ce ces cette dans de des du elle elles en est et eu il ils je la le
        les leur lui ma mais me mes moi mon ne nos notre nous on ou où par pas pour qu que
        qui sa se ses son sont sur ta te tes toi ton tu un une vos votre vous était étais
        ai as avait avez avons quand quel quelle quoi comment pourquoi a suis vais c d j l m
        n s t qu est-ce""",
    "es": """a al como con cual cuando de del donde dónde el en es esta este esto estoy fue
        ha han he la las le les lo los me mi mis muy nos o para pero por que qué quien quién
        se su sus te tu tú un una uno y ya yo él ella ellos era estaba cómo cuándo cuál
        porque soy son tengo tiene""",
    "it": """a al alla che chi ci come con da dal dalla del della di dove e è gli ha ho i il
        in io la le lei lo lui ma mi mia mio ne nel nella non per perché più quando quale
        questo se si sono su suo sua ti tu un una uno voi noi era""",
    "pt": """a ao aos as com como da das de do dos e ela ele em era essa esse esta está eu
        foi há isso já lhe mais mas me meu minha muito na nas no nos não o os ou para pela
        pelo por quando que quem se sem seu sua são também te tem você""",
    "nl": """aan al als bij dat de den der die dit een en er had heb heeft het hij hoe ik in
        is je jij kan maar me met mij mijn na naar niet nog of om ons ook op over te tot u
        uit van voor waar wanneer was wat we wie wij zijn ze zij zo""",
}

STOPWORDS: dict[str, frozenset[str]] = {lang: frozenset(w.split()) for lang, w in _RAW.items()}

# Chinese function words and characters: particles, pronouns, question words. Left out as
# words (a segmenter's output) and as single characters; bigrams across them are kept, since
# a character that is a particle alone is often half of a content word (现在, 太阳).
CJK_STOP_WORDS = frozenset(
    """什么 怎么 怎样 哪里 哪儿 哪个 哪些 为什么 是不是 有没有 我们 你们 他们 她们 它们
    自己 这个 那个 这些 那些 这里 那里 一下 一个 一些 已经 还是 或者 但是 因为 所以 如果
    然后 可以 就是 没有 不是""".split()
)
CJK_STOP_CHARS = frozenset(
    "的了是在吗呢吧啊呀哦嗯和与也就都还又这那个么着过把被让给对从向很太我你他她它们谁哪"
)
