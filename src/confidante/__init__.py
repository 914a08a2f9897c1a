"""confidante: private-by-design long-term memory for agents that talk to many people.

from confidante import Memory, Context
with Memory.open("memory.db", owner_ids=["discord:1"]) as mem:
    mem.remember(Context.dm("discord:42"), "I prefer tea")
"""

from ._version import __version__
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
