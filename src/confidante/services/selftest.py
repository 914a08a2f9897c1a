"""`selftest`: a deployment checks itself for leaks, end to end, with its own configuration.

It plants one canary fact in every kind of partition (the owner's, a person's silo, two
communities, a conversation session, a note for everyone), then reads from every kind of
context (the owner in private, the general dashboard, the canaries' own subject, a stranger,
members of each community, a group chat, a background task) with recall, search, list, get
and the prompt block, and compares what each context saw with the design's read table. A
canary where it must not be is a leak; one missing where it must be is a fault. It also
scans the database files for the canaries' plaintext, then removes its canaries (facts
forgotten, the made-up person and communities erased with their keys).

Every canary holds a marker word and says which audience it was written for, so a canary
found where it does not belong is caught even when it did not come from this run (a row
planted in the wrong partition, a canary left behind by an interrupted run).

It runs against a database through the library (`LibraryTarget`) or against a running
server through the HTTP API with an agent key (`HttpTarget`); the probes are the same,
except that an agent can only speak from chat contexts.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConfidanteError, NotFound, OwnerMissing
from ..model import Context, Surface, parse_actor
from . import lifecycle, paging, prompt

if TYPE_CHECKING:
    from ..engine import Engine

MARKER = "cfcanaryqz"
"""A made-up word in every canary, so a search for it finds canaries of any run."""

# The audience each canary is written for, named in its text.
OWNER, SILO, GUILD_A, GUILD_B, SESSION, EVERYONE = (
    "ownerpart",
    "silopart",
    "alphapart",
    "betapart",
    "sessionpart",
    "everyonepart",
)
PARTITIONS = (OWNER, SILO, GUILD_A, GUILD_B, SESSION, EVERYONE)

_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


def canary_word() -> str:
    """A pronounceable made-up word: unique per run, and nothing the privacy guard refuses
    (no digits, no capitals, no high-entropy run of characters)."""
    return "".join(
        secrets.choice(_CONSONANTS) + secrets.choice(_VOWELS) for _ in range(5)
    ) + secrets.choice(_CONSONANTS)


@dataclass(frozen=True)
class Probe:
    """A context to read from, and which canary audiences it may see (the design's table)."""

    name: str
    ctx: Context
    sees: frozenset[str]
    sees_foreign: frozenset[str]  # canaries of other runs: other people, other communities
    owner_only: bool = False  # a surface only the owner's own tools use (not over the API)
    # what recall finds without widening: the owner's default pool is narrower than what the
    # owner may see (other people's silos and communities come only on request)
    recalls: frozenset[str] | None = None

    @property
    def pool(self) -> frozenset[str]:
        return self.sees if self.recalls is None else self.recalls


@dataclass
class Report:
    target: str
    run: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, Any] = field(default_factory=dict)
    removed: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.leaks and not self.faults and self.files.get("ok", True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "target": self.target,
            "run": self.run,
            "checks": self.rows,
            "leaks": self.leaks,
            "faults": self.faults,
            "files": self.files,
            "removed": self.removed,
        }


class Target(Protocol):
    """What the self-test needs from a deployment."""

    name: str
    all_surfaces: bool  # False over the API: agents speak only from chat contexts

    def owner(self) -> str: ...
    def remember(self, ctx: Context, text: str, namespace: str) -> str: ...
    def recall(self, ctx: Context, query: str) -> list[tuple[str, str]]: ...
    def search(self, ctx: Context, query: str) -> list[tuple[str, str]]: ...
    def list(self, ctx: Context) -> list[tuple[str, str]]: ...
    def get(self, ctx: Context, fid: str) -> str | None: ...
    def prompt(self, ctx: Context, query: str) -> str: ...
    def forget(self, ctx: Context, fid: str) -> None: ...
    def forget_subject(self, ctx: Context, actor: str) -> None: ...
    def forget_guild(self, ctx: Context, community: str) -> None: ...
    def scan_files(self, needles: list[str]) -> dict[str, Any]: ...


# --- the two targets -----------------------------------------------------------------------


