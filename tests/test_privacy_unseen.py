"""Issue 12, second pass: the causes behind what an independent held-out set found. Each
case is written here in its own words (not the evaluator's sentences) so that the rule, not
the sentence, is what passes: cues in compounds and after punctuation, values in disguise,
ordinary numbers that only look like phone numbers, famous public addresses, and what public
memory must not hold (name pairs, routine times in any language, sub-city places)."""

from __future__ import annotations

import pytest

from confidante import Context, IdentifierRefused, Memory, PrivateDataRefused
from confidante.config import Settings
from confidante.privacy import T3_CATEGORIES, classify, generalise

from conftest import ALICE, OWNER, assert_kept, assert_t3_found_and_redacted

OWNER_DM = Context.dm(OWNER)

# (text, category, the value that must not survive redaction)
T3 = [
    # e-mails: after a colon with no space, with accents, spelled out in other languages
    ("mail:kasia.nowak@onet.pl", "email", "kasia.nowak@onet.pl"),
    ("电子邮箱：zhao.lei@sina.com", "email", "zhao.lei@sina.com"),
    ("schreib an jürgen.weiß@gmx.de", "email", "weiß@gmx"),
    ("mein Mail ist anna punkt berg at mailbox punkt org", "email", "mailbox"),
    ("c'est marc arobase free point fr", "email", "marc arobase free"),
    ("es lucia arroba yahoo punto es", "email", "lucia arroba yahoo"),
    ("邮箱 liming 艾特 qq 点 com", "email", "liming"),
    ("write to t . berg @ proton . me", "email", "t . berg"),
    ("it's j.doe88 at outlook.com", "email", "j.doe88"),
    # phones: digits as words after a cue, Chinese numerals, a comma before the copula
    ("my cell is nine one seven, five five five, two three four eight", "phone", "two three"),
    ("mi móvil es seis uno dos, tres cuatro cinco, seis siete ocho", "phone", "seis siete"),
    ("手机号是一五九一二三四五六七八", "phone", "一五九一二三四五六七八"),
    # cards: an expiry or CVV straight after, Maestro and other ranges after a card word
    ("5425 2334 3010 9903 12/29 is the card", "financial_account", "3010 9903"),
    ("Maestro-Karte 6763 0000 0000 0000 08", "financial_account", "6763 0000"),
    ("CVV: 731", "financial_account", "731"),
    ("le cryptogramme est 552", "financial_account", "552"),
    # government ids: compound cue words, dashes, lower case
    ("die Ausweis-Nr. lautet L01X00T47", "gov_id", "L01X00T47"),
    ("meine Steuer-IdNr-Nummer: 86095742719", "gov_id", "86095742719"),
    ("NIE Z-7654321-H para el contrato", "gov_id", "7654321"),
    ("curp boxw310820hnerxn09 por favor", "gov_id", "boxw310820hnerxn09"),
    # accounts named in French, German, Spanish; CLABE and CBU after their names
    ("mon numéro de compte chez LCL c'est le 0012345J678", "financial_account", "0012345J678"),
    ("Kontonr. 7654321098 bei der Volksbank", "financial_account", "7654321098"),
    ("la CLABE es 032180000118359719", "financial_account", "032180000118359719"),
    ("CBU 2850590940090418135201", "financial_account", "2850590940090418135201"),
    # secrets: cue words with a few words between, compounds, digicodes
    ("Kennwort zum Firmen-VPN: Tannenbaum#12", "credential", "Tannenbaum#12"),
    ("le code de l'immeuble c'est 12B45", "credential", "12B45"),
    ("la clave del router de casa es Xq7-mP2k9", "credential", "Xq7-mP2k9"),
    # recovery phrases: a cue in any language, or a valid BIP-39 checksum with no cue
    (
        "Seed meiner Wallet: legal winner thank year wave sausage worth useful legal winner "
        "thank yellow",
        "credential",
        "sausage worth",
    ),
    (
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon "
        "abandon about",
        "credential",
        "abandon about",
    ),
    # addresses with no street word: a residence cue, or a postcode and town after
    ("nos mudamos a Los Aromos 2230, Vitacura", "street_address", "Los Aromos 2230"),
    ("wir wohnen Im Grund 7 in 79100 Freiburg", "street_address", "Im Grund 7"),
    ("I live at 221B Baker Street with my landlady", "street_address", "221B Baker"),
    ("上海市静安区南京西路1266弄8号", "street_address", "1266弄8号"),
    ("地址是西安市雁塔区长安南路东段88号", "street_address", "88号"),
    # a verb phrase between the cue and the value; a code noun with a short code
    ("mein Personalausweis hat die Nummer L7H4K2R19", "gov_id", "L7H4K2R19"),
    ("Sicherheitscode der Haustür: 93A7", "credential", "93A7"),
    # driving licences in other languages; 2FA recovery codes; a code in a compound noun
    ("mi carné de conducir es 48215736", "gov_id", "48215736"),
    ("numéro de permis 09AB77123", "gov_id", "09AB77123"),
    ("my recovery codes are 3381-9920 and 1174-5521", "credential", "3381-9920"),
    ("Schließfachcode 7-2-9-4", "credential", "7-2-9-4"),
    ("寄到上海市徐汇区衡山坊8号", "street_address", "8号"),
    # a French filler word ("bref") is not a reference number
    ("bon, bref, mon portable c'est 07 81 44 20 93", "phone", "07 81 44 20 93"),
]

