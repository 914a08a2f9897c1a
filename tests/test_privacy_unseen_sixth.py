"""Issue 12, sixth pass: the rules behind the misses and the two false refusals of a fifth
held-out round (written by someone who had read neither the detectors nor the dev data; its
first-run figures are in the README). Sentences written here, not taken from that set: national
numbers with a check digit named anywhere in the sentence (before or after), someone's
"Nummer", a code given before it is named, a security answer after "=" or after the question
in brackets, lower-case French and English streets before a postcode or a floor; and a SIRET
or a flight's gate, which are nobody's card or street, with what a review of the pass found
it refused wrongly (a safety problem, "none set", a booking number, "das Los Nummer")."""

from __future__ import annotations

import pytest

from confidante import Memory

from conftest import assert_kept, assert_t3_found_and_redacted

# (text, category, the value that must not survive redaction)
T3 = [
    ("36574261809 ist die Steuer-ID von Tom", "gov_id", "36574261809"),
    ("meine steuerliche Identifikationsnummer lautet 36 574 261 809", "gov_id", "261 809"),
    ("123456782, that's my BSN for the form", "gov_id", "123456782"),
    ("put 536228736 in the ssn box please", "gov_id", "536228736"),
    ("Peters Nummer: 0171 2345678", "phone", "2345678"),
    ("mum's number is 07700 900123", "phone", "900123"),
    ("449301 is the code my bank sent by sms", "credential", "449301"),
    ("228814 c'est le code de validation reçu", "credential", "228814"),
    ("respuesta secreta = Pirata", "credential", "Pirata"),
    ("Sicherheitsfrage (Geburtsort der Mutter) ist Hameln", "credential", "Hameln"),
    ("security qs: mother's maiden name Oduya", "credential", "Oduya"),
    ("envoie-le au 12 rue des lilas 69003 lyon", "street_address", "rue des lilas"),
    ("drop it at 41 maple ave, apt 3b", "street_address", "maple ave"),
]

ORDINARY = [
    "le SIRET de mon ancien employeur c'est 471 697 664 58374",
    "Flug LH 1402, Gate A38, Boarding 11:10",
    "ssn is on file, order 123456789 shipped",
    "error 4044 is the code the login page shows",
    "2024 is the code freeze year for the sms gateway",
    "Ottos Nummer 7 im Team",
    "the team's number 23 shirt sold out",
    "the security question (first pet) is easy to guess",
    "the 5 main street shops, 2nd floor has a cafe",
    # found by a review of the pass: safety problems, non-answers, booking numbers, articles
    "食品安全问题：这家餐厅被罚款了",
    "这是个安全问题：电线老化了",
    "我忘了密保问题的答案。",
    "安全问题的答案是什么？",
    "我把密保问题的答案写在本子上了。",
    "mother's maiden name: unknown",
    "Security question: none set",
    "Sicherheitsfrage: keine Ahnung",
    "The security questions: first pet, first school, first car.",
    "Das Los Nummer 1234567 hat gewonnen!",
    "Der Kurs Nummer 4711 0815 ist voll",
    "Passport appointment booked, confirmation: 48213377",
    "DNI appointment reference: 20240315",
    "Ausweis beantragt, Vorgangsnummer: 20240315",
    "Personal best: 10000000 steps this year",
    "Ich war nie: 12345678",
    "El documento 2024-0315-77 ya está firmado",
    "SSN office called about case 123456789 today",
    "BSN aanvraag duurt lang, dossier 111222333",
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_sixth_pass_t3_forms_are_found_and_redacted(text: str, category: str, value: str) -> None:
    assert_t3_found_and_redacted(text, category, value)


@pytest.mark.parametrize("text", ORDINARY)
def test_sixth_pass_ordinary_sentences_are_kept(mem: Memory, text: str) -> None:
    assert_kept(mem, text)
