"""The HTTP API over real HTTP on loopback: auth, every endpoint, the error shape, and the
design's isolation invariants seen through the API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from confidante import AccessDenied, Memory
from confidante.vault.crypto import new_key
from surfaces_helpers import Live, live_server

from conftest import ALICE, BOB, OWNER

G1, G2 = "g1", "g2"


def dm(actor: str) -> dict[str, Any]:
    return {"surface": "dm", "actor": actor}


def guild(actor: str, g: str, **kw: Any) -> dict[str, Any]:
    return {"surface": "guild_text", "actor": actor, "guild": g, **kw}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    path = tmp_path_factory.mktemp("api") / "memory.db"
    mem = Memory.open(path, owner_ids=[OWNER], master_key=new_key())
    with live_server(mem) as server:
        yield server
    mem.close()


class Api:
    def __init__(self, live: Live, token: str) -> None:
        self.live = live
        self.http = httpx.Client(
            base_url=live.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )

    def post(self, path: str, context: dict[str, Any] | None, **body: Any) -> httpx.Response:
        if context is not None:
            body["context"] = context
        return self.http.post(path, json=body)

    def write(self, context: dict[str, Any], text: str, namespace: str | None = None) -> str:
        r = self.post("/v1/memories", context, text=text, namespace=namespace)
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def search(self, context: dict[str, Any], query: str, k: int = 10) -> list[dict[str, Any]]:
        r = self.post("/v1/memories/search", context, query=query, k=k)
        assert r.status_code == 200, r.text
        return r.json()["hits"]

    def found(self, context: dict[str, Any], query: str) -> str:
        """All hit texts, joined: ranking may return loosely related facts, so tests check
        that a marker word is absent rather than that nothing came back."""
        return " ".join(h["text"] for h in self.search(context, query, k=100))

    def texts(self, context: dict[str, Any]) -> list[str]:
        r = self.post("/v1/memories/list", context)
        assert r.status_code == 200, r.text
        return [f["text"] for f in r.json()["facts"]]


@pytest.fixture(scope="module")
def api(live: Live) -> Api:
    return Api(live, live.token("test-agent"))


def assert_error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code, body
    return body["error"]


# --- authentication -----------------------------------------------------------------------------


def test_no_token_is_401_and_no_data(live: Live, api: Api) -> None:
    api.write(dm(ALICE), "Alice keeps bees")
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"}):
        r = httpx.post(
            f"{live.url}/v1/memories/search",
            json={"context": dm(ALICE), "query": "bees"},
            headers=headers,
        )
        assert_error(r, 401, "unauthenticated")
        assert r.headers["www-authenticate"] == "Bearer"
        assert "bees" not in r.text


def test_authentication_comes_before_parsing(live: Live) -> None:
    r = httpx.post(
        f"{live.url}/v1/memories",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert_error(r, 401, "unauthenticated")
    assert_error(httpx.get(f"{live.url}/v1/no-such-route"), 401, "unauthenticated")


def test_revoked_key_stops_working_at_once(live: Live) -> None:
    from confidante.services.credentials import AgentKeys

    token = live.token("short-lived")
    client = Api(live, token)
    assert client.post("/v1/memories/search", dm(ALICE), query="x").status_code == 200
    AgentKeys(live.mem).revoke("short-lived")
    assert_error(client.post("/v1/memories/search", dm(ALICE), query="x"), 401, "unauthenticated")


def test_keys_store_only_a_hash(live: Live) -> None:
    from confidante.services.credentials import AgentKeys

    token = live.token("hash-check")
    keys = {k.name: k for k in AgentKeys(live.mem).list()}
    assert token not in repr(keys["hash-check"])
    assert keys["hash-check"].describe() == {
        "name": "hash-check",
        "created": keys["hash-check"].created,
        "pinned": False,
    }


def test_openapi_is_public_and_declares_bearer_auth(live: Live) -> None:
    spec = httpx.get(f"{live.url}/openapi.json").json()
    assert "/v1/memories" in spec["paths"] and "/v1/memories/search" in spec["paths"]
    assert spec["components"]["securitySchemes"]["agentKey"]["scheme"] == "bearer"
    assert not any(p.startswith("/dashboard") for p in spec["paths"])


# --- every endpoint -------------------------------------------------------------------------------


def test_remember_returns_201_and_the_fact(api: Api) -> None:
    r = api.post("/v1/memories", dm(ALICE), text="I prefer oolong tea", namespace=None)
    assert r.status_code == 201
    fact = r.json()
    assert (
        fact["scope"] == "user"
        and fact["subject"] == ALICE
        and fact["text"] == "I prefer oolong tea"
    )
    assert fact["tier"] == "internal" and fact["expires_at"]


def test_search_shape(api: Api) -> None:
    fid = api.write(dm(ALICE), "Alice's cat is called Miso")
    hits = api.search(dm(ALICE), "cat Miso")
    assert hits[0]["id"] == fid
    assert set(hits[0]) == {"id", "text", "scope", "score", "superseded_by"}
    assert isinstance(hits[0]["score"], float)


def test_get_update_forget(api: Api) -> None:
    fid = api.write(dm(ALICE), "Alice runs on Tuesdays")
    r = api.post(f"/v1/memories/{fid}/get", dm(ALICE))
    assert r.status_code == 200 and r.json()["text"] == "Alice runs on Tuesdays"
    r = api.post(f"/v1/memories/{fid}/update", dm(ALICE), text="Alice runs on Thursdays")
    assert r.status_code == 200 and r.json()["text"] == "Alice runs on Thursdays"
    r = api.post(f"/v1/memories/{fid}/forget", dm(ALICE))
    assert r.status_code == 200 and r.json() == {"forgotten": fid}
    assert_error(api.post(f"/v1/memories/{fid}/get", dm(ALICE)), 404, "not_found")


def test_list_with_limit(api: Api) -> None:
    api.write(dm(BOB), "Bob one")
    api.write(dm(BOB), "Bob two")
    r = api.post("/v1/memories/list", dm(BOB), limit=1)
    assert r.status_code == 200 and len(r.json()["facts"]) == 1


def test_prompt_context(api: Api) -> None:
    api.write(dm(ALICE), "Alice is learning the cello")
    r = api.post("/v1/prompt-context", dm(ALICE), query="cello", max_tokens=300)
    assert r.status_code == 200 and "cello" in r.json()["context"]


def test_stats_audit_cleanup_denials(api: Api) -> None:
    assert api.http.get("/v1/stats").status_code == 200
    audit = api.post("/v1/audit", dm(OWNER))
    assert audit.status_code == 200 and "ok" in audit.json()
    assert_error(api.post("/v1/audit", dm(ALICE)), 403, "owner_required")
    assert_error(api.post("/v1/audit", guild(OWNER, G1)), 403, "owner_private_context_required")
    r = api.post("/v1/cleanup", dm(OWNER), dry_run=True)
    assert r.status_code == 200 and isinstance(r.json(), dict)
    assert_error(api.post("/v1/cleanup", dm(ALICE)), 403, "owner_required")
    r = api.post("/v1/cleanup/history", dm(OWNER))
    assert r.status_code == 200 and isinstance(r.json()["history"], list)
    assert_error(api.post("/v1/cleanup/history", dm(BOB)), 403, "owner_required")
    r = api.post("/v1/denials", dm(OWNER), limit=50)
    assert r.status_code == 200
    codes = {d["code"] for d in r.json()["denials"]}
    assert {"owner_required", "owner_private_context_required"} <= codes
    assert_error(api.post("/v1/denials", dm(ALICE)), 403, "owner_required")


def test_forget_subject_self_and_others(api: Api) -> None:
    carol = "discord:77"
    api.write(dm(carol), "Carol likes sailing")
    assert_error(api.post("/v1/subjects/forget", dm(BOB), actor=carol), 403, "forbidden_subject")
    r = api.post("/v1/subjects/forget", dm(carol), actor=carol)
    assert r.status_code == 200 and all(isinstance(v, int) for v in r.json().values())
    assert "sailing" not in api.found(dm(carol), "sailing")


def test_forget_guild_is_the_owners(api: Api) -> None:
    api.write(guild(ALICE, "g-doomed"), "The doomed server meets on Fridays")
    assert_error(
        api.post("/v1/guilds/forget", guild(ALICE, "g-doomed"), guild="g-doomed"),
        403,
        "owner_required",
    )
    r = api.post("/v1/guilds/forget", dm(OWNER), guild="g-doomed")
    assert r.status_code == 200
    assert "doomed" not in api.found(guild(ALICE, "g-doomed"), "doomed server Fridays")


# --- isolation invariants, through the API ----------------------------------------------------


def test_owner_facts_only_in_owner_private_contexts(api: Api) -> None:
    fid = api.write(dm(OWNER), "Dentist moved to Thursday zebracode", namespace="owner")
    assert api.search(dm(OWNER), "dentist zebracode")[0]["id"] == fid
    for ctx in (
        dm(ALICE),
        guild(ALICE, G1),
        guild(OWNER, G1),
        {"surface": "background", "task": "digest"},
    ):
        assert "zebracode" not in api.found(ctx, "dentist zebracode")
        assert "zebracode" not in " ".join(api.texts(ctx))
        assert_error(api.post(f"/v1/memories/{fid}/get", ctx), 404, "not_found")
        assert_error(api.post(f"/v1/memories/{fid}/forget", ctx), 404, "not_found")
        r = api.post("/v1/prompt-context", ctx, query="dentist zebracode")
        assert r.status_code == 200 and "zebracode" not in r.text
    assert api.post(f"/v1/memories/{fid}/get", dm(OWNER)).status_code == 200


def test_owner_writes_refused_with_the_policy_codes(api: Api) -> None:
    r = api.post("/v1/memories", dm(ALICE), text="I am the owner now", namespace="owner")
    assert_error(r, 403, "owner_required")
    r = api.post("/v1/memories", guild(OWNER, G1), text="secret plans", namespace="owner")
    assert_error(r, 403, "owner_private_context_required")
    r = api.post("/v1/memories", dm(ALICE), text="Bob is rude", namespace=f"user:{BOB}")
    assert_error(r, 403, "forbidden_subject")
    r = api.post("/v1/memories", dm(ALICE), text="We meet Fridays", namespace="guild")
    assert_error(r, 403, "guild_context_required")
    r = api.post("/v1/memories/search", dm(ALICE), query="x", subjects=[BOB])
    assert_error(r, 403, "owner_required")


@pytest.mark.parametrize("surface", ["owner_dashboard", "local", "dashboard"])
def test_owner_surfaces_cannot_be_asserted_by_agents(api: Api, surface: str) -> None:
    ctx = {"surface": surface, "actor": OWNER}
    assert_error(api.post("/v1/memories/search", ctx, query="dentist"), 403, "surface_not_allowed")
    assert_error(
        api.post("/v1/memories", ctx, text="x", namespace="owner"), 403, "surface_not_allowed"
    )
    denials = api.post("/v1/denials", dm(OWNER), limit=500).json()["denials"]
    assert any(d["code"] == "surface_not_allowed" and d["surface"] == surface for d in denials)


@pytest.mark.parametrize("actor", ["silo:0123456789abcdef", "mem0:alice", "silo:/tmp/x"])
def test_importer_platforms_cannot_be_asserted_by_agents(live: Live, api: Api, actor: str) -> None:
    """`silo:<hash>` and `mem0:<id>` are the importers' placeholders for people they could
    not name: an agent asserting one would read that person's imported silo."""
    from confidante import Context
    from confidante.services.credentials import AgentKeys

    live.mem.remember(Context.dm(actor), "imported: plays the oboe badgerword")
    assert_error(api.post("/v1/memories/list", dm(actor)), 403, "reserved_platform")
    r = api.post("/v1/memories/search", dm(actor), query="badgerword")
    assert_error(r, 403, "reserved_platform")
    assert "badgerword" not in r.text
    assert_error(api.post("/v1/memories", dm(actor), text="x"), 403, "reserved_platform")
    as_participant = guild(ALICE, G1, participants=[actor])
    assert_error(api.post("/v1/memories/list", as_participant), 403, "reserved_platform")
    with pytest.raises(AccessDenied) as e:  # nor pinned into a key
        AgentKeys(live.mem).add(f"pin-{abs(hash(actor))}", dm(actor))
    assert e.value.code == "reserved_platform"
    denials = api.post("/v1/denials", dm(OWNER), limit=500).json()["denials"]
    assert any(d["code"] == "reserved_platform" and d["surface"] == "dm" for d in denials)