# Ordinary chat that only looks like T3.
ORDINARY = [
    "the golden ratio is 1.6180339887, roughly",
    "Eulers Zahl ist 2.718281828459",
    "this week's numbers: 3 9 14 27 38 and bonus 5",
    "la serie 05 10 15 20 25 sube de cinco en cinco",
    "Lottozahlen vom Samstag: 2 13 24 31 40 49",
    "call the free hotline 0800 33 66 123 for help",
    "客服热线 400-610-0000 全天服务",
    "Teilenummer 0176-4455-123 für den Filter",
    "numéro de suivi 4412 3345 6678, colis en route",
    "seguimiento de Estafeta 8055 1234 5678",
    "the most common PIN is 1234, change yours",
    "2024-06-01 09:15 backup finished",
    "Charge 2023-1102-07 wurde zurückgerufen",
    "le 11 Downing Street est la résidence du chancelier",
    "the White House is at 1600 Pennsylvania Avenue in Washington",
    "Sherlock Holmes lived at 221B Baker Street in the novels",
    "der Bundestag tagt am Platz der Republik 1",
    "ich wohne seit 3 Jahren in Köln",
    "vivo en Sevilla 6 meses al año",
    "we were at the dot com party in 1999",
    "look at google dot com for the answer",
    "j'habite Paris 15e depuis 2010",
    "le musée d'Orsay est au 1 rue de la Légion d'Honneur",
    "die Botschaft ist in der Wilhelmstraße 70 in Berlin",
    "el estadio está en Avenida de Concha Espina 1",
    "on compte 1 234 567 890 étoiles, à peu près",
    "spelling words: ocean river mountain valley forest desert island canyon mirror meadow "
    "fossil volcano",
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_unseen_t3_forms_are_found_and_redacted(text: str, category: str, value: str) -> None:
    assert_t3_found_and_redacted(text, category, value)


@pytest.mark.parametrize(("text", "category", "value"), T3[:8])
def test_unseen_t3_is_refused_through_the_library(
    backend: str, key: bytes, text: str, category: str, value: str
) -> None:
    with Memory.open(backend, owner_ids=[OWNER], master_key=key) as m:
        with pytest.raises(PrivateDataRefused) as e:
            m.remember(Context.dm(ALICE), text)
        assert category in e.value.categories
        assert value not in str(e.value)
        assert m.store.count_facts() == 0


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_numbers_and_public_addresses_are_kept(mem: Memory, text: str) -> None:
    assert_kept(mem, text)


def test_a_famous_address_is_private_once_someone_lives_there() -> None:
    for text in ("we live at 10 Downing Street now", "ship it to 1600 Pennsylvania Avenue"):
        assert "street_address" in {f.category for f in classify(text)}, text
    assert not classify("10 Downing Street said no", T3_CATEGORIES)


def test_recovery_words_without_a_cue_or_checksum_are_prose() -> None:
    # twelve list words, no seed word, no valid checksum: a list of things, not a wallet
    text = "buy apple banana orange lemon melon cherry grape mango salad bread butter cheese"
    assert not classify(text, T3_CATEGORIES)


def test_redact_mode_keeps_the_sentence_around_a_spelled_email(backend: str, key: bytes) -> None:
    s = Settings(privacy_mode="redact")
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, settings=s) as m:
        f = m.remember(Context.dm(ALICE), "écris à paul point roux arobase laposte point net")
        assert f.text == "écris à [EMAIL]"


