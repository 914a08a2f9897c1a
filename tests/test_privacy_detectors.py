"""The privacy classifier: per-category positives and negatives, redaction, generalisation.

The sentences here are phrased differently from the benchmark's dev set on purpose: they
check that the detectors generalise rather than fit those examples.
"""

from __future__ import annotations

import logging
import time
from itertools import pairwise

import pytest

from confidante.privacy import (
    IDENTIFIER_CATEGORIES,
    T3_CATEGORIES,
    Change,
    Finding,
    Generalised,
    classify,
    generalise,
    redact,
)


def categories(text: str) -> set[str]:
    return {f.category for f in classify(text)}


# (text, category, the value that must never survive redaction)
POSITIVES = [
    # credentials
    (
        "new openai key sk-9mXq2LpR7vT4nB8kW3zD6fH1jC5gA0sE2uI7oP4tY",
        "credential",
        "sk-9mXq2LpR7vT4nB8kW3zD6fH1jC5gA0sE2uI7oP4tY",
    ),
    ("my access key id is AKIAIOSFODNN7EXAMPLE", "credential", "AKIAIOSFODNN7EXAMPLE"),
    (
        "export GITHUB_TOKEN=ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8B",
        "credential",
        "ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8B",
    ),
    (
        "the gitlab token glpat-xY7zQ2mN8pL4kR9vW3tB is for the runner",
        "credential",
        "glpat-xY7zQ2mN8pL4kR9vW3tB",
    ),
    (
        "stripe test key sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "credential",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    ),
    (
        "token: eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyMSJ9.c2lnbmF0dXJlX2hlcmVfeHl6",
        "credential",
        "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyMSJ9.c2lnbmF0dXJlX2hlcmVfeHl6",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEA7bq98",
        "credential",
        "MIIEowIBAAKCAQEA7bq98",
    ),
    (
        "mongodb+srv://app_user:Pa55w0rd2024@cluster0.ab1cd.mongodb.net/test",
        "credential",
        "Pa55w0rd2024",
    ),
    ("the redis url is redis://:hunter2secret@10.0.0.5:6379/0", "credential", "hunter2secret"),
    ("my netflix password is BlueMoon!77", "credential", "BlueMoon!77"),
    ("my password is sunshine", "credential", "sunshine"),
    ("pw is qwerty2020, don't share it", "credential", "qwerty2020"),
    ("my laptop password? it's Dragonfly77", "credential", "Dragonfly77"),
    ("wifi: network HomeNet, password bluebird2021", "credential", "bluebird2021"),
    ("the admin password is 'kX8#pL2!nQ'", "credential", "kX8#pL2!nQ"),
    (
        "the master password for my vault is 'purple elephant dancing'",
        "credential",
        "purple elephant dancing",
    ),
    ("I changed my password to Pumpkin2024 yesterday", "credential", "Pumpkin2024"),
    ("lol my pin is literally 1234", "credential", "1234"),
    ("the door code is 4417#", "credential", "4417"),
    ("the code to my phone is 0815", "credential", "0815"),
    (
        "Use bearer token 3f9a1c7e5b2d8f0a6c4e9b1d7f3a5c8e2b0d6f4a for the API",
        "credential",
        "3f9a1c7e5b2d8f0a6c4e9b1d7f3a5c8e2b0d6f4a",
    ),
    (
        "the api secret is 7Hq2Lm9Xv4Rt8Kp3Wn6Zb1Yc5Fd0Gs",
        "credential",
        "7Hq2Lm9Xv4Rt8Kp3Wn6Zb1Yc5Fd0Gs",
    ),
    ("our shared netflix login is fam2024 / Popcorn!42", "credential", "Popcorn!42"),
    ("my email password is the same: Hunter#2024", "credential", "Hunter#2024"),
    ("the passcode for the shared drive is Falcon!92", "credential", "Falcon!92"),
    ("postgresql://postgres:superSecret123@localhost:5432/mydb", "credential", "superSecret123"),
    (
        "my seed phrase is witch collapse practice feed shame open despair creek road again ice "
        "least",
        "credential",
        "witch collapse practice",
    ),
    # email
    ("reach me via ANNA.K@WEB.DE", "email", "ANNA.K@WEB.DE"),
    ("invoice goes to billing+acme@stripe-mail.io", "email", "billing+acme@stripe-mail.io"),
    ("my backup address is jane [at] doe [dot] org", "email", "jane [at] doe [dot] org"),
    ("email tom dot lee at gmail dot com", "email", "lee at gmail dot com"),
    # phone
    ("my number is 555-201-8844", "phone", "555-201-8844"),
    ("call the landline 0161 496 0123", "phone", "0161 496 0123"),
    ("You can text me on +61 412 345 678", "phone", "+61 412 345 678"),
    ("meu celular é (11) 98765-4321", "phone", "98765-4321"),
    ("Mein Handy: 0171 2345678", "phone", "0171 2345678"),
    ("his mobile: 06 12 34 56 78", "phone", "06 12 34 56 78"),
    # street addresses
    ("I live at 7 Acacia Avenue", "street_address", "7 Acacia Avenue"),
    ("mail it to PO Box 1234, Austin TX 78701", "street_address", "PO Box 1234"),
    ("we're at 33 Hauptstraße, Munich", "street_address", "33 Hauptstraße"),
    ("mi dirección es Calle Mayor 12, Madrid", "street_address", "Calle Mayor 12"),
    ("I'm at 17 rue Oberkampf", "street_address", "17 rue Oberkampf"),
    ("i live at 44 oak street apt 2", "street_address", "44 oak street"),
    ("the apartment at 901 N Lake Shore Dr is ours", "street_address", "901 N Lake Shore Dr"),
    # government ids
    ("my social is 219-09-9999", "gov_id", "219-09-9999"),
    ("national insurance: AB123456C", "gov_id", "AB123456C"),
    ("my passport no is X12345678", "gov_id", "X12345678"),
    ("my Aadhaar is 2341 2341 2346", "gov_id", "2341 2341 2346"),
    ("meu CPF é 390.533.447-05", "gov_id", "390.533.447-05"),
    ("my driver's licence number is SMITH901015JJ9AA", "gov_id", "SMITH901015JJ9AA"),
    ("Driver License: F255-921-50-094-0", "gov_id", "F255-921-50-094-0"),
    # financial accounts
    ("use my Discover 6011 0009 9013 9424", "financial_account", "6011 0009 9013 9424"),
    ("cc number 5555555555554444 exp 10/28", "financial_account", "5555555555554444"),
    ("IBAN: ES91 2100 0418 4502 0005 1332", "financial_account", "ES91 2100 0418 4502 0005 1332"),
    ("send it to IBAN NL20INGB0001234567", "financial_account", "NL20INGB0001234567"),
    ("my account number is 12345678, sort code 40-47-84", "financial_account", "12345678"),
    ("routing 011000015 account 998877665544", "financial_account", "998877665544"),
    ("my acct # is 7744120033", "financial_account", "7744120033"),
]

IDENTIFIER_POSITIVES = [
    ("my sister Hannah is visiting next week", "person_name"),
    ("I'm meeting Jessica Alvarez for coffee", "person_name"),
    ("my boss, Mr. Patel, wants the slides", "person_name"),
    ("went climbing with Lukas and Mia", "person_name"),
    ("Yuki said the movie was great", "person_name"),
    ("Ingrid from the book club lent me this", "person_name"),
    ("let priya know the meeting moved", "person_name"),
    ("Best regards, Samuel Osei", "person_name"),
    ("dad's friend Viktor fixed the car", "person_name"),
    ("find me on twitter @sunny_dev42", "username"),
    ("DM me on Discord, I'm nightowl#0420", "username"),
    ("I post as u/quietmoose on reddit", "username"),
    ("my xbox gamertag is FrostByte77", "username"),
    ("add me on snap, I'm sk8rboi_99", "username"),
    ("the logs end up in /home/marta/.local/share/app.log", "home_path"),
    ("it's in C:\\Users\\Priya\\Downloads\\setup.exe", "home_path"),
    ("check ~/projects/secret-plan/notes.md", "home_path"),
    ("I wake up at 5:45 every weekday", "exact_time"),
    ("I get the bus at quarter past eight", "exact_time"),
    ("school pickup is at 3pm", "exact_time"),
    ("my alarm is set for 5:20", "exact_time"),
    ("we live in Williamsburg, Brooklyn", "fine_geo"),
    ("our apartment is in Le Marais", "fine_geo"),
    ("I live off Mission Street in San Francisco", "fine_geo"),
    ("my postcode is EC1A 1BB", "fine_geo"),
    ("coordinates 51.5007, -0.1246", "fine_geo"),
    ("lat 37.7749 lon -122.4194 is where I am", "fine_geo"),
    ("we're on the corner of Main and 3rd", "fine_geo"),
    ("I'm in the 11th arrondissement", "fine_geo"),
]

# Ordinary conversation: nothing here may be flagged at all.
NEGATIVES = [
    "I upgraded numpy to 1.26.4 and pandas to 2.2.1",
    "Python 3.12.1 broke my build",
    "order 1234567 arrived damaged",
    "my order number is 112-3456789-1234567",
    "it costs $1,299.99",
    "the population is 8,336,817",
    "the meeting is on 2024-03-15",
    "the flight leaves on 15.03.2024",
    "git checkout 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "UUID 550e8400-e29b-41d4-a716-446655440000",
    "md5 5d41402abc4b2a76b9719d911017c592",
    "forgot my password again, how do I reset it?",
    "the password must be at least 12 characters",
    "my password is too long to remember",
    "my password manager generates long passwords",
    "where do I find my API key?",
    "api_key = os.environ['API_KEY']",
    "password = getpass.getpass()",
    "the secret to good bread is patience",
    "the key is to stay consistent",
    "the token limit is 4096",
    "I played tennis with friends on Saturday",
    "I visited Tokyo and Kyoto last year",
    "we're moving to Amsterdam",
    "Albert Einstein developed relativity",
    "I read Stephen King books",
    "Taylor Swift released a new album",
    "Chelsea won the match",
    "Georgia is a state and a country",
    "I'll finish it by Friday",
    "see you in May",
    "use @dataclass for that",
    "mention @here in the channel",
    "user@example.com is the placeholder address",
    "the config is in /etc/hosts",
    "it happened 3 times",
    "aspect ratio 4:3",
    "I ran a 5k in 24:13",
    "the store opens at 9am",
    "the server restarts at 04:00",
    "error 404 not found",
    "the IP is 192.168.1.1",
    "the part number is 88-2231-009",
    "the lottery numbers were 4 8 15 16 23 42",
    "the meeting ID is 845 2931 0482",
    "ISBN 0-306-40615-2",
    "tracking: 9400 1000 0000 0000 0000 00",
    "I opened a savings account",
    "my credit score went up",
    "my social security office appointment is next week",
    "I need to renew my passport",
    "I live in a small town",
    "I moved to 3 different cities",
    "the street was closed for a parade",
    "Spring 2024 semester starts soon",
    "I sent 3 via Slack",
    "I reset my password on 2024-03-15",
    "I changed my password after the v2.0-beta release",
    "bus pass for 2024-Q3",
    "I listened to Billie Eilish",
    "the package number is 1Z 999 AA1 01 2345 6784",
    "the commit hash is 7d865e959b2466918c9863afca942d0fb89d7c9ac0c99bafc3749504ded97730",
]


@pytest.mark.parametrize(("text", "category", "value"), POSITIVES)
def test_t3_positives_are_found_and_redacted(text: str, category: str, value: str) -> None:
    found = classify(text)
    assert category in {f.category for f in found}
    redacted = redact(text, found)
    assert value not in redacted
    assert f"[{category.upper()}]" in redacted


@pytest.mark.parametrize(("text", "category"), IDENTIFIER_POSITIVES)
def test_identifier_positives(text: str, category: str) -> None:
    found = categories(text)
    assert category in found
    assert not found & T3_CATEGORIES, "identifiers alone must never be refused as T3"


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_conversation_is_not_flagged(text: str) -> None:
    assert categories(text) == set()


def test_categories_are_disjoint_and_complete() -> None:
    assert not T3_CATEGORIES & IDENTIFIER_CATEGORIES
    assert {
        "credential",
        "email",
        "phone",
        "street_address",
        "gov_id",
        "financial_account",
    } == T3_CATEGORIES
    assert {"actor_id", "person_name", "username", "home_path", "exact_time", "fine_geo"} == (
        IDENTIFIER_CATEGORIES
    )


def test_findings_are_sorted_and_do_not_overlap() -> None:
    text = (
        "reach Arjun on +91 98765 43210 or arjun.k@example.in; my password is "
        "Tr0ub4dor&3 and I live at 12 Oak Lane, Bristol BS8 1TH"
    )
    found = classify(text)
    assert [f.start for f in found] == sorted(f.start for f in found)
    for a, b in pairwise(found):
        assert a.end <= b.start
    assert {"phone", "email", "credential", "street_address", "person_name"} <= {
        f.category for f in found
    }


def test_reprs_never_hold_a_value() -> None:
    text = "my SSN is 536-22-8451 and my card is 4539 5260 1815 9083"
    for f in classify(text):
        assert text[f.start : f.end] not in repr(f)
    g = generalise(text)
    for change in g.changes:
        assert "536-22-8451" not in repr(change)
        assert "4539" not in repr(change)
    assert "536-22-8451" not in repr(g) and "4539 5260" not in repr(g)
    assert repr(Finding("email", 1, 5)) == "Finding(category='email', start=1, end=5)"


def test_redact_covers_overlapping_and_nested_spans() -> None:
    text = "a secret-value b"
    spans = [Finding("credential", 2, 14), Finding("credential", 4, 10)]
    assert redact(text, spans) == "a [CREDENTIAL] b"
    assert redact(text, []) == text


def test_detect_secrets_reads_no_settings_and_sends_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import detect_secrets.plugins.base as base
    import requests

    def forbidden(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("detect-secrets must not read settings or use the network")

    monkeypatch.setattr(base, "get_settings", forbidden)
    monkeypatch.setattr(requests.Session, "request", forbidden)
    value = "xoxb-2938475610-4829301928374-Ab3dEf9GhIjK2lMnOpQrStUv"
    with caplog.at_level(logging.DEBUG):
        assert "credential" in categories(f"the slack bot token is {value}")
    assert value not in caplog.text


# -- generalisation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "gone"),
    [
        ("I wake up at 6am every day.", "I wake up early in the morning every day.", "6am"),
        (
            "I go to the gym at 14:30 on Mondays",
            "I go to the gym in the afternoon on Mondays",
            "14:30",
        ),
        ("I usually go to bed at 11pm", "I usually go to bed at night", "11pm"),
        ("every day at noon I call my mom", "every day around midday I call my mom", "noon"),
        ("I live in Brooklyn, New York", "I live in New York", "Brooklyn"),
        ("our flat is in Kreuzberg", "our flat is in Berlin", "Kreuzberg"),
        ("I live in the Mission District", "I live in San Francisco", "Mission"),
        ("follow me @dev_marco", "follow me someone", "dev_marco"),
        (
            "the config lives in /home/alice/projects/config.yaml",
            "the config lives in a home folder",
            "alice",
        ),
        ("my postcode is SW1A 1AA", "my postcode is a local postcode", "SW1A"),
    ],
)
def test_generalise_coarsens_identifiers(text: str, expected: str, gone: str) -> None:
    g = generalise(text)
    assert isinstance(g, Generalised)
    assert g.text == expected
    assert gone not in g.text
    assert g.remaining == []
    assert g.changes and all(isinstance(c, Change) for c in g.changes)
    assert all(gone not in c.replacement for c in g.changes)


def test_generalise_reports_names_it_cannot_coarsen() -> None:
    g = generalise("my daughter Zoe starts school at 8:30")
    assert [f.category for f in g.remaining] == ["person_name"]
    name = g.remaining[0]
    assert g.text[name.start : name.end] == "Zoe"
    assert "8:30" not in g.text


def test_generalise_never_passes_t3_through() -> None:
    text = "my email is jane.doe@gmail.com"
    g = generalise(text)
    assert "jane.doe@gmail.com" not in g.text
    assert [f.category for f in g.remaining] == ["email"]
    remaining = g.remaining[0]
    assert g.text[remaining.start : remaining.end] == "[EMAIL]"


def test_generalise_leaves_clean_text_alone() -> None:
    text = "I like jogging in the early morning in Berlin"
    assert generalise(text) == Generalised(text, [], [])


@pytest.mark.parametrize(
    "text", ["a" * 20000, "\n" * 20000, "AKIA" * 5000, "x@y." * 5000, "Aa " * 6000, "4111 " * 4000]
)
def test_pathological_input_stays_linear(text: str) -> None:
    start = time.perf_counter()
    classify(text)
    generalise(text)
    assert time.perf_counter() - start < 3.0


def test_classify_is_fast_enough() -> None:
    texts = [text for text, _, _ in POSITIVES] + NEGATIVES
    classify(texts[0])
    start = time.perf_counter()
    for text in texts:
        classify(text)
    per_sentence = (time.perf_counter() - start) / len(texts)
    assert per_sentence < 0.005  # the benchmark measures ~0.2 ms; this only catches blow-ups
