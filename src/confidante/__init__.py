"""confidante: private-by-design long-term memory for agents that talk to many people.

from confidante import Memory, Context
with Memory.open("memory.db", owner_ids=["discord:1"]) as mem:
    mem.remember(Context.dm("discord:42"), "I prefer tea")

The names below are loaded on first use (PEP 562): `import confidante` stays quick for a
command line that only needs a part of it, and `from confidante import Memory` works as
always. Type checkers read the imports under TYPE_CHECKING.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .errors import (
        AccessDenied,
        AmbiguousId,
        ConcurrentChange,
        ConfidanteError,
        ConfigError,
        DatabaseBusy,
        DatabaseExists,
        DatabaseInUse,
        DatabaseMissing,
        EmptyText,
        IdentifierRefused,
        IntegrityError,
        InvalidActor,
        InvalidContext,
        InvalidCursor,
        InvalidFilter,
        InvalidInput,
        InvalidMasterKey,
        KeyFileExposed,
        MasterKeyError,
        MasterKeyMissing,
        NotFound,
        OwnerMissing,
        PrivateDataRefused,
        SchemaTooNew,
        StoreError,
        WrongMasterKey,
    )
    from .memory import Memory
    from .model import Context, Fact, Hit, Scope, SessionKey, Surface, Tier, session_key

__all__ = [
    "AccessDenied",
    "AmbiguousId",
    "ConcurrentChange",
    "ConfidanteError",
    "ConfigError",
    "Context",
    "DatabaseBusy",
    "DatabaseExists",
    "DatabaseInUse",
    "DatabaseMissing",
    "EmptyText",
    "Fact",
    "Hit",
    "IdentifierRefused",
    "IntegrityError",
    "InvalidActor",
    "InvalidContext",
    "InvalidCursor",
    "InvalidFilter",
    "InvalidInput",
    "InvalidMasterKey",
    "KeyFileExposed",
    "MasterKeyError",
    "MasterKeyMissing",
    "Memory",
    "NotFound",
    "OwnerMissing",
    "PrivateDataRefused",
    "SchemaTooNew",
    "Scope",
    "SessionKey",
    "StoreError",
    "Surface",
    "Tier",
    "WrongMasterKey",
    "__version__",
    "session_key",
]

# public name -> the module that defines it (errors unless named here)
_MODULE_OF = {
    "Memory": ".memory",
    **dict.fromkeys(
        ("Context", "Fact", "Hit", "Scope", "SessionKey", "Surface", "Tier", "session_key"),
        ".model",
    ),
}
_LAZY = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_MODULE_OF.get(name, ".errors"), __name__), name)
    globals()[name] = value  # once loaded, a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
