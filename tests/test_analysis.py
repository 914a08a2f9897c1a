"""Keyword terms in every language: folding, CJK bigrams, per-language stemming, and
recall that finds facts written in Chinese, German, French or Spanish, or in disguise."""

from __future__ import annotations

import pytest

from confidante import Context, Memory
from confidante.recall.analysis import fold, language, stem, terms

from conftest import ALICE, BOB


def test_fold_undoes_full_width_and_invisible_characters() -> None:
    assert fold("Ｂｅｒｌｉｎ　２０２３") == "berlin 2023"
    assert fold("vol\u200bun\u00adteer\u2060ing") == "volunteering"  # ZWSP, soft hyphen, WJ
    assert fold("ﬁnd Straße") == "find strasse"  # ligature, sharp s


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("I moved to Berlin last June", "en"),
        ("Ich bin im Juni nach Berlin gezogen", "de"),
        ("Je suis partie à Lyon avec ma sœur", "fr"),
        ("Me mudé a Madrid con mi hermana", "es"),
        ("我去年六月搬到了柏林", "zh"),
        ("私は東京に住んでいます", "ja"),
        ("Berlin!", "en"),  # nothing tells: English
        # an English contraction's tail is not French "s'"/"t'" nor Portuguese "em"
        ("Gina: Can't wait too!", "en"),
        ("Melanie: Sounds great, Caroline! Let's plan something special!", "en"),
        ("Gina: Go get 'em, Jon!", "en"),
        ("Il s'appelle Max et il t'aime", "fr"),
    ],
)
def test_language(text: str, lang: str) -> None:
    assert language(text) == lang


def test_cjk_text_is_read_as_bigrams_and_characters() -> None:
    assert terms("我搬到柏林") == ["我搬", "搬到", "到柏", "柏林", "搬", "到", "柏", "林"]
    assert terms("狗") == ["狗"] and terms("的") == []  # a lone particle says nothing
    assert terms("我在Berlin工作") == ["我在", "berlin", "工作", "工", "作"]


def test_each_language_stems_its_own_words() -> None:
    assert stem("wohnungen", "de") == stem("wohnung", "de")
    assert stem("chansons", "fr") == stem("chanson", "fr")
    assert stem("hermanas", "es") == stem("hermana", "es")
    assert terms("Die Wohnungen") == terms("die Wohnung")  # German function word and plural
    assert terms("Café") == terms("cafe") == terms("cafés")  # accents dropped after stemming


def test_recall_in_chinese_finds_the_fact_by_its_words(mem: Memory) -> None:
    ctx = Context.dm(ALICE)
    dog = mem.remember(ctx, "我家的狗叫旺财，今年三岁了").id
    mem.remember(ctx, "我周末喜欢去爬山")
    mem.remember(Context.dm(BOB), "我家的狗叫小黑")  # Bob's silo: never Alice's hit
    hits = mem.recall(ctx, "我的狗叫什么名字？")
    assert hits[0].fact.id == dog and hits[0].scores["bm25"] > 0
    assert all("小黑" not in h.fact.text for h in hits)


def test_recall_in_full_width_and_disguised_text(mem: Memory) -> None:
    ctx = Context.dm(ALICE)
    f = mem.remember(ctx, "Ｉ ｓｔａｒｔｅｄ ｖｏｌｕｎｔｅｅｒｉｎｇ at the shelter").id
    g = mem.remember(ctx, "my sister plays the pi\u200bano").id
    mem.remember(ctx, "the weather was grey")
    assert mem.recall(ctx, "volunteer")[0].fact.id == f
    assert mem.recall(ctx, "ｐｉａｎｏ")[0].fact.id == g


@pytest.mark.parametrize(
    ("fact", "other", "query"),
    [
        (
            "Ich habe zwei Wohnungen in Hamburg besichtigt",
            "Das Wetter war schön",
            "Welche Wohnung?",
        ),
        ("J'ai chanté trois chansons au mariage", "Il pleuvait toute la journée", "la chanson"),
        ("Mis hermanas viven en Sevilla", "Hoy hace mucho calor", "¿Dónde vive mi hermana?"),
    ],
)
def test_recall_in_european_languages(mem: Memory, fact: str, other: str, query: str) -> None:
    ctx = Context.dm(ALICE)
    f = mem.remember(ctx, fact).id
    mem.remember(ctx, other)
    hits = mem.recall(ctx, query)
    assert hits[0].fact.id == f and hits[0].scores["bm25"] > 0


def test_english_irregular_verbs_meet_their_base_form(mem: Memory) -> None:
    assert terms("I went to Paris and bought a bike") == terms("go to Paris buy a bike")
    assert terms("she goes") == terms("she go")
    assert terms("the left turn") != terms("the leave turn")  # "left": not only a verb
    ctx = Context.dm(ALICE)
    f = mem.remember(ctx, "Melanie: We went camping and I bought a tent")
    mem.remember(ctx, "Melanie: The tent in the shop was green")
    assert mem.recall(ctx, "what did Melanie buy when she would go camping?")[0].fact.id == f.id
