"""Issue 12: T3 in Chinese, German, French and Spanish, in Unicode disguise, and the
international address and phone formats; each refused through the real library, and the
ordinary chat around them (prices, order numbers, versions, dates, scores) kept."""

from __future__ import annotations

from itertools import pairwise

import pytest

from confidante import Context, Memory, PrivateDataRefused
from confidante.config import Settings
from confidante.privacy import T3_CATEGORIES, classify, redact
from confidante.privacy.normalise import fold

from conftest import ALICE, OWNER

# (text, category, the value that must not survive redaction)
T3 = [
    # Chinese
    ("我的身份证号码是11010519491231002X,别告诉别人", "gov_id", "11010519491231002X"),
    ("你打我手机吧:13912345678", "phone", "13912345678"),
    ("座机 021-63581234 下午有人", "phone", "021-63581234"),
    ("他的支付密码是Qw8899zx", "credential", "Qw8899zx"),
    ("网银登录密码:hello2024", "credential", "hello2024"),
    ("工资卡卡号6217000010012345678", "financial_account", "6217000010012345678"),
    ("寄到广州市天河区体育西路191号中石化大厦B塔", "street_address", "体育西路191号"),
    ("我家在杭州市西湖区文三路478号3幢1单元502室", "street_address", "文三路478号"),
    # German
    ("Mein Kennwort lautet Blumenwiese77", "credential", "Blumenwiese77"),
    ("die Geheimzahl meiner Karte ist 7391", "credential", "7391"),
    ("Ruf mich an unter 0151 23456789", "phone", "0151 23456789"),
    ("Ich wohne in der Lindenallee 23, 50968 Köln", "street_address", "Lindenallee 23"),
    ("meine IBAN: de44 5001 0517 5407 3249 31", "financial_account", "5407 3249 31"),
    # French
    ("mon mot de passe c'est Papillon!88", "credential", "Papillon!88"),
    ("le digicode de l'immeuble est 4B729", "credential", "4B729"),
    ("mon portable : 07 81 23 45 67", "phone", "07 81 23 45 67"),
    ("j'habite au 8 boulevard Haussmann, 75009 Paris", "street_address", "boulevard Haussmann"),
    ("mon numéro de sécu est 2 69 05 49 588 157 80", "gov_id", "588 157 80"),
    # Spanish
    ("mi contraseña del banco es Lunes2023#", "credential", "Lunes2023#"),
    ("el PIN de la tarjeta es 0582", "credential", "0582"),
    ("mi celular es 55 8765 4321", "phone", "8765 4321"),
    ("Vivo en Avenida de la Constitución, 22, 41004 Sevilla", "street_address", "Constitución"),
    ("mi DNI es 12345678Z", "gov_id", "12345678Z"),
    # international addresses and phones after a cue
    (
        "Ship to: 500 Oracle Pkwy\nSuite 100\nRedwood City, CA 94065\nUnited States",
        "street_address",
        "94065",
    ),
    ("his address is CMR 480 Box 1234, APO AE 09128", "street_address", "Box 1234"),
    ("Mail: USNS Mercy, FPO AP 96672-3100", "street_address", "96672"),
    ("Rua Oscar Freire, 379 - Jardins, São Paulo", "street_address", "Oscar Freire, 379"),
    ("Phone: 0161 496 0753", "phone", "496 0753"),
    ("call me on 555-0199 after six", "phone", "555-0199"),
    ("Telefon: 089/2180 4567", "phone", "2180 4567"),
    ("meine Adresse: Unter den Eichen 5, 14195 Berlin", "street_address", "Eichen 5"),
    ("code wifi : chaton2021", "credential", "chaton2021"),
    ("el código de acceso es 9921", "credential", "9921"),
    ("Das Passwort für mein E-Mail-Konto ist Hund123", "credential", "Hund123"),
    ("TAN: 482913", "credential", "482913"),
    ("mon code de carte bleue est 4821", "credential", "4821"),
    ("el código de mi tarjeta es 4412", "credential", "4412"),
    ("工商银行 6222 0000 1111 2222 333", "financial_account", "1111 2222"),
    ("Rose Cottage, Mill Lane, Great Tew, OX7 4AH", "street_address", "Mill Lane"),
    ("Avenida 5 de Mayo 32, Centro, CDMX", "street_address", "5 de Mayo 32"),
    ("ul. Długa 8, 80-827 Gdańsk", "street_address", "Długa 8"),
    ("Mon IBAN : FR76 1020 7000 2604 0260 4310 224", "financial_account", "4310 224"),
    # keys and cards
    (
        "wallet key 0x8f2a559490a2d3e1c2f7d4b8e6a9c0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7",
        "credential",
        "8f2a559490a2d3e1c2f7d4b8e6a9c0b1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7",
    ),
    (
        "backup: KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn",
        "credential",
        "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn",
    ),
    ("UnionPay 6250 9460 0000 0016", "financial_account", "6250 9460 0000 0016"),
]

