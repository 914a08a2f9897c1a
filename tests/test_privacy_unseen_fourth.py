"""Issue 12, fourth pass: the rules behind a held-out round's last misses, each with
positives and the ordinary sentences beside them that must stay. Written here, not taken from
any evaluation set: an id named a few words before its value, a Canadian SIN by checksum, the
German ID card's short name, a French RIB given as its parts, a password "changed to" in
Chinese, Alibaba and Tencent cloud keys, a Chinese recovery phrase written without spaces, and
Galician street names."""

from __future__ import annotations

import pytest
from mnemonic import Mnemonic

from confidante import Memory

from conftest import assert_kept, assert_t3_found_and_redacted

_ZH_PHRASE = Mnemonic("chinese_simplified").to_mnemonic(bytes(range(16))).replace(" ", "")

# (text, category, the value that must not survive redaction)
T3 = [
    ("SIN on my T4 is 464 184 571", "gov_id", "184 571"),
    ("mon NAS: 464-184-571", "gov_id", "184-571"),
    ("my passport number for the visa application is X12345678", "gov_id", "X12345678"),
    ("my driver licence number for the rental was D1234-56789-01234", "gov_id", "56789"),
    ("Perso-Nummer L01X00T471", "gov_id", "L01X00T471"),
    ("meine Perso-Nr. ist T22000129, brauchst du die?", "gov_id", "T22000129"),
    ("RIB : banque 30004 guichet 00550 compte 00012345678 clé 25", "financial_account", "00550"),
    ("密码我改成了 Qw3rty!2024", "credential", "Qw3rty!2024"),
    ("我的邮箱密码已经换成了 tiger2024abc", "credential", "tiger2024abc"),
    ("阿里云 AccessKey ID: LTAI5tQm8yXbZ3kRp7WnVd2F", "credential", "LTAI5tQm8yXbZ3kRp7WnVd2F"),
    ("腾讯云 SecretId AKIDz8krbsJ5yKBZQpn74WFkmLPx3gnPhESA", "credential", "AKIDz8krbsJ5y"),
    (f"助记词：{_ZH_PHRASE}", "credential", _ZH_PHRASE[:6]),
    (f"我的钱包助记词是{_ZH_PHRASE}，别告诉别人", "credential", _ZH_PHRASE[3:9]),
    ("vivo na Rúa do Franco 12, Santiago de Compostela", "street_address", "Franco 12"),
]

ORDINARY = [
    "sin duda el mejor: 1234567 visitas este mes",
    "sin embargo llegamos a 464 184 571 personas",
    "my passport expires in 2027 and the renewal costs 120 dollars",
    "the passport renewal fee was 120000 won",
    "my passport for the trip is in the drawer",
    "the SIN field on the form has 9 boxes",
    "Personal trainer costs 45 euros a session",
    "la banque est ouverte de 9 à 17 heures, le guichet 3 est fermé",
    "密码我忘了，怎么办",
    "密码我改成了你的生日那天",
    "助记词是什么意思？我不太懂这个",
    "助记词要抄在纸上，放在安全的地方，不要拍照也不要发给任何人",
    "LTAI is the prefix of an Alibaba access key id",
    "the rúa is closed for the festival until 12",
]


@pytest.mark.parametrize(("text", "category", "value"), T3)
def test_fourth_pass_t3_forms_are_found_and_redacted(text: str, category: str, value: str) -> None:
    assert_t3_found_and_redacted(text, category, value)


@pytest.mark.parametrize("text", ORDINARY)
def test_fourth_pass_ordinary_sentences_are_kept(mem: Memory, text: str) -> None:
    assert_kept(mem, text)