class LibraryTarget:
    """A database opened through the library, with the deployment's own settings."""

    all_surfaces = True

    def __init__(self, mem: Engine) -> None:
        self.mem = mem
        self.name = "database"

    def owner(self) -> str:
        owner = self.mem.first_owner()
        if owner is None:
            raise OwnerMissing("no owner is configured: the self-test plants owner memory")
        return owner

    def remember(self, ctx: Context, text: str, namespace: str) -> str:
        return self.mem.remember(ctx, text, namespace).id

    def recall(self, ctx: Context, query: str) -> list[tuple[str, str]]:
        return [(h.fact.id, h.fact.text) for h in self.mem.recall(ctx, query, 50)]

    def search(self, ctx: Context, query: str) -> list[tuple[str, str]]:
        page = paging.search_page(self.mem, ctx, query, limit=50)
        return [(h.fact.id, h.fact.text) for h in page.hits]

    def list(self, ctx: Context) -> list[tuple[str, str]]:
        return [(f.id, f.text) for f in self.mem.list(ctx) if MARKER in f.text]

    def get(self, ctx: Context, fid: str) -> str | None:
        try:
            return self.mem.get(ctx, fid).text
        except NotFound:
            return None

    def prompt(self, ctx: Context, query: str) -> str:
        return prompt.prompt_context(self.mem, ctx, query, max_tokens=4000)

    def forget(self, ctx: Context, fid: str) -> None:
        self.mem.forget(ctx, fid)

    def forget_subject(self, ctx: Context, actor: str) -> None:
        lifecycle.forget_subject(self.mem, ctx, actor)

    def forget_guild(self, ctx: Context, community: str) -> None:
        lifecycle.forget_guild(self.mem, ctx, community)

    def scan_files(self, needles: list[str]) -> dict[str, Any]:
        path = getattr(self.mem.store, "path", None)
        if path is None:
            return {"ok": True, "checked": False, "why": "a server database (no files here)"}
        return scan_files(Path(path), needles)