# Ordinary chat that looks risky: prices, order numbers, versions, dates, scores, counts.
ORDINARY = [
    "这件衣服打折后只要199元",
    "订单号 202311150001 已经发货了",
    "比赛最后3比2赢了",
    "我们2023年5月12日去了北京",
    "密码学这门课很难",
    "Das Update auf Version 2.14.3 hat alles repariert",
    "Bestellnummer 4471-2290-11 ist unterwegs",
    "Mein Passwort ist leider abgelaufen",
    "Wir haben 3:1 gewonnen",
    "Le billet coûte 49,90 € et le train part à 14h32",
    "j'ai oublié mon mot de passe encore une fois",
    "la commande 88231 est arrivée le 12/03/2024",
    "La contraseña es demasiado corta, dice la web",
    "la clave es tener paciencia",
    "el partido terminó 2-1 y costó 35 euros la entrada",
    "Pedido número 55012 entregado el 3 de mayo",
    "I paid $1,249.99 for order #118-2290034-5512",
    "we won 21-18 and then 21-15",
    "release 4.18.2 is out, see commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
    "the tx hash was 0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Calle 13 played their best songs",
    "我的学号 2020301234,在三班",
    "订单号 6201234567890123 还没发货",
    "公司去年营收 2020301234 元",
    "Wir waren 3, 12000 Leute kamen später",
    "El código promocional es VERANO20",
    "Die TAN kam per SMS",
    "我在工商银行存了 20000 元",
    "Route 66 road trip was amazing",
]

DISGUISES = [
    ("my pass\u200bword is Zebra-Crossing-991", "credential"),
    ("email me at jane\u00ad.doe\uff20example.org", "email"),
    ("my card is \uff14\uff11\uff11\uff11 1111 1111 1111", "financial_account"),
    ("ssn 123\u2011456\u2011789".replace("456", "45").replace("789", "6789"), "gov_id"),
    ("my p\u0430ssw\u043erd is Tr0ub4dor&3", "credential"),  # Cyrillic a and o
    ("call me: 415\u00a0555\u00a00132", "phone"),
    ("\u202emy password is Secr3t-Horse-42", "credential"),
    ("我的密码是\uff41\uff42\uff43\uff11\uff12\uff13\uff14\uff15\uff16", "credential"),
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_international_t3_is_found_and_redacted(text: str, category: str, value: str) -> None:
    found = classify(text)
    assert category in {f.category for f in found}, text
    assert value not in redact(text, [f for f in found if f.category in T3_CATEGORIES])


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_chat_in_every_language_is_kept(mem: Memory, text: str) -> None:
    assert not {f.category for f in classify(text)} & T3_CATEGORIES, text
    assert mem.remember(Context.dm(ALICE), text).text == text


@pytest.mark.parametrize(("text", "category"), DISGUISES)
def test_disguised_t3_is_refused_and_redacted_in_the_original(
    backend: str, key: bytes, text: str, category: str
) -> None:
    with Memory.open(backend, owner_ids=[OWNER], master_key=key) as m:
        with pytest.raises(PrivateDataRefused) as e:
            m.remember(Context.dm(ALICE), text)
        assert category in e.value.categories
    s = Settings(privacy_mode="redact")
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as m:
        f = m.remember(Context.dm(ALICE), text)
        assert f"[{category.upper()}]" in f.text
        # what is left of the original holds no digit run or word of the value
        leftover = fold(f.text).text
        assert not {x.category for x in classify(leftover)} & T3_CATEGORIES


def test_folding_maps_spans_back_to_the_original() -> None:
    text = "ok \u200b\u200bmail: bob\uff20example\uff0ecom \u2014 thanks"
    (f,) = [f for f in classify(text) if f.category == "email"]
    assert text[f.start : f.end] == "bob\uff20example\uff0ecom"
    folded = fold("卡号6222\u00ad0212")
    assert folded.text == "卡号 62220212"
    assert folded.span(3, len(folded.text)) == (2, len("卡号6222\u00ad0212"))


def test_stored_text_is_the_original_not_the_folded_copy(mem: Memory) -> None:
    text = "\ufb01ne weather in \uff2byoto \u2014 we walked\u00a0all day"
    assert mem.remember(Context.dm(ALICE), text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "caf\u0065\u0301 \u00bd \ufb01 \u2460 \u00b2 x",
        "\u200b\u200b\u00ad\u202e\u2066\U000e0041\U000e0042tag",
        "\u0661\u0662\u0663 \u096a\u096b \uff11\uff12",
        "\ud55c\uad6d\uc5b4 \u1100\u1161 mixed abc123 \u6f22\u5b57abc",
        "\u0420\u0430\u0441\u0441\u0432\u0435\u0442 p\u0430ss",
    ],
)
def test_folding_keeps_a_monotonic_map_into_the_original(text: str) -> None:
    folded = fold(text)
    ends = [folded.span(i, i + 1) for i in range(len(folded.text))]
    assert all(0 <= start < end <= len(text) for start, end in ends)
    assert all(a[0] <= b[0] for a, b in pairwise(ends))
    assert not any(ch in folded.text for ch in "\u200b\u00ad\u202e\u2066\U000e0041")