def test_cross_user_isolation(api: Api) -> None:
    fid = api.write(dm(ALICE), "Alice's locker combination hint is the moon quokkaword")
    assert "quokkaword" not in api.found(dm(BOB), "quokkaword")
    assert "quokkaword" not in " ".join(api.texts(dm(BOB)))
    assert_error(api.post(f"/v1/memories/{fid}/get", dm(BOB)), 404, "not_found")
    assert_error(api.post(f"/v1/memories/{fid}/forget", dm(BOB)), 404, "not_found")
    # Learned in Alice's DM: not shown in a guild, even to Alice herself, nor about her.
    assert "quokkaword" not in api.found(guild(ALICE, G1), "quokkaword")
    assert "quokkaword" not in api.found(guild(BOB, G1, participants=[ALICE]), "quokkaword")
    assert api.search(dm(ALICE), "quokkaword")[0]["id"] == fid


def test_cross_guild_isolation(api: Api) -> None:
    fid = api.write(guild(ALICE, G1), "Guild one reads Dune platypusword")
    assert api.search(guild(BOB, G1), "platypusword")[0]["id"] == fid
    for ctx in (guild(ALICE, G2), guild(BOB, G2), dm(ALICE), dm(BOB)):
        assert "platypusword" not in api.found(ctx, "platypusword")
        assert_error(api.post(f"/v1/memories/{fid}/get", ctx), 404, "not_found")
    # Same id on another platform is another community.
    assert "platypusword" not in api.found(guild("slack:42", G1), "platypusword")


