"""Client mode: the memory commands against a running server, over its `/v1` API.

With `CONFIDANTE_URL` and `CONFIDANTE_TOKEN` set, `remember`, `recall`, `get`, `list`,
`update`, `history`, `forget`, `context`, `forget-subject` and the public stats (`stats`,
`stats record`, `stats pattern`) send their request to the server as the token's identity;
nothing here reads a database, a key file or a setting, so a process that holds only the
token (a model with a shell, on an agent host) can do what that token may do and nothing
more. Answers come back as the library's own `Fact` and `Hit`, so the commands print exactly
what they print in local mode, and the server's errors keep their codes.

Only the standard library's `urllib.request`, imported when a request is made: the CLI stays
light to import. Proxies and redirects are not followed: the token goes to CONFIDANTE_URL and
nowhere else.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ..._version import __version__
from ...errors import ConfidanteError, ConfigError, InvalidInput, NotFound
from ...model import Fact, Hit, Scope, Tier

if TYPE_CHECKING:
    import urllib.request

URL_ENV = "CONFIDANTE_URL"
TOKEN_ENV = "CONFIDANTE_TOKEN"
TIMEOUT_SECONDS = 120.0
PAGE = 1000  # the API's largest page of `list`
_TOKEN = re.compile(r"^[\x21-\x7e]{1,4096}$")  # printable ASCII, no spaces: a header value

T = TypeVar("T")


def client_mode() -> bool:
    """Whether the CLI is a client of a server: CONFIDANTE_URL is set (even empty, so a host
    that meant client mode never falls back to opening local files)."""
    return URL_ENV in os.environ


@dataclass(frozen=True, slots=True)
class SentContext:
    """The context a client-mode command sends: the API's context object, or None to let a
    pinned token speak as its pin. The server decides whether it may be asserted."""

    spec: dict[str, Any] | None

    @property
    def actor(self) -> str | None:
        actor = self.spec.get("actor") if self.spec else None
        return actor if isinstance(actor, str) else None


class RemoteError(ConfidanteError):
    """An error the server answered with: its code, message and HTTP status, unchanged."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message, code=code)
        self.http_status = status


def unreachable(base: str, why: str) -> ConfidanteError:
    e = ConfidanteError(
        f"cannot reach the confidante server at {base} ({why})", code="server_unreachable"
    )
    e.http_status = 503
    return e


def _base_url(raw: str) -> str:
    """`http(s)://host[:port][/prefix]`; a trailing `/v1` (what `serve` prints) is dropped."""
    import urllib.parse

    problem = (
        f"{URL_ENV} must be the server's address, http://HOST:PORT or https://HOST:PORT "
        "(as `confidante serve` prints it)"
    )
    try:
        parts = urllib.parse.urlsplit(raw.strip())
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise ConfigError(problem) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(problem)
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            f"{URL_ENV} must not hold a user or password: the token goes in {TOKEN_ENV}"
        )
    if parts.query or parts.fragment:
        raise ConfigError(problem)
    path = parts.path.rstrip("/")
    path = path[: -len("/v1")] if path.endswith("/v1") else path
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _opener() -> urllib.request.OpenerDirector:
    """No proxy, and no redirect: a redirect would carry the token elsewhere, so the 3xx is
    the answer."""
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    return urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect())


_TIMES = frozenset({"created_at", "updated_at", "expires_at"})


def _fact(d: dict[str, Any]) -> Fact:
    """The library's `Fact` from the API's JSON (`Fact.to_dict`'s shape), field by field."""
    values: dict[str, Any] = {}
    for name in Fact.__dataclass_fields__:
        if name not in d:
            continue
        value = d[name]
        if name in _TIMES:
            value = datetime.fromisoformat(value) if value else None
        elif name == "scope":
            value = Scope(value)
        elif name == "tier":
            value = Tier(value)
        elif isinstance(value, list):
            value = tuple(value)
        values[name] = value
    return Fact(**values)


def _hit(d: dict[str, Any]) -> Hit:
    return Hit(
        _fact(d["fact"]),
        float(d["score"]),
        dict(d.get("scores") or {}),
        d.get("superseded_by"),
    )


