"""Issue 12, third pass: the general rules behind the misses of a held-out round, each with
positives and the ordinary sentences next to them that must stay. The sentences are written
here, not taken from any probe or evaluation set: card numbers grouped by dots or after a
card word, id and account cues by stem and abbreviation, PINs said digit by digit, typed
and disguised password words, user/password pairs, mixed-language copulas, named recovery
phrases in any language; arithmetic that is not a phone number; and in public memory,
written-out times, time ranges, named workplaces and Chinese names."""

from __future__ import annotations

import pytest

from confidante import Context, IdentifierRefused, Memory
from confidante.privacy.guard import public_text

from conftest import OWNER, assert_kept, assert_t3_found_and_redacted

OWNER_DM = Context.dm(OWNER)

# (text, category, the value that must not survive redaction)
T3 = [
    # 1. cards grouped by dots, after a card word in five languages, Amex 4-6-5
    ("Kartenzahlung mit 5105.1051.0510.5100 ging durch", "financial_account", "0510.5100"),
    ("pague con la tarjeta 3714.496353.98431", "financial_account", "496353"),
    ("ma CB : 4000 0566 5566 5556", "financial_account", "5566 5556"),
    ("信用卡 3530 1113 3330 0000", "financial_account", "3330 0000"),
    ("工资卡 6222 0000 1111 2222 333", "financial_account", "1111 2222"),
    # 2. id cues by stem and abbreviation, an article after the copula
    ("港澳通行证号码 C98765432", "gov_id", "C98765432"),
    ("die Steuer-Identifikationsnummer: 12 345 678 901", "gov_id", "678 901"),
    ("n° SS 1 89 05 49 588 157 80 pour la mutuelle", "gov_id", "588 157"),
    ("el NIE es el Y-2345678-Z", "gov_id", "2345678"),
    ("driver license # K4432-77810-55", "gov_id", "77810"),
    # 3. account cues: abbreviations, a bare "Konto", the bank code
    ("Kto.-Nr. 4455 6677 88 bei der Sparda", "financial_account", "6677"),
    ("überweis auf Konto 987654321", "financial_account", "987654321"),
    ("BLZ 100 205 00", "financial_account", "205 00"),
    # 4. PINs said digit by digit after any PIN or password word
    ("Sperr-PIN lautet 9 0 4 4", "credential", "9 0 4 4"),
    ("PIN code = 6.6.1.3", "credential", "6.6.1.3"),
    ("the passcode is 3-3-0-7", "credential", "3-3-0-7"),
    ("门禁密码 2 4 6 8", "credential", "2 4 6 8"),
    ("passcode 90210 for the locker", "credential", "90210"),
    ("Die Sperr-PIN ist die 8124", "credential", "8124"),
    ("Freischaltcode 99310", "credential", "99310"),
    ("keypad code 7719*", "credential", "7719"),
    ("employer ID (EIN) 98-7654321", "gov_id", "7654321"),
    ("Krankenversicherungsnummer: B987654321", "gov_id", "B987654321"),
    ("the code to open the shed is 3141", "credential", "3141"),
    ("el código para el portal es 5566", "credential", "5566"),
    ("put 8080 as the PIN", "credential", "8080"),
    ("PIN? 6612", "credential", "6612"),
    ("the PIN was reset to 0404", "credential", "0404"),
    # 5. password words typed wrong or disguised; user/password pairs
    ("pasword = Gloria1999", "credential", "Gloria1999"),
    ("my passwrod: xk3pL0m", "credential", "xk3pL0m"),
    ("pa$$word is Orca-7-Sea", "credential", "Orca-7-Sea"),
    ("la contrasenia es Tortuga!5", "credential", "Tortuga!5"),
    ("Kenwort für den Router: Igel2020", "credential", "Igel2020"),
    ("mot de pass : Baguette#9", "credential", "Baguette#9"),
    ("username marta / pass brisa2018", "credential", "brisa2018"),
    ("account: kevin, pw: Goalie22", "credential", "Goalie22"),
    ("wifi key: moonlit-Fox-88", "credential", "moonlit-Fox-88"),
    ("same password on every site, namely: Falcon!808", "credential", "Falcon!808"),
    # addresses: an abbreviated French street word; a famous address tied to someone after it
    ("on habite 12 bd Voltaire", "street_address", "12 bd Voltaire"),
    ("221B Baker Street is my address now", "street_address", "Baker"),
    ("meine Adresse ist Am Hang 12, 83700 Rottach", "street_address", "Am Hang 12"),
    # 6. a copula from another language
    ("密码 is sunny2023", "credential", "sunny2023"),
    ("口令 ist Zebra55", "credential", "Zebra55"),
    # 7. a recovery phrase named in any language, its words from no list
    (
        "Wiederherstellungsphrase lautet: kupfer nebel dach hafen fluss wolle kerze gabel "
        "birke tinte mantel spiegel",
        "credential",
        "kupfer nebel",
    ),
    (
        "phrase de récupération : rocher lampe fleuve pomme carton hibou tapis velours "
        "cigale miroir plume sable",
        "credential",
        "hibou tapis",
    ),
    # an international prefix marks a phone number, however short its groups
    ("le portable de ma soeur : +33 6 12 48 90 37", "phone", "48 90 37"),
    ("mein Passwort? Sommer!2031", "credential", "Sommer!2031"),
]