def test_forgetting_needs_writer_subject_or_owner(api: Api) -> None:
    fid = api.write(guild(ALICE, G1), "Guild one picnic is in June")
    assert_error(api.post(f"/v1/memories/{fid}/forget", guild(BOB, G1)), 403, "not_author")
    assert api.post(f"/v1/memories/{fid}/forget", guild(ALICE, G1)).status_code == 200


def test_refused_private_data_is_not_echoed(api: Api) -> None:
    secret = "sk-live-4eC39HqLyjWDarjtT1zdp7dc"
    r = api.post("/v1/memories", dm(ALICE), text=f"my api key is {secret}")
    err = assert_error(r, 422, "private_data_refused")
    assert secret not in r.text and secret not in err["message"]


# --- pinned keys --------------------------------------------------------------------------------


def test_pinned_key_speaks_only_as_itself(live: Live) -> None:
    pinned = Api(live, live.token("alice-bot", dm(ALICE)))
    r = pinned.post("/v1/memories", None, text="Pinned Alice likes kites")
    assert r.status_code == 201 and r.json()["subject"] == ALICE
    assert pinned.post("/v1/memories", dm(ALICE), text="Alice again").status_code == 201
    assert_error(
        pinned.post("/v1/memories/search", dm(BOB), query="kites"), 403, "pinned_context_mismatch"
    )


