"""Exceptions with stable codes.

One root, `ConfidanteError`; one subclass per thing a caller can act on. Messages name
categories and codes, never a stored value, a refused secret or a raw actor id.
"""

from __future__ import annotations

from typing import Any


class ConfidanteError(Exception):
    """Root of every error confidante raises on purpose."""

    code: str = "error"
    http_status: int = 400

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.code

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"


class InvalidInput(ConfidanteError):
    """The call was malformed: fix the arguments and try again."""

    code = "invalid_input"
    http_status = 422


class InvalidActor(InvalidInput):
    code = "invalid_actor"


class InvalidContext(InvalidInput):
    code = "invalid_context"


class EmptyText(InvalidInput):
    code = "empty_text"


class AmbiguousId(InvalidInput):
    """A shortened id matches more than one fact this context may see."""

    code = "ambiguous_id"


class InvalidCursor(InvalidInput):
    """A pagination cursor this API did not return (or one from another query)."""

    code = "invalid_cursor"


class InvalidFilter(InvalidInput):
    """A `filters=` object that is not one (an unknown operator, a malformed range)."""

    code = "invalid_filter"


class AccessDenied(ConfidanteError):
    """The policy refused the operation in this context.

    `code` is one of: owner_required, owner_private_context_required,
    guild_context_required, forbidden_subject, unknown_namespace, namespace_required,
    not_author, local_context_required, reserved_platform.
    """

    code = "access_denied"
    http_status = 403

    def __init__(self, code: str, message: str | None = None, *, scope: str | None = None) -> None:
        super().__init__(message or _DENIAL_MESSAGES.get(code, code), code=code)
        self.scope = scope  # the scope that was refused, for the denial log


_DENIAL_MESSAGES = {
    "owner_required": "only the owner may do this",
    "owner_private_context_required": "the owner may do this only in an owner-private context",
    "guild_context_required": "community memory needs a guild or group context",
    "forbidden_subject": "only the owner, in a private context, may write about someone else",
    "unknown_namespace": "unknown namespace",
    "namespace_required": "this context has no default namespace; name one",
    "not_author": "only the writer, the subject or the owner may forget this fact",
    "origin_mismatch": "a fact may be rewritten only where it was learned (or in the owner's "
    "dashboard): text said here would be shown to another audience",
    "local_context_required": "only the owner's own local tools may do this (plaintext files)",
    "reserved_platform": "actors on the silo and mem0 platforms are the importers' "
    "placeholders; an agent may not speak as one",
}


class PrivateDataRefused(ConfidanteError):
    """T3 data (secrets, contact details, government ids, account numbers) is never stored.

    The message and `.categories` name what was found; the value itself is never echoed."""

    code = "private_data_refused"
    http_status = 422

    def __init__(self, categories: list[str] | tuple[str, ...], message: str | None = None) -> None:
        self.categories = tuple(sorted(set(categories)))
        super().__init__(
            message or f"refused: private data is never stored ({', '.join(self.categories)})"
        )


class IdentifierRefused(PrivateDataRefused):
    """Memory every audience can read (global notes, public stats) must hold no identifiers."""

    code = "identifier_refused"

    def __init__(self, categories: list[str] | tuple[str, ...]) -> None:
        super().__init__(
            categories,
            "refused: memory every audience can read must not hold identifiers "
            f"({', '.join(sorted(set(categories)))})",
        )


class NotFound(ConfidanteError):
    """No fact with that id is visible in this context (it may not exist at all)."""

    code = "not_found"
    http_status = 404


class MasterKeyError(ConfidanteError):
    """Base for master-key problems."""

    code = "master_key_error"
    http_status = 500


class MasterKeyMissing(MasterKeyError):
    code = "master_key_missing"


class InvalidMasterKey(MasterKeyError):
    code = "invalid_master_key"


class WrongMasterKey(MasterKeyError):
    """The master key does not open this database."""

    code = "wrong_master_key"


class KeyFileExposed(MasterKeyError):
    """A master key file that other users may read (or write) is refused, like ssh does."""

    code = "key_file_permissions"


class IntegrityError(ConfidanteError):
    """A ciphertext failed authentication: tampered, moved between rows, or key destroyed."""

    code = "integrity_error"
    http_status = 500


class StoreError(ConfidanteError):
    code = "store_error"
    http_status = 500


class SchemaTooNew(StoreError):
    code = "schema_too_new"


class DatabaseInUse(StoreError):
    """Replacing or re-keying the database needs it to itself: another process has it open."""

    code = "database_in_use"
    http_status = 409