class HttpTarget:
    """A running server, through its HTTP API and an agent key that is not pinned."""

    all_surfaces = False

    def __init__(self, url: str, token: str, owner: str, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self._owner = owner
        self.timeout = timeout
        self.name = "server"

    def owner(self) -> str:
        return self._owner

    def _post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as e:
            payload = json.loads(e.read() or b"{}")
            return e.code, payload

    def _call(self, path: str, ctx: Context, **body: Any) -> dict[str, Any]:
        status, data = self._post(path, {"context": spec_of(ctx), **body})
        if status >= 400:
            err = data.get("error", {})
            raise ConfidanteError(
                f"{path}: {err.get('message', status)}", code=err.get("code", "http_error")
            )
        return data

    def remember(self, ctx: Context, text: str, namespace: str) -> str:
        return str(self._call("/v1/memories", ctx, text=text, namespace=namespace)["id"])

    def recall(self, ctx: Context, query: str) -> list[tuple[str, str]]:
        hits = self._call("/v1/memories/search", ctx, query=query, k=50)["hits"]
        return [(h["id"], h["text"]) for h in hits]

    search = recall  # the API's search is recall, paged

    def list(self, ctx: Context) -> list[tuple[str, str]]:
        found, cursor = [], None
        while True:
            data = self._call("/v1/memories/list", ctx, limit=1000, cursor=cursor)
            found += [(f["id"], f["text"]) for f in data["facts"] if MARKER in f["text"]]
            cursor = data.get("next_cursor")
            if not cursor:
                return found

    def get(self, ctx: Context, fid: str) -> str | None:
        status, data = self._post(f"/v1/memories/{fid}/get", {"context": spec_of(ctx)})
        if status == 404:
            return None
        if status >= 400:
            raise ConfidanteError(f"get: {status}", code=data.get("error", {}).get("code", "x"))
        return str(data["text"])

    def prompt(self, ctx: Context, query: str) -> str:
        return str(self._call("/v1/prompt-context", ctx, query=query, max_tokens=4000)["context"])

    def forget(self, ctx: Context, fid: str) -> None:
        self._call(f"/v1/memories/{fid}/forget", ctx)

    def forget_subject(self, ctx: Context, actor: str) -> None:
        self._call("/v1/subjects/forget", ctx, actor=actor)

    def forget_guild(self, ctx: Context, community: str) -> None:
        self._call("/v1/guilds/forget", ctx, guild=community)

    def scan_files(self, needles: list[str]) -> dict[str, Any]:
        return {"ok": True, "checked": False, "why": "the server's files are not read over HTTP"}


def spec_of(ctx: Context) -> dict[str, Any]:
    """The API's context object for a chat context."""
    if ctx.surface is Surface.BACKGROUND:
        return {"surface": "background", "task": ctx.task}
    spec: dict[str, Any] = {"surface": ctx.surface.value, "actor": ctx.actor}
    if ctx.surface in (Surface.GUILD_TEXT, Surface.GUILD_VOICE):
        spec["guild"] = ctx.community
        if ctx.channel:
            spec["channel"] = ctx.channel
    elif ctx.surface is Surface.GROUP_DM:
        spec["chat"] = ctx.community
    return spec


# --- the files -------------------------------------------------------------------------------

_SCAN = """
import json, sys
paths, needles = json.load(sys.stdin)
found = {}
for p in paths:
    try:
        blob = open(p, "rb").read()
    except FileNotFoundError:
        continue
    hits = [n for n in needles if n.encode() in blob]
    if hits:
        found[p] = len(hits)
print(json.dumps(found))
"""


def scan_files(db: Path, needles: list[str]) -> dict[str, Any]:
    """Look for plaintext in the database files from a child process: reading them from this
    process would drop the SQLite connection's POSIX locks when the file is closed."""
    paths = [str(db), f"{db}-wal", f"{db}-shm", f"{db}-journal"]
    result = subprocess.run(
        [sys.executable, "-c", _SCAN],
        input=json.dumps([paths, needles]),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    found = json.loads(result.stdout)
    names = {Path(p).name: n for p, n in found.items()}
    return {"ok": not found, "checked": True, "files": names}


# --- the run -----------------------------------------------------------------------------------


@dataclass
class Plan:
    run: str
    owner: str
    subject: str  # the made-up person whose silo and session get a canary
    stranger: str
    member: str
    guild_a: str
    guild_b: str
    words: dict[str, str]

    def text(self, audience: str) -> str:
        return f"{MARKER} {audience} {self.run} {self.words[audience]}"


def plan(owner: str) -> Plan:
    platform, _ = parse_actor(owner)
    run = canary_word()
    people = {who: f"{platform}:selftest-{run}-{who}" for who in ("subject", "stranger", "member")}
    return Plan(
        run=run,
        owner=owner,
        subject=people["subject"],
        stranger=people["stranger"],
        member=people["member"],
        guild_a=f"selftest-{run}-a",
        guild_b=f"selftest-{run}-b",
        words={audience: canary_word() for audience in PARTITIONS},
    )


def probes(p: Plan) -> list[Probe]:
    every = frozenset({EVERYONE})
    private = frozenset({OWNER, SILO, GUILD_A, GUILD_B, EVERYONE})
    inspector = frozenset({SILO, GUILD_A, GUILD_B, EVERYONE})
    own = frozenset({OWNER, EVERYONE})
    return [
        Probe("owner, in a DM", Context.dm(p.owner), private, private, recalls=own),
        Probe(
            "owner, local tools",
            Context.local(p.owner),
            private,
            private,
            owner_only=True,
            recalls=own,
        ),
        Probe(
            "owner dashboard",
            Context.owner_dashboard(p.owner),
            private,
            private,
            owner_only=True,
            recalls=own,
        ),
        Probe(
            "general dashboard", Context.dashboard(p.owner), inspector, inspector, owner_only=True
        ),
        Probe(
            "the person, in their DM",
            Context.dm(p.subject),
            frozenset({SILO, SESSION, EVERYONE}),
            every,
        ),
        Probe("a stranger, in a DM", Context.dm(p.stranger), every, every),
        Probe(
            "member of community A",
            Context.guild(p.member, p.guild_a, channel="general"),
            frozenset({GUILD_A, EVERYONE}),
            every,
        ),
        Probe(
            "member of community B",
            Context.guild(p.member, p.guild_b, channel="general"),
            frozenset({GUILD_B, EVERYONE}),
            every,
        ),
        Probe(
            "a group chat",
            Context.group_dm(p.stranger, f"selftest-{p.run}-group"),
            every,
            every,
        ),
        Probe("a background task", Context.background("selftest"), every, every),
    ]


def _plant(t: Target, p: Plan) -> dict[str, str]:
    owner_dm = Context.dm(p.owner)
    writes = {
        OWNER: (owner_dm, "owner"),
        SILO: (Context.dm(p.subject), "me"),
        GUILD_A: (Context.guild(p.member, p.guild_a, channel="general"), "guild"),
        GUILD_B: (Context.guild(p.member, p.guild_b, channel="general"), "guild"),
        SESSION: (Context.dm(p.subject), "session"),
        EVERYONE: (owner_dm, "global"),
    }
    return {aud: t.remember(ctx, p.text(aud), ns) for aud, (ctx, ns) in writes.items()}


def _audience(text: str) -> tuple[str | None, str | None]:
    """The audience and run a canary's text declares."""
    words = text.split()
    if MARKER not in words:
        return None, None
    i = words.index(MARKER)
    audience = words[i + 1] if i + 1 < len(words) and words[i + 1] in PARTITIONS else None
    run = words[i + 2] if i + 2 < len(words) else None
    return audience, run


def _check(
    report: Report,
    probe: Probe,
    operation: str,
    seen_texts: list[str],
    expected: frozenset[str],
    p: Plan,
) -> None:
    """Judge what one operation showed one probe."""
    leaks = []
    seen_audiences = set()
    for text in seen_texts:
        audience, run = _audience(text)
        if audience is None:
            continue
        mine = run == p.run
        if mine:
            seen_audiences.add(audience)
        allowed = probe.sees if mine else probe.sees_foreign
        if audience not in allowed:
            leaks.append(
                {
                    "probe": probe.name,
                    "operation": operation,
                    "canary": audience,
                    "run": "this" if mine else "another",
                }
            )
    missing = sorted(expected - seen_audiences)
    report.leaks += leaks
    report.faults += [{"probe": probe.name, "operation": operation, "missing": m} for m in missing]
    report.rows.append(
        {
            "probe": probe.name,
            "operation": operation,
            "ok": not leaks and not missing,
            "leaks": len(leaks),
            "missing": missing,
        }
    )


def _probe_all(t: Target, report: Report, p: Plan, ids: dict[str, str]) -> None:
    query = " ".join([MARKER, *p.words.values()])
    for probe in probes(p):
        if probe.owner_only and not t.all_surfaces:
            continue
        ctx = probe.ctx
        pool = probe.pool
        _check(report, probe, "recall", [x for _, x in t.recall(ctx, query)], pool, p)
        _check(report, probe, "search", [x for _, x in t.search(ctx, MARKER)], pool, p)
        _check(report, probe, "list", [x for _, x in t.list(ctx)], probe.sees, p)
        got = [text for fid in ids.values() if (text := t.get(ctx, fid)) is not None]
        _check(report, probe, "get", got, probe.sees, p)
        block = t.prompt(ctx, query)
        lines = [line for line in block.splitlines() if MARKER in line]
        _check(report, probe, "prompt context", lines, pool, p)


def _remove(t: Target, p: Plan, ids: dict[str, str]) -> dict[str, Any]:
    owner_dm = Context.dm(p.owner)
    done: dict[str, Any] = {}
    for aud in (OWNER, EVERYONE):
        t.forget(owner_dm, ids[aud])
    t.forget_subject(owner_dm, p.subject)  # their silo and their DM session, keys destroyed
    for name, community in (("a", p.guild_a), ("b", p.guild_b)):
        platform, _ = parse_actor(p.member)
        t.forget_guild(owner_dm, f"{platform}:{community}")
        done[f"community_{name}"] = "erased"
    t.forget_subject(owner_dm, p.member)
    done["person"] = "erased"
    # canaries an interrupted earlier run left behind, as far as the owner can see them
    leftovers = [fid for fid, text in t.list(owner_dm) if _audience(text)[1] != p.run]
    for fid in leftovers:
        with contextlib.suppress(ConfidanteError):
            t.forget(owner_dm, fid)
    done["earlier_runs_removed"] = len(leftovers)
    still = [aud for aud, fid in ids.items() if t.get(owner_dm, fid) is not None]
    done["still_there"] = still
    return done


def run_selftest(t: Target, *, progress: Callable[[str], None] | None = None) -> Report:
    """Plant, probe, scan and remove; the report says what leaked (nothing, one hopes)."""
    say = progress or (lambda _msg: None)
    p = plan(t.owner())
    report = Report(target=t.name, run=p.run)
    say("planting canaries")
    ids = _plant(t, p)
    try:
        say("probing every context")
        _probe_all(t, report, p, ids)
        say("scanning the files for plaintext")
        needles = [*p.words.values(), p.subject, p.stranger, p.member]
        report.files = t.scan_files(needles)
    finally:
        say("removing the canaries")
        report.removed = _remove(t, p, ids)
    if report.removed.get("still_there"):
        report.faults.append({"probe": "removal", "operation": "forget", "missing": "erasure"})
    return report


__all__ = [
    "MARKER",
    "HttpTarget",
    "LibraryTarget",
    "Report",
    "canary_word",
    "run_selftest",
    "scan_files",
]
