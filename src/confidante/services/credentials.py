"""Credentials the adapters check: agent API keys and the owner's dashboard password.

Agent keys are random bearer tokens, of which only a hash is kept (sealed in the store).
A token is 256 random bits, so a plain SHA-256 is enough to make the stored value useless
(no salt or slow hash is needed for a non-guessable secret). The records live in one sealed
meta value, encrypted under the master key, because a pinned identity holds a raw actor id.
They are re-read on every check, so a key revoked from the CLI stops working at once, in
every server process.

The dashboard password is kept as a salted scrypt hash, also inside sealed meta.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import AccessDenied, InvalidInput, NotFound
from ..model import Context
from ..policy import AGENT_SURFACES, agent_context_denial

if TYPE_CHECKING:
    from ..engine import Engine

AGENT_KEY_SCOPE = "confidante.agent_key"
"""ASGI scope key under which the server's gate leaves the verified `AgentKey`."""

TOKEN_PREFIX = "cf_"
_META = "http.agent_keys"
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True, slots=True)
class AgentKey:
    name: str
    token_hash: str
    created: str  # ISO 8601, UTC
    pinned: dict[str, Any] | None = None  # a `Context.from_spec` spec; the identity MCP uses

    def pinned_context(self) -> Context | None:
        return None if self.pinned is None else agent_context(self.pinned)

    def describe(self, *, show_pinned: bool = False) -> dict[str, Any]:
        """For listings: never the hash. The pinned identity only for the owner's own CLI."""
        d: dict[str, Any] = {"name": self.name, "created": self.created}
        d["pinned"] = (self.pinned or None) if show_pinned else self.pinned is not None
        return d


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class AgentKeys:
    """Add, list, revoke and verify agent keys of one memory."""

    def __init__(self, mem: Engine) -> None:
        self.mem = mem

    def _load(self) -> list[AgentKey]:
        raw = self.mem.sealed_meta(_META)
        if raw is None:
            return []
        return [AgentKey(**k) for k in json.loads(raw)["keys"]]

    def _save(self, keys: list[AgentKey]) -> None:
        payload = {"version": 1, "keys": [asdict(k) for k in keys]}
        self.mem.set_sealed_meta(_META, json.dumps(payload, separators=(",", ":")).encode())

    def add(self, name: str, pinned: Mapping[str, Any] | None = None) -> str:
        """Create a key and return its token: the only time the token exists in clear.
        `pinned` is a context spec (`Context.from_spec`) the key will always speak as."""
        if not _NAME_RE.match(name or ""):
            raise InvalidInput("an agent name is 1-64 letters, digits, '.', '_' or '-'")
        spec = None
        if pinned is not None:
            spec = {k: v for k, v in pinned.items() if v not in (None, "", [], ())}
            agent_context(spec)  # refuse a pin the API would refuse later
        keys = self._load()
        if any(k.name == name for k in keys):
            raise InvalidInput("an agent key with that name exists", code="agent_key_exists")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        created = datetime.now(UTC).replace(microsecond=0).isoformat()
        keys.append(AgentKey(name, _hash(token), created, spec))
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


def agent_context(spec: Mapping[str, Any]) -> Context:
    """The context an agent asserts, refused when an agent may not claim it (an owner-only
    surface, an actor on a platform the importers reserve)."""
    if spec.get("surface") not in AGENT_SURFACES:
        raise AccessDenied("surface_not_allowed", AGENT_SURFACE_MESSAGE)
    ctx = Context.from_spec(spec)
    if code := agent_context_denial(ctx):
        raise AccessDenied(code)
    return ctx


AGENT_SURFACE_MESSAGE = (
    "agent keys may assert only dm, group_dm, guild_text, guild_voice and background contexts"
)


# --- the dashboard password ---

PASSWORD_META = "dashboard.password"
MIN_PASSWORD_CHARS = 10
_SCRYPT = {"n": 2**15, "r": 8, "p": 1}  # ~32 MiB and ~0.1 s per guess
_MAXMEM = 64 * 1024 * 1024


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8", "surrogatepass"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        maxmem=_MAXMEM,
        dklen=32,
    )


def set_password(mem: Engine, password: str) -> None:
    if len(password) < MIN_PASSWORD_CHARS:
        raise InvalidInput(f"the password needs at least {MIN_PASSWORD_CHARS} characters")
    salt = os.urandom(16)
    record = {
        "v": 1,
        **_SCRYPT,
        "salt": base64.b64encode(salt).decode(),
        "hash": base64.b64encode(_scrypt(password, salt, **_SCRYPT)).decode(),
    }
    mem.set_sealed_meta(PASSWORD_META, json.dumps(record).encode())


def password_is_set(mem: Engine) -> bool:
    return mem.sealed_meta(PASSWORD_META) is not None


def check_password(mem: Engine, password: str) -> bool:
    raw = mem.sealed_meta(PASSWORD_META)
    if raw is None or not password or len(password) > 1024:
        return False
    rec = json.loads(raw)
    digest = _scrypt(password, base64.b64decode(rec["salt"]), rec["n"], rec["r"], rec["p"])
    return hmac.compare_digest(digest, base64.b64decode(rec["hash"]))