class RemoteMemory:
    """The memory commands' calls (the `Memory` methods they use), made over HTTP."""

    def __init__(self, url: str, token: str, *, timeout: float = TIMEOUT_SECONDS) -> None:
        self.base = _base_url(url)
        if not _TOKEN.match(token):
            raise ConfigError(f"{TOKEN_ENV} is not an agent token (printable, no spaces)")
        self.token = token
        self.timeout = timeout
        self._opener = _opener()

    @classmethod
    def from_env(cls) -> RemoteMemory:
        url, token = os.environ.get(URL_ENV, ""), os.environ.get(TOKEN_ENV)
        if not url.strip():
            raise ConfigError(f"{URL_ENV} is empty: set it to the server's address, or unset it")
        if not token:
            raise ConfigError(
                f"{URL_ENV} is set but {TOKEN_ENV} is not: client mode needs both (an agent key "
                "pinned to one identity, or a delegated token)"
            )
        return cls(url, token)

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is held between requests."""

    # -- the memory commands' calls -------------------------------------------------------------

    def remember(
        self,
        ctx: SentContext,
        text: str,
        namespace: str | None = None,
        *,
        kind: str = "fact",
        source_skill: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Fact:
        body = {
            "text": text,
            "namespace": namespace,
            "kind": kind,
            "source_skill": source_skill,
            "metadata": metadata,
        }
        return self._call("/memories", ctx, body, _fact)

    def recall(
        self,
        ctx: SentContext,
        query: str,
        k: int = 10,
        *,
        subjects: list[str] | None = None,
        guilds: list[str] | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        body = {
            "query": query,
            "k": k,
            "subjects": subjects,
            "guilds": guilds,
            "filters": filters,
            "detail": True,
        }
        return self._call("/memories/search", ctx, body, lambda d: [_hit(h) for h in d["hits"]])

    def get(self, ctx: SentContext, fact_id: str) -> Fact:
        return self._call(self._fact_path(fact_id, "get"), ctx, {}, _fact)

    def update(
        self,
        ctx: SentContext,
        fact_id: str,
        text: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> Fact:
        body = {"text": text, "metadata": metadata}
        return self._call(self._fact_path(fact_id, "update"), ctx, body, _fact)

    def history(self, ctx: SentContext, fact_id: str) -> list[dict[str, Any]]:
        """The versions a fact went through, oldest first (`Version.to_dict`'s shape)."""
        return self._call(
            self._fact_path(fact_id, "history"),
            ctx,
            {},
            lambda d: [dict(v) for v in d["versions"]],
        )

    def forget(self, ctx: SentContext, fact_id: str) -> None:
        self._call(self._fact_path(fact_id, "forget"), ctx, {}, lambda d: d["forgotten"])

    def list(
        self,
        ctx: SentContext,
        *,
        limit: int | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Fact]:
        """Every visible fact, newest first, page after page (or the first `limit`)."""
        if limit is not None and limit < 0:
            raise InvalidInput("limit must be a non-negative integer")
        facts: list[Fact] = []
        cursor: str | None = None
        while limit is None or len(facts) < limit:
            size = PAGE if limit is None else min(PAGE, limit - len(facts))
            body = {"limit": size, "cursor": cursor, "filters": filters}
            page, cursor = self._call(
                "/memories/list",
                ctx,
                body,
                lambda d: ([_fact(f) for f in d["facts"]], d.get("next_cursor")),
            )
            facts += page
            if not cursor or not page:
                break
        return facts

    def prompt_context(self, ctx: SentContext, query: str, max_tokens: int = 800) -> str:
        body = {"query": query, "max_tokens": max_tokens}
        return self._call("/prompt-context", ctx, body, lambda d: str(d["context"]))

    def forget_subject(self, ctx: SentContext, actor: str | None) -> dict[str, int]:
        """Erase a person; `actor` None is the one speaking (the pin's, for a pinned token)."""
        return self._call(
            "/subjects/forget",
            ctx,
            {"actor": actor},
            lambda d: {str(k): int(v) for k, v in d.items()},
        )

    # -- the public (T1) stats: identifier-free, any agent key --------------------------------

    def public_stats(self) -> dict[str, Any]:
        return self._check(self._request("GET", "/stats", None), lambda d: dict(d))

    def record_skill_use(self, skill: str, ok: bool = True, *, count: int = 1) -> None:
        body = {"skill": skill, "ok": ok, "count": count}
        self._check(self._request("POST", "/stats/skills", body), lambda d: d["recorded"])

    def record_pattern(self, trigger: str, skills: Sequence[str], *, count: int = 1) -> None:
        body = {"trigger": trigger, "skills": list(skills), "count": count}
        self._check(self._request("POST", "/stats/patterns", body), lambda d: d["recorded"])

    # -- HTTP -----------------------------------------------------------------------------------

    @staticmethod
    def _fact_path(fact_id: str, action: str) -> str:
        import urllib.parse

        if not fact_id:
            raise NotFound("no such fact")
        return f"/memories/{urllib.parse.quote(fact_id, safe='')}/{action}"

    def _call(
        self,
        path: str,
        ctx: SentContext,
        fields: dict[str, Any],
        convert: Callable[[Any], T],
    ) -> T:
        body = {k: v for k, v in fields.items() if v is not None}
        if ctx.spec is not None:
            body["context"] = ctx.spec
        return self._check(self._request("POST", path, body), convert)

    def _check(self, data: Any, convert: Callable[[Any], T]) -> T:
        try:
            return convert(data)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise unreachable(self.base, "its answer is not confidante's API") from None

    def _request(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        import http.client
        import urllib.error
        import urllib.request

        request = urllib.request.Request(
            f"{self.base}/v1{path}",
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": f"confidante-cli/{__version__}",
            },
        )
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as e:
            raise self._server_error(e.code, e.read()) from None
        except urllib.error.URLError as e:
            reason = e.reason
            why = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
            raise unreachable(self.base, why) from None
        except TimeoutError:
            raise unreachable(self.base, f"no answer within {self.timeout:g} s") from None
        except (OSError, http.client.HTTPException) as e:
            why = getattr(e, "strerror", None) or type(e).__name__
            raise unreachable(self.base, why) from None
        try:
            return json.loads(raw)
        except ValueError:
            raise unreachable(self.base, "its answer is not JSON") from None

    def _server_error(self, status: int, raw: bytes) -> ConfidanteError:
        """The server's `{"error": {"code", "message"}}`, as a local error would print."""
        try:
            detail = json.loads(raw)["error"]
            code, message = detail["code"], detail["message"]
        except (ValueError, KeyError, TypeError):
            code = message = None
        if not isinstance(code, str) or not isinstance(message, str):
            return unreachable(self.base, f"it answered HTTP {status}, not as confidante's API")
        return RemoteError(status, code, message)