class DatabaseBusy(StoreError):
    """Another process held the database's write lock longer than the busy timeout (SQLite);
    nothing was written. Try again."""

    code = "database_busy"
    http_status = 503


class ConcurrentChange(StoreError):
    """Another process changed what this write depended on (a partition's key was destroyed,
    replaced or rotated) too many times in a row; nothing was written. Try again."""

    code = "concurrent_change"
    http_status = 409


class ConfigError(ConfidanteError):
    """A setting is malformed: the message names the variable and the expected format."""

    code = "config_error"


class DatabaseMissing(ConfidanteError):
    """No database where one was expected (a typo in a path must not create a new one)."""

    code = "database_missing"
    http_status = 404


class DatabaseExists(ConfidanteError):
    """Restoring over an existing database needs an explicit choice to replace it."""

    code = "database_exists"
    http_status = 409


class OwnerMissing(ConfidanteError):
    """No owner is configured: owner-only flows (the dashboard, local tools) cannot start."""

    code = "owner_missing"
    http_status = 409


# --- the catalogue ----------------------------------------------------------------------------
# Every code a caller can meet, with its HTTP status, when it happens and an example message.
# The API's OpenAPI examples and the documentation's error page are generated from it, and a
# test checks that every code raised anywhere in the package is listed here.


class ErrorDoc(tuple[int, str, str]):
    """(HTTP status, when it happens, an example message)."""

    __slots__ = ()

    @property
    def status(self) -> int:
        return self[0]

    @property
    def when(self) -> str:
        return self[1]

    @property
    def example(self) -> str:
        return self[2]


def _doc(status: int, when: str, example: str) -> ErrorDoc:
    return ErrorDoc((status, when, example))


