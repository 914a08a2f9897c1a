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


class AccessDenied(ConfidanteError):
    """The policy refused the operation in this context.

    `code` is one of: owner_required, owner_private_context_required,
    guild_context_required, forbidden_subject, unknown_namespace, namespace_required,
    not_author, local_context_required.
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
    "local_context_required": "only the owner's own local tools may do this (plaintext files)",
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


class IntegrityError(ConfidanteError):
    """A ciphertext failed authentication: tampered, moved between rows, or key destroyed."""

    code = "integrity_error"
    http_status = 500


class StoreError(ConfidanteError):
    code = "store_error"
    http_status = 500


class SchemaTooNew(StoreError):
    code = "schema_too_new"


class ConfigError(ConfidanteError):
    code = "config_error"


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