# Public memory: what the owner writes for every audience.
@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Nina Okafor keeps the spreadsheet", "person_name"),
        ("Herr Albrecht Vogel repariert das Dach", "person_name"),
        ("Camille Roux gère les inscriptions", "person_name"),
        ("Hélène Garnier tient la caisse", "person_name"),
        ("Sergio Paredes trae la guitarra", "person_name"),
        ("赵敏是我们的队长", "person_name"),
        ("我们和周杰一起去", "person_name"),
        ("on se retrouve rue Mouffetard", "fine_geo"),
        ("wir treffen uns in der Bergmannstraße", "fine_geo"),
        ("quedamos en la calle Fuencarral", "fine_geo"),
        ("el taller está en el barrio de Gràcia", "fine_geo"),
        ("elle va au lycée Victor-Duruy", "fine_geo"),
        ("the admin is 293847561029384756.", "actor_id"),
    ],
)
def test_public_memory_refuses_identifiers_it_cannot_coarsen(
    mem: Memory, text: str, category: str
) -> None:
    with pytest.raises(IdentifierRefused) as e:
        mem.remember(OWNER_DM, text, "global")
    assert category in e.value.categories


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ("mein Vater geht jeden Abend um 21:15 spazieren", "21:15", "jeden Abend abends"),
        ("il prend le bus tous les matins à 6h50", "6h50", "tous les matins tôt le matin"),
        ("mi hermana sale del trabajo a las 17:45", "17:45", "trabajo por la tarde"),
        ("他每天晚上十点半睡觉", "十点半", "他每天深夜睡觉"),
        ("she parks on Birch Lane and 4th", "Birch", "parks on a street corner"),
        ("elle prend son café chaque matin à 7h05", "7h05", "chaque matin tôt le matin"),
        ("我每天下午4点接孩子", "4点", "我每天下午接孩子"),
        ("the twins finish swim practice at 4:50pm", "4:50", "in the afternoon"),
        ("he walks the dog on 9th and Elm", "9th", "on a street corner"),
    ],
)
def test_public_memory_generalises_in_the_sentences_language(
    mem: Memory, text: str, gone: str, kept: str
) -> None:
    f = mem.remember(OWNER_DM, text, "global")
    assert gone not in f.text and kept in f.text, f.text


@pytest.mark.parametrize(
    "text",
    [
        "Ada Lovelace wrote the first program",
        "la Tour Eiffel brille le soir",
        "the bot posts the weekly digest at 9am",
        "Leonardo da Vinci painted the Mona Lisa",
        "我们周末在家休息",
    ],
)
def test_public_memory_keeps_what_names_nobody(mem: Memory, text: str) -> None:
    assert mem.remember(OWNER_DM, text, "global").text == text


def test_generalise_keeps_chinese_in_chinese() -> None:
    g = generalise("她每周一早上7:30去游泳")
    assert g.text == "她每周一清晨去游泳" and not g.remaining


def test_public_stats_hold_no_names_times_or_ids_in_other_languages(mem: Memory) -> None:
    for trigger in ("Tom Becker fragt nach dem Wetter", "李伟问天气", "ban 402918374650192837."):
        with pytest.raises(IdentifierRefused):
            mem.record_pattern(trigger, ["weather"])
    mem.record_pattern("er fragt jeden Morgen um 6:40 nach dem Wetter", ["weather"])
    mem.record_pattern("她每天晚上9:30问天气", ["weather"])
    stats = str(mem.public_stats())
    assert "6:40" not in stats and "9:30" not in stats
    assert "jeden Morgen frühmorgens nach dem Wetter" in stats and "她每天晚上问天气" in stats
    assert mem.audit()["ok"]
