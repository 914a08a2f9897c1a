"""Issue 12, fifth pass: the rules behind the misses of a fresh held-out round (written by
someone who had not read the detectors), each with positives and the ordinary sentences beside
them that must stay. Sentences written here, not taken from that set: one-time codes in digit
groups after their name, the answer to a security question, a recovery phrase whose name ends
the sentence before it, identity-document numbers of letters and digits, Swiss and Belgian ids
by checksum, a lower-case DNI letter, streets typed in lower case before their town, a label's
street line above its postcode line; and password managers, which are not passwords."""

from __future__ import annotations

import pytest

from confidante import Memory

from conftest import assert_kept, assert_t3_found_and_redacted

# (text, category, the value that must not survive redaction)
T3 = [
    ("the login code they sent me is 804 117, does it expire?", "credential", "117"),
    ("code de vérification : 55 20 91", "credential", "55 20 91"),
    ("Einmalcode 3 0 9 4 1 7 bitte schnell", "credential", "9 4 1 7"),
    ("短信码是 771 204", "credential", "771 204"),
    ("respuesta de la pregunta de seguridad: Chispita", "credential", "Chispita"),
    ("question de sécurité (ville de naissance) : Quimper", "credential", "Quimper"),
    ("Sicherheitsfrage Lieblingslehrer, Antwort: Herr Voss", "credential", "Voss"),
    ("密保问题的答案是 红星小学", "credential", "红星小学"),
    ("my mother's maiden name is Oduya", "credential", "Oduya"),
    (
        "where do I keep my recovery phrase? it's acoustic bridge canyon dove early fabric "
        "gallery harvest island jungle kitchen lemon",
        "credential",
        "canyon dove",
    ),
    ("Reisepassnummer C01X00T47, läuft bald ab", "gov_id", "C01X00T47"),
    ("numéro de ma CNI : 880692310285", "gov_id", "880692310285"),
    ("mein Ausweis, Nummer mit Prüfziffer: T220001293", "gov_id", "T220001293"),
    ("AHV 756.1234.5678.97 für die Krankenkasse", "gov_id", "5678"),
    ("rijksregisternummer 85.07.30-033.28", "gov_id", "033"),
    ("mi dni es 12345678-z", "gov_id", "12345678"),
    ("steuer id 12 345 678 903 fürs Finanzamt", "gov_id", "678 903"),
    ("pick me up at 12 lark lane liverpool l17 8uu", "street_address", "lark lane"),
    ("vivo en avenida de la paz 33 sevilla", "street_address", "paz 33"),
    ("meine neue adresse: lindenstraße 14", "street_address", "lindenstraße 14"),
    ("Herr Berger\nAm Mühlbach 9\n80331 München", "street_address", "Mühlbach 9"),
]

ORDINARY = [
    "the verification code expires in 10 minutes",
    "my security code for the building changed in 2023",
    "the login code page has 1200 visits",
    "security questions are useless: anyone can google them",
    "Sicherheitsfrage: Name des ersten Haustiers",
    "my mother's maiden name is on the form",
    "mon gestionnaire de mots de passe est top",
    "mi gestor de contraseñas es buenísimo",
    "my passport is in the DRAWER2024 box",
    "mi pasaporte caduca en 2027",
    "en la calle hace 30 grados hoy",
    "ich wohne in der hauptstraße 5 minuten vom bahnhof",
    "die bahnhofstraße 3 mal umrundet",
    "we ran 5 miles down the road today",
    "Seite 3\n50667 Besucher heute",
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_fifth_pass_t3_forms_are_found_and_redacted(text: str, category: str, value: str) -> None:
    assert_t3_found_and_redacted(text, category, value)


@pytest.mark.parametrize("text", ORDINARY)
def test_fifth_pass_ordinary_sentences_are_kept(mem: Memory, text: str) -> None:
    assert_kept(mem, text)