def test_unpinned_key_must_send_a_context(api: Api) -> None:
    assert_error(api.post("/v1/memories/search", None, query="x"), 422, "invalid_context")


# --- the error shape on bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"context": dm(ALICE), "text": 5}, 422, "invalid_input"),
        ({"context": dm(ALICE), "text": None}, 422, "invalid_input"),
        ({"context": dm(ALICE)}, 422, "invalid_input"),
        ({"context": dm(ALICE), "text": "   "}, 422, "empty_text"),
        ({"context": dm(ALICE), "text": "\u200b\u200d\ufeff"}, 422, "empty_text"),
        ({"context": dm(ALICE), "text": "x", "kind": "\x00"}, 422, "invalid_input"),
        ({"context": dm(ALICE), "text": "x" * 20_001}, 422, "invalid_input"),
        ({"context": dm(ALICE), "text": "nul \x00 here"}, 422, "invalid_input"),
        ({"context": dm(ALICE), "text": "lone \ud800 surrogate"}, 422, "invalid_input"),
        ({"context": dm(ALICE), "text": "x", "extra": 1}, 422, "invalid_input"),
        ({"context": dm(ALICE), "text": "x", "namespace": "nonsense"}, 403, "unknown_namespace"),
        ({"context": dm(ALICE), "text": "x", "ttl_days": 1e300}, 422, "invalid_input"),
        ({"context": {"surface": "dm"}, "text": "x"}, 422, "invalid_context"),
        ({"context": {"surface": "telepathy", "actor": ALICE}, "text": "x"}, 422, "invalid_input"),
        ({"context": {"surface": "dm", "actor": "no-platform"}, "text": "x"}, 422, "invalid_actor"),
        (
            {"context": {"surface": "dm", "actor": ALICE, "guild": G1}, "text": "x"},
            422,
            "invalid_context",
        ),
        (
            {"context": {"surface": "guild_text", "actor": ALICE}, "text": "x"},
            422,
            "invalid_context",
        ),
        ({"context": [], "text": "x"}, 422, "invalid_input"),
        ([], 422, "invalid_input"),
    ],
)
def test_bad_input_gets_the_error_shape(api: Api, body: Any, status: int, code: str) -> None:
    import json

    raw = json.dumps(body).encode()  # json.dumps keeps a lone surrogate as an escape
    r = api.http.post("/v1/memories", content=raw, headers={"content-type": "application/json"})
    assert_error(r, status, code)


