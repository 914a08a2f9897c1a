"""Issue 22, part 7, third pass: the rules behind the misses of the eighth held-out round
(`benchmarks/data/pii_heldout_eighth.jsonl`, first run in the closing note). Sentences
written here, none taken from that set, each a case of a rule in one of the five languages:

- a code named by what it opens, in the same clause: whole after a code word, a colon or a
  copula; one digit at a time with separators; spelled out (privacy/codes.py);
- a network key after the network's name, an account and its secret one after the other, a
  password on a command line, a value pointing at its password word, a passphrase of plain
  words;
- a security answer after "I put", "j'ai mis", "puse", "我填的是";
- a seed phrase named with a few Chinese characters before its colon;
- nine or more digits read out that make a valid phone number, with no phone word before;
- a login "user / password" whose password is made up, in the middle of a sentence;
- "ät" for @, "SV-Nummer" as the name of a German id;

and what must stay: years, times, prices and measures after the same words, flats and
goals, talk about codes and passphrases with no value."""

from __future__ import annotations

import pytest

from confidante import Memory

from conftest import assert_kept, assert_t3_found_and_redacted

# (text, category, the value that must not survive redaction)
T3 = [
    # a code after what it opens
    ("the side gate keypad was changed, code is now 7-3-0-5", "credential", "7-3-0-5"),
    ("storage unit lock box: 2 9 4 1, top shelf key", "credential", "2 9 4 1"),
    ("Garagentor klemmt, der Code lautet 5518", "credential", "5518"),
    ("Wohnungstür-Code ist 8274, bitte nicht weitersagen", "credential", "8274"),
    ("Die PUK von meinem alten Handy lautet 48201937", "credential", "48201937"),
    ("Alarmanlage Büro: Code acht-drei-null-eins, dann AUS", "credential", "acht-drei-null-eins"),
    ("le cadenas du vélo : 0-5-8-2", "credential", "0-5-8-2"),
    ("coffre-fort de l'appart, j'ai mis 6 6 1 9 comme code", "credential", "6 6 1 9"),
    ("el candado de la taquilla: puse 3-1-4-7", "credential", "3-1-4-7"),
    ("telefonillo del portal: marca 2 7 7 0 y sube", "credential", "2 7 7 0"),
    ("保险箱密码改了，新的是 #4471*2", "credential", "#4471*2"),
    ("取款密码四位：五 二 八 六", "credential", "五 二 八 六"),
    ("code pin de ma nouvelle carte : sept, un, quatre, deux", "credential", "sept, un, quatre"),
    ("PIN der Kreditkarte, falls du tanken musst: 3 9 1 7", "credential", "3 9 1 7"),
    # a network key, an account then its secret, a command line, a pointer, a passphrase
    ("WLAN im Ferienhaus: Speedport 3, Schlüssel 1182 4409 7735 2261", "credential", "1182 4409"),
    ("wifi chez Paul : Freebox-91C2 / clé Wq8zTn3LpX5vRk2", "credential", "Wq8zTn3LpX5vRk2"),
    ("banca del trabajo: usuario 77120458, clave 551903", "credential", "551903"),
    ("run mysql -u app -p'Harbour!2044' against the replica", "credential", "Harbour!2044"),
    ("psql fails but sshpass -p Kq7#vault22 ssh pi@nas works", "credential", "Kq7#vault22"),
    ("Lantern88x <- that's the kiosk admin password", "credential", "Lantern88x"),
    ("my backup passphrase is quiet orchard behind the mill", "credential", "quiet orchard"),
    (
        "router admin is admin / Mx7!harbor22 if the internet dies again",
        "credential",
        "Mx7!harbor22",
    ),
    # security answers after "I put"
    ("security question (first pet's name) I put Biscuit, remember that", "credential", "Biscuit"),
    ("question secrète (ville de naissance) j'ai mis Quimper, pas Brest", "credential", "Quimper"),
    ("密保问题「我的小学叫什么」我填的是 实验小学，别忘了", "credential", "实验小学"),
    # a seed phrase named with a few characters before its colon
    (
        "助记词抄一下：河流 森林 星星 月亮 石头 雨伞 书本 灯笼 海洋 苹果 时间 勇敢",
        "credential",
        "河流 森林",
    ),
    # nine or more digits read out, no phone word
    (
        "zéro sept, douze, trente-quatre, cinquante-six, soixante-dix-huit, garde-le",
        "phone",
        "trente-quatre",
    ),
    (
        "seis, cero, nueve, uno, dos, tres, cuatro, cinco, seis — el del electricista",
        "phone",
        "nueve, uno",
    ),
    # contacts and ids
    ("schreib mir an lena.kraus ät posteo punkt de", "email", "posteo"),
    ("meine SV-Nummer: 65120489K275", "gov_id", "65120489K275"),
]

ORDINARY = [
    "the garage was built in 1984 and still has the old door",
    "alarm: 0630, then coffee and a run",
    "la porte: 1830, on ferme le magasin",
    "the gate is 2345 meters up the road, you can't miss it",
    "Tore: 1 2 3 4 in der zweiten Halbzeit, unglaublich",
    "door 1-2-3-4 are the flats on the left side",
    "the door prize was 2500 dollars this year",
    "保险箱里有2000块现金，下次带去银行",
    "密码锁坏了，花了350修好",
    "银行卡密码忘了，去柜台重置要带身份证",
    "our gate code changed again, ask me when you arrive",
    "the keypad shows error 4-0-4 every morning",
    "el portal es de 1920, muy bonito",
    "die Tür ist seit 2019 kaputt und keiner repariert sie",
    "my backup passphrase is in my notes app",
    "my passphrase is something only I know",
    "mysql -u root -p and then type it when it asks",
    "the password manager is open <- that's the one I use",
    "wifi at the cafe, the password is on the board",
    "el candado mide 4 por 6 centímetros",
    "la caja fuerte del hotel pesa 40 kilos",
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_eighth_pass_t3_forms_are_found_and_redacted(text: str, category: str, value: str) -> None:
    assert_t3_found_and_redacted(text, category, value)


@pytest.mark.parametrize("text", ORDINARY)
def test_eighth_pass_ordinary_sentences_are_kept(mem: Memory, text: str) -> None:
    assert_kept(mem, text)