ERROR_CODES: dict[str, ErrorDoc] = {
    # malformed input (422 unless said)
    "invalid_input": _doc(
        422, "a malformed argument or body field", "k: Input should be less than or equal to 1000"
    ),
    "invalid_actor": _doc(
        422,
        "an actor is not platform:id",
        "an actor must be of the form platform:id (e.g. discord:1234)",
    ),
    "invalid_context": _doc(
        422, "a context is incomplete or mixes surfaces", "this surface needs guild"
    ),
    "empty_text": _doc(422, "the text to remember is empty", "text is empty"),
    "ambiguous_id": _doc(
        422,
        "a shortened id matches several facts this context may see",
        "2 facts visible here start with that id prefix; give more of it",
    ),
    "invalid_cursor": _doc(
        422,
        "a pagination cursor that this API did not return, or from another query",
        "this cursor belongs to another query",
    ),
    "invalid_filter": _doc(
        422,
        "a filters object with an unknown operator or a malformed value",
        "unknown operator in the filter on category",
    ),
    "space_exists": _doc(
        422, "creating a space whose name is taken", "a space with that name exists"
    ),
    "agent_key_exists": _doc(
        422, "an agent key with that name exists", "an agent key with that name exists"
    ),
    "embedder_unavailable": _doc(
        503,
        "the configured embedder is not installed",
        "the minilm-int8 embedder needs `pip install 'confidante[minilm]'`",
    ),
    "malformed_json": _doc(
        400,
        "the body is not JSON",
        "the body is not valid JSON (send it with Content-Type: application/json)",
    ),
    "unsupported_media_type": _doc(
        415,
        "a body that is not JSON (e.g. a form upload)",
        "send the body as JSON with Content-Type: application/json",
    ),
    "payload_too_large": _doc(
        413, "the body is over the server's limit", "the body is over 1048576 bytes"
    ),
    # refused by the policy (403)
    "owner_required": _doc(
        403,
        "a non-owner writes owner or global memory, reads the owner's logs, or widens recall",
        "only the owner may do this",
    ),
    "owner_private_context_required": _doc(
        403,
        "the owner does so outside an owner-private context",
        "the owner may do this only in an owner-private context",
    ),
    "guild_context_required": _doc(
        403,
        "a community write outside a guild or group chat",
        "community memory needs a guild or group context",
    ),
    "forbidden_subject": _doc(
        403,
        "writing about someone else (only the owner, in private, may)",
        "only the owner, in a private context, may write about someone else",
    ),
    "unknown_namespace": _doc(403, "a namespace that does not exist", "unknown namespace"),
    "not_a_member": _doc(
        403,
        "a write to a shared space that does not exist or is not open here (only its members, "
        "in their DMs or group chats of members only, and the owner in private)",
        "not a member of that space here",
    ),
    "namespace_required": _doc(
        403,
        "a context without a default namespace (general dashboard, background)",
        "this context has no default namespace; name one",
    ),
    "not_author": _doc(
        403,
        "forgetting or editing a visible fact you neither wrote nor are the subject of",
        "only the writer, the subject or the owner may forget this fact",
    ),
    "origin_mismatch": _doc(
        403,
        "an update from another conversation than the one the fact was learned in (text "
        "typed in a DM is never republished into a guild; the owner's dashboard may edit)",
        "a fact may be rewritten only where it was learned (or in the owner's dashboard): "
        "text said here would be shown to another audience",
    ),
    "surface_not_allowed": _doc(
        403,
        "an agent key asserts an owner-only surface (owner_dashboard, local, dashboard)",
        "agent keys may assert only dm, group_dm, guild_text, guild_voice and background contexts",
    ),
    "reserved_platform": _doc(
        403,
        "an agent asserts an actor on a platform the importers reserve (silo:, mem0:)",
        "actors on the silo and mem0 platforms are the importers' placeholders; "
        "an agent may not speak as one",
    ),
    "pinned_context_mismatch": _doc(
        403,
        "a key pinned to one identity asserts another context",
        "this agent key is pinned to another context",
    ),
    "identity_not_pinned": _doc(
        403,
        "/mcp with an agent key that is not pinned to an identity",
        "MCP needs an agent key pinned to an identity (keys add-agent NAME --as ACTOR --dm ...)",
    ),
    "delegation_forbidden": _doc(
        403,
        "a pinned agent key (or a delegated token) asks to mint a delegated token; only a key "
        "that is not pinned may",
        "only an agent key that is not pinned may mint delegated tokens (a pinned key, or a "
        "delegated token, speaks only as itself)",
    ),
    "agent_context_forbids": _doc(
        403,
        "CONFIDANTE_CONTEXT is set (an agent host runs the CLI for a message) and the command is "
        "not a memory command (remember, recall, get, list, update, forget, context, "
        "forget-subject) or mcp; nothing was opened or changed",
        "`confidante keys add-agent` is refused while CONFIDANTE_CONTEXT is set: an agent host "
        "runs only the memory commands; the owner runs this in their own shell",
    ),
    "client_mode_forbids": _doc(
        403,
        "client mode (CONFIDANTE_URL and CONFIDANTE_TOKEN set) and the command is not a memory "
        "command, or it names a local database (--db, --create); nothing was opened or created",
        "`confidante backup` does not run in client mode (CONFIDANTE_URL is set): only the "
        "memory commands do, over HTTP, as the token's identity",
    ),
    "access_denied": _doc(
        403, "the base of every policy refusal (a subclass code is always given)", "access denied"
    ),
    # refused by the privacy guard (422)
    "private_data_refused": _doc(
        422,
        "T3 data (secrets, contact details, government ids, account numbers) in a write",
        "refused: private data is never stored (email)",
    ),
    "identifier_refused": _doc(
        422,
        "an identifier in memory every audience reads (global notes, public stats)",
        "refused: memory every audience can read must not hold identifiers (person_name)",
    ),
    # not there, or not for you
    "not_found": _doc(
        404,
        "no fact with that id is visible here (it may not exist at all), or no such route",
        "no such fact",
    ),
    "unauthenticated": _doc(
        401, "no agent key, an unknown or a revoked one", "a valid agent key is required"
    ),
    "method_not_allowed": _doc(
        405, "a route called with the wrong HTTP method", "method not allowed"
    ),
    # set-up and keys
    "owner_missing": _doc(
        409,
        "no owner is configured (the dashboard and local tools need one)",
        "no owner is configured: run `confidante init --owner platform:id` with your own chat id",
    ),
    "database_missing": _doc(
        404,
        "no database at the path given (a typo must not create a new one)",
        "no database at /srv/memory.db: run `confidante init` to create one (or pass --create)",
    ),
    "not_a_database": _doc(
        409,
        "the CLI's --db (or CONFIDANTE_DB) names a folder, or a file that is not a confidante "
        "database",
        "/srv/notes.txt is not a confidante database (not an SQLite file): check --db",
    ),
    "port_in_use": _doc(
        409,
        "`confidante serve` on a port another process listens on (checked before anything is "
        "set up or printed)",
        "port 8765 on 127.0.0.1 is in use (another `confidante serve`?): stop it, or choose "
        "another with --port",
    ),
    "database_exists": _doc(
        409,
        "restoring over an existing database without --force",
        "a database exists at /srv/memory.db: add --force to replace it",
    ),
    "database_in_use": _doc(
        409,
        "a restore (or a rotation of a key given in the environment) while another process "
        "has the database open",
        "another process has this database open (a running `confidante serve`?); stop it first",
    ),
    "database_busy": _doc(
        503,
        "another process held the SQLite database's write lock longer than the busy timeout "
        "(CONFIDANTE_BUSY_TIMEOUT_MS); nothing was written, try again",
        "another process kept the database locked; try again",
    ),
    "concurrent_change": _doc(
        409,
        "another process kept changing the keys a write depended on; nothing was written",
        "the partition's key kept changing; try again",
    ),
    "key_file_permissions": _doc(
        500,
        "the master key file is readable or writable by other users",
        "the master key file memory.db.key is open to other users (mode 0644); "
        "make it private: chmod 600",
    ),
    "config_error": _doc(
        400,
        "a setting is malformed (one line: the variable and the expected format)",
        "CONFIDANTE_TTL_DAYS_BY_SCOPE: expected scope=days pairs, comma-separated, "
        "or a JSON object (TOML: a table), e.g. owner=365,user=90",
    ),
    "master_key_missing": _doc(
        500,
        "no master key where one is needed",
        "this database exists but no master key was given: "
        "set CONFIDANTE_MASTER_KEY or restore its key file",
    ),
    "invalid_master_key": _doc(
        500,
        "a master key that is not 32 bytes (or their base64)",
        "the master key must be 32 bytes, or their base64",
    ),
    "wrong_master_key": _doc(
        500,
        "the master key does not open this database or backup",
        "the master key does not open this database",
    ),
    "master_key_error": _doc(500, "the base of the master-key errors", "master key error"),
    # the store
    "integrity_error": _doc(
        500,
        "a ciphertext failed authentication (tampered, moved, key destroyed)",
        "ciphertext failed authentication",
    ),
    "store_error": _doc(
        500,
        "the database cannot be used (not a confidante database, unreachable)",
        "not a usable confidante database (DatabaseError)",
    ),
    "schema_too_new": _doc(
        500,
        "the database was written by a newer confidante",
        "database schema 3 is newer than this confidante (1)",
    ),
    "server_unreachable": _doc(
        503,
        "client mode: the server at CONFIDANTE_URL did not answer (down, wrong address, timed "
        "out) or answered with something that is not confidante's API",
        "cannot reach the confidante server at http://127.0.0.1:8765 (connection refused)",
    ),
    "bad_request": _doc(400, "an HTTP request the server cannot read", "bad request"),
    "forbidden": _doc(403, "an HTTP-level refusal without a more specific code", "forbidden"),
    "not_acceptable": _doc(406, "an Accept header the API cannot satisfy", "not acceptable"),
    "too_many_requests": _doc(429, "too many requests from one client", "too many requests"),
    "http_error": _doc(400, "any other HTTP-level error (the status says which)", "http error"),
    "internal_error": _doc(
        500, "an unexpected failure (logged by type; no details are sent)", "internal error"
    ),
    "error": _doc(
        400, "the root of every confidante error (a subclass code is always given)", "error"
    ),
}
"""Every error code, with its HTTP status, when it happens and an example message."""

DENIAL_LOG_CODES: dict[str, str] = {
    "login_failed": "a wrong dashboard password (counted per minute)",
    "login_throttled": "a dashboard login refused after too many wrong passwords",
}
"""Codes that appear only in the owner's denial log, never as an error."""


def error_example(code: str) -> dict[str, dict[str, str]]:
    """The error body an API caller receives for `code`."""
    return {"error": {"code": code, "message": ERROR_CODES[code].example}}


def describe_validation(errors: list[Any], limit: int = 5) -> str:
    """`field: problem; ...` for pydantic-style error dicts, without their `input` values
    (a rejected argument may be a secret): shared by the HTTP API and the MCP tools."""
    shown = []
    for e in errors[:limit]:
        loc = [str(p) for p in e.get("loc", ()) if p not in ("body", "query", "path", "header")]
        if e.get("type") == "extra_forbidden" and loc:
            loc[-1] = "(unknown field)"  # the key itself was sent, and may be anything
        shown.append(f"{'.'.join(loc) or 'request'}: {e.get('msg', 'invalid')}")
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(shown) + more if shown else "invalid request"
