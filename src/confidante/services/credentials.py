"""Agent API keys: random bearer tokens, of which only a hash is kept (sealed in the store).

A token is 256 random bits, so a plain SHA-256 is enough to make the stored value useless
(no salt or slow hash is needed for a non-guessable secret). The records live in one sealed
meta value, encrypted under the master key, because a pinned identity holds a raw actor id.
They are re-read on every check, so a key revoked from the CLI stops working at once, in
every server process.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from ..engine import Memory
from ..errors import InvalidInput, NotFound
from ..model import Context
from .schemas import ContextIn

TOKEN_PREFIX = "cf_"
_META = "http.agent_keys"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True, slots=True)
class AgentKey:
    name: str
    token_hash: str
    created: str  # ISO 8601, UTC
    pinned: dict[str, Any] | None = None  # a ContextIn spec; the identity MCP uses

    def pinned_context(self) -> Context | None:
        return None if self.pinned is None else ContextIn.model_validate(self.pinned).to_context()

    def describe(self, *, show_pinned: bool = False) -> dict[str, Any]:
        """For listings: never the hash. The pinned identity only for the owner's own CLI."""
        d: dict[str, Any] = {"name": self.name, "created": self.created}
        d["pinned"] = (self.pinned or None) if show_pinned else self.pinned is not None
        return d


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class AgentKeys:
    """Add, list, revoke and verify agent keys of one memory."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem

    def _load(self) -> list[AgentKey]:
        raw = self.mem.sealed_meta(_META)
        if raw is None:
            return []
        return [AgentKey(**k) for k in json.loads(raw)["keys"]]

    def _save(self, keys: list[AgentKey]) -> None:
        payload = {"version": 1, "keys": [asdict(k) for k in keys]}
        self.mem.set_sealed_meta(_META, json.dumps(payload, separators=(",", ":")).encode())

    def add(self, name: str, pinned: ContextIn | None = None) -> str:
        """Create a key and return its token: the only time the token exists in clear."""
        if not _NAME_RE.match(name or ""):
            raise InvalidInput("an agent name is 1-64 letters, digits, '.', '_' or '-'")
        if pinned is not None:
            pinned.to_context()  # refuse a pin the API would refuse later
        keys = self._load()
        if any(k.name == name for k in keys):
            raise InvalidInput("an agent key with that name exists", code="agent_key_exists")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        created = datetime.now(UTC).replace(microsecond=0).isoformat()
        keys.append(AgentKey(name, _hash(token), created, pinned.spec() if pinned else None))
        self._save(keys)
        return token

    def list(self) -> list[AgentKey]:
        return self._load()

    def revoke(self, name: str) -> None:
        keys = self._load()
        kept = [k for k in keys if k.name != name]
        if len(kept) == len(keys):
            raise NotFound("no agent key with that name")
        self._save(kept)

    def verify(self, token: str | None) -> AgentKey | None:
        """The key this token belongs to, or None. Every record is compared in constant time."""
        if not token or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        digest = _hash(token)
        found = None
        for k in self._load():
            if hmac.compare_digest(k.token_hash, digest):
                found = k
        return found


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None