ORDINARY = [
    # a password word that ends a question is not followed by a password
    "Quel est un bon mot de passe ? J'utilise le même depuis des années",
    "¿Cuál es una buena contraseña? Siempre uso la misma",
    # 8. arithmetic round a long number, in four languages
    "2^31 = 2147483648 is the int limit",
    "8589934592 = 2^33, so it overflows",
    "3 hoch 20 ist 3486784401",
    "2的33次方是8589934592",
    "65536*65536 is a lot of pixels",
    # dotted numbers that are not card-shaped
    "pi is 3.1415926535 and e is 2.7182818284",
    "release 2023.10.1234.5678 ships today",
    # prose after a password or seed word
    "my password is compromised, I changed it",
    "la contraseña es guardada en el gestor",
    "mon mot de passe est enregistré dans Firefox",
    "my seed phrase is in a safe place, written on paper at home",
    "a seed is what you plant in spring and it grows into a tree later on",
    "I pinned 1 2 3 4 of the messages",
    "the pin is in the map",
    # numbers a parcel, a booking, a ticket carry
    "el paquete 5567789012 llegó ayer",
    "Paketnummer 00340434161094042557 ist unterwegs",
    "la réservation 4455667788 est confirmée",
    "my license expired in 2019-2020",
    "auf mein Konto kamen 1.250.000 Euro",
    "account 5 of 12 is done",
    "Das Passwort ist das gleiche wie vorher",
    "Die PIN ist die gleiche wie bei der alten Karte",
    "Der Gutscheincode lautet SOMMER24",
    "the door code is on the fridge",
    "the gateway answers on 192.168.178.1",
    "IMEI 490154203237518 del móvil viejo",
    "pedido n.º 6011000990139424 enviado",
    "Seriennummer 4012888888881881",
    "the zip code for the office is 94103",
    "the code of conduct is 1200 words",
    "the error code in the log is 4044",
    "the postal code for Berlin is 10115",
    "这张卡 2024 年到期",
    "饭卡余额 35 元",
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_third_pass_t3_forms_are_found_and_redacted(text: str, category: str, value: str) -> None:
    assert_t3_found_and_redacted(text, category, value)


@pytest.mark.parametrize("text", ORDINARY)
def test_third_pass_ordinary_sentences_are_kept(mem: Memory, text: str) -> None:
    assert_kept(mem, text)


# 9. public memory: written-out times and ranges are coarsened in the sentence's language
@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ("the owner swims at a quarter past seven daily", "quarter", "in the morning daily"),
        ("he naps at two thirty every day", "thirty", "every day"),
        ("mein Sohn geht um halb neun zur Schule", "halb neun", "Sohn geht"),
        ("sie kommt um Viertel vor sechs nach Hause", "Viertel", "sie kommt"),
        ("il rentre à sept heures et quart", "sept heures", "il rentre"),
        ("elle se couche à dix heures moins le quart", "dix heures", "elle se couche la nuit"),
        ("mi padre cena a las nueve y media", "nueve", "cena por la noche"),
        ("mi padre se acuesta a las 23:15", "23:15", "se acuesta por la noche"),
        ("siempre llega a la una en punto", "una en punto", "siempre llega"),
        ("她每天早上六点一刻出门", "一刻", "她每天"),
        ("the owner lifts weights 6-7am daily", "6-7", "daily"),
        ("she runs from 5:15 to 6 every morning", "to 6", "every morning"),
        ("the owner wakes at five forty-five", "forty", "early in the morning"),
        ("he logs off at ten past eleven daily", "ten past", "daily"),
        ("meine Mutter steht um fünf Uhr zwanzig auf", "zwanzig", "frühmorgens auf"),
        ("il se lève à cinq heures", "cinq heures", "tôt le matin"),
        ("elle mange à midi et quart", "et quart", "elle mange"),
        ("the owner works at St. Anne's Hospital", "Anne", "works at a local hospital"),
        ("her husband teaches at Maple Grove Clinic", "Maple", "a local clinic"),
    ],
)
def test_public_memory_coarsens_written_times_ranges_and_workplaces(
    mem: Memory, text: str, gone: str, kept: str
) -> None:
    f = mem.remember(OWNER_DM, text, "global")
    assert gone not in f.text and kept in f.text, f.text


@pytest.mark.parametrize(
    "text",
    ["王芳 喜欢短一点的回答", "Zoë und Jörg leiten das Training", "José trae el pan"],
)
def test_public_memory_refuses_names_in_any_script(mem: Memory, text: str) -> None:
    with pytest.raises(IdentifierRefused):
        mem.remember(OWNER_DM, text, "global")


@pytest.mark.parametrize(
    "text",
    [
        "most members answer within half an hour",
        "the museum opens at ten thirty on Sundays",
        "la bibliothèque ouvre à neuf heures",
        "I scored 3-2 in the final",
        "the city hospital is being renovated",
        "we grew from ten to eighty members this year",
    ],
)
def test_public_text_keeps_what_is_nobodys_routine(text: str) -> None:
    assert public_text(text) == text
