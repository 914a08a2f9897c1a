"""Cryptocurrency private keys: raw hex with a ``0x`` prefix, WIF (Base58Check), extended
private keys (xprv...), and long Base58 keys named by a key word.

A 64-hex string alone is also a SHA-256 digest or a transaction hash, so a bare one counts
only with the ``0x`` prefix and no hash word before it; Base58Check keys are checksummed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from ..lazy_patterns import compile_on_use
from .findings import Finding

CATEGORY = "credential"

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_INDEX = {ch: i for i, ch in enumerate(_B58)}
_HEX_KEY = compile_on_use(r"(?<![\w])0x[0-9a-fA-F]{64}(?![0-9a-fA-F\w])")
_WIF = compile_on_use(
    r"(?<![\w])(?:5[HJK][1-9A-HJ-NP-Za-km-z]{49}|[KLc][1-9A-HJ-NP-Za-km-z]{51})(?!\w)"
)
_EXTENDED = compile_on_use(r"(?<![\w])[xyztuv]prv[1-9A-HJ-NP-Za-km-z]{100,112}(?!\w)")
_LONG_B58 = compile_on_use(r"(?<![\w])[1-9A-HJ-NP-Za-km-z]{80,90}(?!\w)")
_KEY_RUN = compile_on_use(r"[0-9A-Za-z]{50}")
_HASH_WORD = compile_on_use(
    r"(?i:tx|txid|txn|transaction|hash|digest|sha-?256|keccak|block|commit|address|contract|"
    r"topic|event|signature|sig|交易|哈希)\W{0,12}(?:\w+\W{1,3}){0,2}$"
)
_KEY_WORD = compile_on_use(
    r"(?i:private|secret|key|seed|wallet|phantom|solana|keypair|私钥|密钥|钱包|schlüssel|clé|"
    r"clave|chiave|chave)[^.!?\n]{0,40}$"
)


def _base58check_ok(value: str) -> bool:
    number = 0
    for ch in value:
        number = number * 58 + _B58_INDEX[ch]
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(value) - len(value.lstrip("1"))) + raw
    payload, checksum = raw[:-4], raw[-4:]
    return (
        len(raw) > 4 and hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] == checksum
    )


def find(text: str) -> Iterator[Finding]:
    """Yield private-key spans in ``text``."""
    if len(text) < 50 or not _KEY_RUN.search(text):  # every key form is 50+ characters
        return
    for m in _HEX_KEY.finditer(text):
        if not _HASH_WORD.search(text[max(0, m.start() - 40) : m.start()]):
            yield Finding(CATEGORY, m.start(), m.end())
    for m in _WIF.finditer(text):
        if _base58check_ok(m.group()):
            yield Finding(CATEGORY, m.start(), m.end())
    for m in _EXTENDED.finditer(text):
        yield Finding(CATEGORY, m.start(), m.end())
    for m in _LONG_B58.finditer(text):
        if _KEY_WORD.search(text[max(0, m.start() - 48) : m.start()]):
            yield Finding(CATEGORY, m.start(), m.end())