def test_unicode_is_fine(api: Api) -> None:
    text = "Alice 🐝 はちみつ が好き — مرحبا"
    fid = api.write(dm(ALICE), text)
    assert api.post(f"/v1/memories/{fid}/get", dm(ALICE)).json()["text"] == text


def test_malformed_json_is_400(api: Api) -> None:
    r = api.http.post(
        "/v1/memories", content=b'{"text": ', headers={"content-type": "application/json"}
    )
    assert_error(r, 400, "malformed_json")


def test_huge_body_is_413(api: Api) -> None:
    r = api.http.post(
        "/v1/memories",
        content=b'{"text": "' + b"a" * 2_000_000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert_error(r, 413, "payload_too_large")


def test_chunked_huge_body_is_413(api: Api) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(40):
            yield b"a" * 50_000
        yield b'"}'

    r = api.http.post(
        "/v1/memories", content=chunks(), headers={"content-type": "application/json"}
    )
    assert_error(r, 413, "payload_too_large")


def test_unknown_route_and_method(api: Api) -> None:
    assert_error(api.http.get("/v1/nothing-here"), 404, "not_found")
    assert_error(api.http.get("/v1/memories"), 405, "method_not_allowed")


def test_bad_fact_ids(api: Api) -> None:
    assert_error(api.post("/v1/memories/does-not-exist/get", dm(ALICE)), 404, "not_found")
    r = api.post("/v1/memories/" + "a" * 65 + "/get", dm(ALICE))
    assert_error(r, 422, "invalid_input")


# --- the key commands, end to end ----------------------------------------------------------------


def test_cli_key_lifecycle_against_a_running_server(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import base64
    import json

    import typer
    from typer.testing import CliRunner

    from confidante.surfaces.cli.agents import register

    key = new_key()
    db = tmp_path / "memory.db"
    monkeypatch.setenv("CONFIDANTE_DB", str(db))
    monkeypatch.setenv("CONFIDANTE_OWNER_IDS", OWNER)
    monkeypatch.setenv("CONFIDANTE_MASTER_KEY", base64.b64encode(key).decode())
    app, keys = typer.Typer(), typer.Typer()
    register(app, keys)
    app.add_typer(keys, name="keys")
    cli = CliRunner()

    mem = Memory.open(db, owner_ids=[OWNER], master_key=key)
    with live_server(mem) as live:
        out = cli.invoke(app, ["keys", "add-agent", "bot", "--json"])
        assert out.exit_code == 0, out.output
        token = json.loads(out.output)["token"]
        assert token.startswith("cf_")
        pinned = cli.invoke(app, ["keys", "add-agent", "alice", "--as", ALICE, "--dm", "--json"])
        assert json.loads(pinned.output)["pinned"] is True
        refused = cli.invoke(app, ["keys", "add-agent", "sneaky", "--as", OWNER, "--local"])
        assert refused.exit_code != 0 and "invalid_context" in refused.output

        listed = cli.invoke(app, ["keys", "list-agents", "--json"])
        assert token not in listed.output
        agents = {a["name"]: a for a in json.loads(listed.output)["agents"]}
        assert set(agents) == {"bot", "alice"} and agents["alice"]["pinned"] == dm(ALICE)

        client = Api(live, token)
        assert client.post("/v1/memories/search", dm(ALICE), query="x").status_code == 200
        assert cli.invoke(app, ["keys", "revoke-agent", "bot"]).exit_code == 0
        assert_error(
            client.post("/v1/memories/search", dm(ALICE), query="x"), 401, "unauthenticated"
        )
        assert cli.invoke(app, ["keys", "revoke-agent", "bot"]).exit_code != 0

        short = cli.invoke(app, ["dashboard", "set-password", "--password-stdin"], input="short\n")
        assert short.exit_code != 0
        ok = cli.invoke(
            app, ["dashboard", "set-password", "--password-stdin"], input="a long passphrase\n"
        )
        assert ok.exit_code == 0
    from confidante.services.credentials import check_password

    assert check_password(mem, "a long passphrase") and not check_password(mem, "short")
    mem.close()
