"""Credentials the adapters check: agent API keys and the owner's dashboard password.

Agent keys are random bearer tokens, of which only a hash is kept (sealed in the store).
A token is 256 random bits, so a plain SHA-256 is enough to make the stored value useless
(no salt or slow hash is needed for a non-guessable secret). The records live in one sealed
meta value, encrypted under the master key, because a pinned identity holds a raw actor id.
They are re-read on every check, so a key revoked from the CLI stops working at once, in
every server process.

A key that is not pinned may mint *delegated* tokens: short-lived, pinned to one context,
and stateless. Such a token carries its parent key's name, its context and its expiry, under
an HMAC whose secret is kept in sealed meta and which also covers the parent's token hash, so
a token dies with its expiry, with its parent's revocation (a new key under the same name
does not revive it) and with any change to a byte of it. Its context is readable by whoever
holds it (the agent speaking in that context); nothing else is.

The dashboard password is kept as a salted scrypt hash, also inside sealed meta.
"""

from __future__ import annotations

import base64
import binascii
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
DELEGATED_PREFIX = TOKEN_PREFIX + "d1."
"""Delegated tokens: `cf_d1.<claims>.<mac>`, both parts unpadded URL-safe base64."""
DEFAULT_DELEGATION_SECONDS = 600
MAX_DELEGATION_SECONDS = 86_400
MAX_DELEGATED_TOKEN = 4096
_META = "http.agent_keys"
_SECRET_META = "http.delegation_secret"
_MAC_LABEL = b"confidante delegated token v1\0"
_B64 = re.compile(r"^[A-Za-z0-9_-]+$")
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


@dataclass(frozen=True, slots=True)
class DelegatedKey(AgentKey):
    """A verified delegated token: its parent's name, pinned to the context it was minted
    for, until `expires` (ISO 8601, UTC). Never stored."""

    expires: str = ""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes | None:
    """Strict: only the alphabet, and only the one spelling `_b64` gives (no junk that a
    lenient decoder would skip)."""
    if not _B64.match(text):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw if _b64(raw) == text else None


def _clean_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if v not in (None, "", [], ())}


DELEGATION_MESSAGE = (
    "only an agent key that is not pinned may mint delegated tokens (a pinned key, or a "
    "delegated token, speaks only as itself)"
)


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
            spec = _clean_spec(pinned)
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

    def verify(self, token: str | None, *, now: datetime | None = None) -> AgentKey | None:
        """The key this token belongs to, or None. Every record is compared in constant time.
        A delegated token is checked against its MAC, its parent and its expiry (at `now`,
        default the memory's clock); failing any of them is the same None as an unknown key."""
        if not token or len(token) > MAX_DELEGATED_TOKEN:
            return None
        if token.startswith(DELEGATED_PREFIX):
            return self._verify_delegated(token, now or self.mem.now())
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        digest = _hash(token)
        found = None
        for k in self._load():
            if hmac.compare_digest(k.token_hash, digest):
                found = k
        return found

    # -- delegated tokens ---------------------------------------------------------------------

    def delegate(
        self,
        parent: str,
        context: Mapping[str, Any],
        ttl_seconds: int = DEFAULT_DELEGATION_SECONDS,
        *,
        now: datetime | None = None,
    ) -> tuple[str, datetime]:
        """A token pinned to `context` (a `Context.from_spec` spec an agent may assert) that
        speaks for the unpinned key `parent` until `ttl_seconds` after `now` (default the
        memory's clock), and when it expires. Nothing is stored: revoking `parent` ends it."""
        if (
            not isinstance(ttl_seconds, int)
            or isinstance(ttl_seconds, bool)
            or not 1 <= ttl_seconds <= MAX_DELEGATION_SECONDS
        ):
            raise InvalidInput(
                f"a delegated token lives 1 to {MAX_DELEGATION_SECONDS} seconds (24 hours)"
            )
        key = next((k for k in self._load() if k.name == parent), None)
        if key is None:
            raise NotFound("no agent key with that name")
        if key.pinned is not None:
            raise AccessDenied("delegation_forbidden", DELEGATION_MESSAGE)
        spec = _clean_spec(context)
        agent_context(spec)  # refuse what the API would refuse when the token is used
        expires = int((now or self.mem.now()).timestamp()) + ttl_seconds
        claims = {"v": 1, "k": key.name, "c": spec, "x": expires}
        payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
        mac = self._mac(self._secret(create=True), payload, key.token_hash)
        token = f"{DELEGATED_PREFIX}{_b64(payload)}.{_b64(mac)}"
        if len(token) > MAX_DELEGATED_TOKEN:
            raise InvalidInput("this context is too large for a delegated token (participants)")
        return token, datetime.fromtimestamp(expires, UTC)

    def _secret(self, *, create: bool = False) -> bytes | None:
        raw = self.mem.sealed_meta(_SECRET_META)
        if raw is None and create:
            self.mem.set_sealed_meta(_SECRET_META, secrets.token_bytes(32))
            raw = self.mem.sealed_meta(_SECRET_META)  # another process's, if it won a race
        return raw

    @staticmethod
    def _mac(secret: bytes | None, payload: bytes, parent_hash: str) -> bytes:
        message = _MAC_LABEL + payload + b"\0" + parent_hash.encode()
        return hmac.new(secret or b"", message, hashlib.sha256).digest()

    def _verify_delegated(self, token: str, now: datetime) -> DelegatedKey | None:
        parts = token[len(DELEGATED_PREFIX) :].split(".")
        if len(parts) != 2:
            return None
        payload, mac = _unb64(parts[0]), _unb64(parts[1])
        secret = self._secret()
        if payload is None or mac is None or secret is None:
            return None
        try:
            claims = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(claims, dict) or claims.get("v") != 1:
            return None
        name, spec, expires = claims.get("k"), claims.get("c"), claims.get("x")
        parent = next((k for k in self._load() if k.name == name), None)
        # compared even without a parent, so the time taken does not tell which names exist
        expected = self._mac(secret, payload, parent.token_hash if parent else "")
        if not hmac.compare_digest(expected, mac) or parent is None or parent.pinned is not None:
            return None
        if not isinstance(spec, dict) or type(expires) is not int:
            return None
        if expires <= int(now.timestamp()):
            return None
        until = datetime.fromtimestamp(expires, UTC).isoformat()
        return DelegatedKey(parent.name, _hash(token), parent.created, spec, until)


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
