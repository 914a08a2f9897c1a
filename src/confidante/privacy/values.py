"""What a value looks like: machine-made (a key, a generated password) or an ordinary word,
a reference to where a secret is kept, or a placeholder. Shared by the credential detectors."""

from __future__ import annotations

import re
import string

from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
)

from ..lazy_patterns import compile_on_use

_BASE64 = Base64HighEntropyString()
_HEX = HexHighEntropyString()
# Where a secret is kept, or a placeholder for one: "os.environ[...]", "$DB_PASS", "<token>",
# "xxxx", "your_api_key".
CODE_REFERENCE = compile_on_use(
    r"^(?:os\.|env\.|process\.env|getenv|get_env|environ|settings\.|config\.|self\.|"
    r"secrets\.|vault|\$|%[A-Z_]+%|<[^>]*>?$|\{\{?|\[|none$|null$|nil$|undefined$|"
    r"x{3,}|\*{3,}|\.{3}|your[\s_-]|<)",
    re.I,
)
_UUID = compile_on_use(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HEX_CHARS = frozenset(string.hexdigits)
_SPECIALS = frozenset("!@#$%^&*+=?~|<>")
_VERSION = compile_on_use(r"^v?\d+(?:\.\d+)+")


def generated_looking(value: str) -> bool:
    """Digits with letters, a symbol inside, or inner capitals: not an ordinary word."""
    has_digit = any(ch.isdigit() for ch in value)
    has_alpha = any(ch.isalpha() for ch in value)
    symbol = any(not ch.isalnum() for ch in value.strip(".,!?"))
    inner_caps = any(ch.isupper() for ch in value[1:])
    return len(value) >= 6 and ((has_digit and has_alpha) or symbol or inner_caps)


def strongly_generated(value: str) -> bool:
    """Letters, a digit and a special character, or upper, lower case and a digit together
    ("Hunter#2024", "Pumpkin2024"); not a date, version or user_name42."""
    inner = value.strip(".,!?")
    if len(inner) < 6 or CODE_REFERENCE.match(inner) or _VERSION.match(inner):
        return False
    digit = any(ch.isdigit() for ch in inner)
    special = any(ch in _SPECIALS for ch in inner) and any(ch.isalpha() for ch in inner)
    mixed = any(ch.isupper() for ch in inner) and any(ch.islower() for ch in inner)
    return digit and (special or mixed)


def high_entropy(token: str) -> bool:
    """The entropy plugins' own measure and limits, relaxed for short near-random strings."""
    if _UUID.match(token) or not any(c.isdigit() for c in token):
        return False
    if not any(c.isalpha() for c in token):
        return False
    plugin: Base64HighEntropyString | HexHighEntropyString = (
        _HEX if set(token) <= _HEX_CHARS else _BASE64
    )
    entropy = plugin.calculate_shannon_entropy(token)
    if entropy > plugin.entropy_limit:
        return True
    # A 20-character random key cannot reach 4.5 bits/char; accept near-maximal entropy.
    distinct = len(set(token))
    return distinct >= 12 and entropy >= 0.9 * min(len(token).bit_length() - 1 + 0.5, 6.0)
