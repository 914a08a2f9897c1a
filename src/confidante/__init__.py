"""confidante: private-by-design long-term memory for agents that talk to many people.

from confidante import Memory, Context
with Memory.open("memory.db", owner_ids=["discord:1"]) as mem:
    mem.remember(Context.dm("discord:42"), "I prefer tea")
"""

from .engine import Memory
from .errors import (
    AccessDenied,
    ConfidanteError,
    EmptyText,
    IntegrityError,
    InvalidActor,
    InvalidContext,
    InvalidInput,
    InvalidMasterKey,
    MasterKeyError,
    MasterKeyMissing,
    NotFound,
    StoreError,
    WrongMasterKey,
)
from .model import Context, Fact, Hit, Scope, Surface, Tier

__version__ = "0.1.0"

__all__ = [
    "AccessDenied",
    "ConfidanteError",
    "Context",
    "EmptyText",
    "Fact",
    "Hit",
    "IntegrityError",
    "InvalidActor",
    "InvalidContext",
    "InvalidInput",
    "InvalidMasterKey",
    "MasterKeyError",
    "MasterKeyMissing",
    "Memory",
    "NotFound",
    "Scope",
    "StoreError",
    "Surface",
    "Tier",
    "WrongMasterKey",
    "__version__",
]
