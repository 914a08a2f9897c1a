"""The HTTP API's twins of the newer core: metadata, filters, one fact per sentence said, a
fact's history, display names and guild-tied owner contexts, and shared spaces; over real HTTP
on loopback, on SQLite and on PostgreSQL. Each leak the features could open is probed: filters
never widen, a space is never read outside its members, names never leave the owner."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from confidante import Context, Memory
from surfaces_helpers import Live, live_server

from conftest import ALICE, BOB, CAROL, OWNER


def dm(actor: str, **kw: Any) -> dict[str, Any]:
    return {"surface": "dm", "actor": actor, **kw}


def guild(actor: str, g: str, **kw: Any) -> dict[str, Any]:
    return {"surface": "guild_text", "actor": actor, "guild": g, **kw}


class Api:
    def __init__(self, live: Live, token: str) -> None:
        self.http = httpx.Client(
            base_url=live.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )

    def post(self, path: str, context: dict[str, Any] | None, **body: Any) -> httpx.Response:
        if context is not None:
            body["context"] = context
        return self.http.post(path, json=body)

    def ok(self, path: str, context: dict[str, Any] | None, status: int = 200, **body: Any) -> Any:
        r = self.post(path, context, **body)
        assert r.status_code == status, r.text
        return r.json()

    def remember(self, context: dict[str, Any], text: str, **body: Any) -> dict[str, Any]:
        return self.ok("/v1/memories", context, 201, text=text, **body)

    def texts(self, context: dict[str, Any], **body: Any) -> set[str]:
        return {f["text"] for f in self.ok("/v1/memories/list", context, **body)["facts"]}

    def found(self, context: dict[str, Any], query: str, **body: Any) -> set[str]:
        hits = self.ok("/v1/memories/search", context, query=query, k=50, **body)["hits"]
        return {h["text"] for h in hits}


def assert_error(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    return body["error"]["message"]


@pytest.fixture
def live(mem: Memory) -> Iterator[Live]:
    with live_server(mem) as server:
        yield server


@pytest.fixture
def api(live: Live) -> Api:
    return Api(live, live.token("v2-agent"))


# --- metadata, filters, refreshed, history ----------------------------------------------------


def test_metadata_is_kept_and_a_sentence_said_again_is_one_fact(api: Api) -> None:
    first = api.remember(dm(ALICE), "I like sushi", metadata={"category": "food", "stars": 5})
    assert first["metadata"] == {"category": "food", "stars": 5}
    assert first["refreshed"] is False
    again = api.remember(dm(ALICE), "i like  sushi.")
    assert again["id"] == first["id"] and again["refreshed"] is True
    got = api.ok(f"/v1/memories/{first['id']}/get", dm(ALICE))
    assert got["metadata"] == {"category": "food", "stars": 5} and got["refreshed"] is False
    assert api.texts(dm(ALICE)) == {"I like sushi"}

    # metadata is guarded like text; the refused value is never echoed
    r = api.post(
        "/v1/memories", dm(ALICE), text="my router", metadata={"note": "mail jane.doe@example.org"}
    )
    message = assert_error(r, 422, "private_data_refused")
    assert "jane.doe" not in r.text and message.startswith("refused:")
    for bad in ({"x": {"y": {"z": {"w": {"v": {"u": 1}}}}}}, {"x": "y" * 5000}, {"": 1}):
        assert_error(
            api.post("/v1/memories", dm(ALICE), text="x", metadata=bad), 422, "invalid_input"
        )
    assert_error(
        api.post("/v1/memories", dm(ALICE), text="x", metadata=["a", "list"]), 422, "invalid_input"
    )


def test_filters_narrow_list_and_search_and_never_widen(api: Api) -> None:
    api.remember(dm(ALICE), "I like sushi", metadata={"category": "food"})
    api.remember(dm(ALICE), "I play chess on Sundays", metadata={"category": "hobby"})
    api.remember(dm(ALICE), "Ramen on Fridays", kind="habit", metadata={"category": "food"})
    api.remember(dm(BOB), "I like sushi too BOBMARK", metadata={"category": "food", "tag": "bobs"})
    api.remember(guild(BOB, "g1"), "Guild sushi night GUILDMARK", metadata={"category": "food"})

    food = {"category": "food"}
    assert api.texts(dm(ALICE), filters=food) == {"I like sushi", "Ramen on Fridays"}
    assert api.found(dm(ALICE), "sushi ramen", filters=food) <= {"I like sushi", "Ramen on Fridays"}
    assert api.texts(dm(ALICE), filters={"kind": "habit"}) == {"Ramen on Fridays"}
    got = api.texts(dm(ALICE), filters={"metadata.category": {"$in": ["hobby", "drink"]}})
    assert got == {"I play chess on Sundays"}
    got = api.texts(dm(ALICE), filters={"$or": [{"kind": "habit"}, {"category": "hobby"}]})
    assert got == {"Ramen on Fridays", "I play chess on Sundays"}
    assert api.texts(dm(ALICE), filters={"created_at": {"$gte": "2999-01-01T00:00:00Z"}}) == set()

    # a filter naming another user's metadata (or identity) finds nothing of theirs
    for spec in ({"tag": "bobs"}, {"category": "food", "user_id": BOB}, {"author": BOB}):
        assert api.texts(dm(ALICE), filters=spec) == set()
        assert not api.found(dm(ALICE), "sushi", filters=spec)
    everything = api.texts(dm(ALICE), filters=food) | api.found(dm(ALICE), "sushi", filters=food)
    assert not any("BOBMARK" in t or "GUILDMARK" in t for t in everything)
    # a non-owner who cannot see a scope gets nothing from naming it in a filter
    assert api.texts(dm(CAROL), filters={"category": "food"}) == set()

    for bad in (
        {"category": {"$regex": ".*"}},
        {"created_at": "yesterday"},
        {"$or": []},
        {"category": {"$in": "food"}},
    ):
        for path, extra in (("/v1/memories/list", {}), ("/v1/memories/search", {"query": "x"})):
            r = api.post(path, dm(ALICE), filters=bad, **extra)
            assert_error(r, 422, "invalid_filter")
    assert_error(api.post("/v1/memories/list", dm(ALICE), filters=[1]), 422, "invalid_input")


def test_update_with_metadata_and_the_history_route(api: Api) -> None:
    fact = api.remember(dm(ALICE), "I live in Paris", metadata={"topic": "home"})
    same = api.ok(f"/v1/memories/{fact['id']}/update", dm(ALICE), text="I live in Lyon")
    assert same["text"] == "I live in Lyon" and same["metadata"] == {"topic": "home"}
    moved = api.ok(
        f"/v1/memories/{fact['id']}/update",
        dm(ALICE),
        text="I live in Lyon, near the river",
        metadata={"topic": "home", "since": 2026},
    )
    assert moved["metadata"] == {"topic": "home", "since": 2026}
    r = api.post(
        f"/v1/memories/{fact['id']}/update",
        dm(ALICE),
        text="I live in Lyon",
        metadata={"k": "card 4111 1111 1111 1111"},
    )
    assert_error(r, 422, "private_data_refused")
    assert "4111" not in r.text

    versions = api.ok(f"/v1/memories/{fact['id']}/history", dm(ALICE))["versions"]
    assert [v["event"] for v in versions] == ["add", "update", "update"]
    assert [v["text"] for v in versions] == [
        "I live in Paris",
        "I live in Lyon",
        "I live in Lyon, near the river",
    ]
    assert versions[0]["previous"] is None and versions[1]["previous"] == "I live in Paris"
    assert all(v["fact_id"] == fact["id"] and v["at"] for v in versions)
    # by prefix, as get accepts; invisible where get is
    assert len(api.ok(f"/v1/memories/{fact['id'][:8]}/history", dm(ALICE))["versions"]) == 3
    assert_error(api.post(f"/v1/memories/{fact['id']}/history", dm(BOB)), 404, "not_found")
    r = api.post(f"/v1/memories/{fact['id']}/history", guild(ALICE, "g1"))
    assert_error(r, 404, "not_found")
    assert len(api.ok(f"/v1/memories/{fact['id']}/history", dm(OWNER))["versions"]) == 3


# --- display names and guild-tied owner contexts -----------------------------------------------


def test_names_let_the_owner_ask_by_name_and_never_leave_the_owner(api: Api, live: Live) -> None:
    api.remember(dm(ALICE, names={ALICE: "Alice Martin"}), "I am allergic to peanuts")
    g1 = guild(ALICE, "g1", participants=[BOB], names={ALICE: "Alice", BOB: "Bobby"})
    api.remember(g1, "I am allergic to cats as well", namespace="me")

    assert {"I am allergic to peanuts", "I am allergic to cats as well"} <= api.found(
        dm(OWNER), "what is Alice allergic to?"
    )
    # in g1 a name brings what Alice said in g1 only; in Bob's DM, nothing
    in_g1 = api.found(guild(CAROL, "g1"), "what is Alice allergic to?")
    assert "I am allergic to cats as well" in in_g1 and "I am allergic to peanuts" not in in_g1
    assert api.found(dm(BOB), "what is Alice allergic to?") == set()
    # names are never listed, recalled or exported as facts; never in public stats
    names = {"Alice", "Alice Martin", "Bobby"}
    assert not api.texts(dm(OWNER)) & names
    assert not api.found(dm(OWNER), "Bobby") & names
    stats = httpx.get(f"{live.url}/v1/stats", headers=api.http.headers).text
    assert "Bobby" not in stats and "Martin" not in stats
    assert live.mem.people(Context.dm(OWNER))[BOB] == ["Bobby"]

    # checked like the rest of the context; never on a background context
    for bad, code in (
        (dm(ALICE, names={ALICE: "Al\u200bice"}), "invalid_context"),
        (dm(ALICE, names={ALICE: " "}), "invalid_context"),
        (dm(ALICE, names={"not an actor": "Alice"}), "invalid_actor"),
        ({"surface": "background", "task": "t", "names": {ALICE: "Alice"}}, "invalid_context"),
    ):
        assert_error(api.post("/v1/memories/search", bad, query="x"), 422, code)
    too_many = {f"discord:{9000 + i}": f"N{i}" for i in range(65)}
    r = api.post("/v1/memories/search", dm(ALICE, names=too_many), query="x")
    assert_error(r, 422, "invalid_input")


def test_about_guild_ties_the_owner_dm_to_a_community_and_nothing_else(api: Api) -> None:
    api.remember(guild(ALICE, "g1"), "Our book club meets on Thursdays")
    api.remember(guild(ALICE, "g2"), "Our chess club meets on Thursdays")
    question = "when does the club meet?"
    assert api.found(dm(OWNER), question) == set()
    assert api.found(dm(OWNER, about_guild="g1"), question) == {"Our book club meets on Thursdays"}
    assert api.found(dm(ALICE, about_guild="g1"), question) == set()  # means nothing here
    r = api.post("/v1/memories/search", guild(OWNER, "g1", about_guild="g2"), query=question)
    assert_error(r, 422, "invalid_context")


def test_a_pinned_key_may_carry_names_but_never_another_identity(api: Api, live: Live) -> None:
    pinned = Api(live, live.token("alice-bot", dm(ALICE)))
    wrote = pinned.remember(dm(ALICE, names={ALICE: "Ally"}), "I grow tomatoes")
    assert wrote["subject"] == ALICE
    assert live.mem.people(Context.dm(OWNER))[ALICE] == ["Ally"]
    for other in (dm(BOB, names={ALICE: "Ally"}), dm(ALICE, about_guild="g1"), guild(ALICE, "g1")):
        r = pinned.post("/v1/memories/search", other, query="tomatoes")
        assert_error(r, 403, "pinned_context_mismatch")


def test_a_delegated_token_carries_the_names_it_was_minted_with(api: Api, live: Live) -> None:
    ctx = guild(ALICE, "g1", participants=[BOB], names={ALICE: "Alice", BOB: "Bobby"})
    minted = api.ok("/v1/agent-tokens", ctx, 201, ttl_seconds=60)
    token = Api(live, minted["token"])
    token.remember(None, "Bob brings the snacks", namespace="guild")  # the pinned context
    # a body context may carry this message's own names (they replace the pinned ones)
    token.remember({**ctx, "names": {BOB: "Bob B."}}, "Bob brings the chairs", namespace="guild")
    r = token.post("/v1/memories/search", guild(BOB, "g1"), query="snacks")
    assert_error(r, 403, "pinned_context_mismatch")
    assert set(live.mem.people(Context.dm(OWNER))[BOB]) == {"Bobby", "Bob B."}
    found = api.found(guild(CAROL, "g1"), "what does Bobby bring?")
    assert "Bob brings the snacks" in found


# --- shared spaces -----------------------------------------------------------------------------


def test_spaces_through_the_api(api: Api) -> None:
    owner = dm(OWNER)
    made = api.ok("/v1/spaces", owner, 201, name="home", members=[ALICE, BOB])
    assert made == {"name": "home", "namespace": "shared:home", "members": [ALICE, BOB]}
    assert_error(api.post("/v1/spaces", owner, name="home"), 422, "space_exists")
    assert_error(api.post("/v1/spaces", dm(ALICE), name="mine"), 403, "owner_required")
    r = api.post("/v1/spaces", guild(OWNER, "g1"), name="mine")
    assert_error(r, 403, "owner_private_context_required")
    assert_error(api.post("/v1/spaces", owner, name="Home!"), 422, "invalid_input")

    bins = api.remember(dm(ALICE), "The bins go out on Tuesday SPACEMARK", namespace="shared:home")
    assert bins["scope"] == "shared"
    r = api.post("/v1/memories", dm(CAROL), text="hello", namespace="shared:home")
    assert_error(r, 403, "not_a_member")
    r = api.post("/v1/memories", guild(ALICE, "g1"), text="hello", namespace="shared:home")
    assert_error(r, 403, "not_a_member")

    assert "The bins go out on Tuesday SPACEMARK" in api.found(dm(BOB), "bins")
    assert api.texts(dm(BOB), scope="shared") == {"The bins go out on Tuesday SPACEMARK"}
    assert "The bins go out on Tuesday SPACEMARK" in api.found(owner, "bins")
    members_chat = {"surface": "group_dm", "actor": ALICE, "chat": "c1", "participants": [BOB]}
    assert "The bins go out on Tuesday SPACEMARK" in api.found(members_chat, "bins")
    # never to a non-member, a guild, or a group chat with a non-member in it
    mixed = {**members_chat, "chat": "c2", "participants": [BOB, CAROL]}
    for ctx in (dm(CAROL), guild(ALICE, "g1", participants=[BOB]), mixed):
        assert not any("SPACEMARK" in t for t in api.found(ctx, "bins Tuesday"))
        assert not any("SPACEMARK" in t for t in api.texts(ctx))
    assert_error(api.post(f"/v1/memories/{bins['id']}/get", dm(CAROL)), 404, "not_found")

    listed = api.ok("/v1/spaces/list", owner)["spaces"]
    assert listed == [{"name": "home", "namespace": "shared:home", "members": [ALICE, BOB]}]
    assert_error(api.post("/v1/spaces/list", dm(ALICE)), 403, "owner_required")
    added = api.ok("/v1/spaces/home/members/add", owner, actor=CAROL)
    assert added["members"] == [ALICE, BOB, CAROL]
    assert "The bins go out on Tuesday SPACEMARK" in api.found(dm(CAROL), "bins")
    removed = api.ok("/v1/spaces/home/members/remove", owner, actor=BOB)
    assert removed["members"] == [ALICE, CAROL]
    assert api.found(dm(BOB), "bins") == set()  # at once
    r = api.post("/v1/spaces/home/members/add", dm(ALICE), actor=BOB)
    assert_error(r, 403, "owner_required")
    r = api.post("/v1/spaces/nope/members/add", owner, actor=BOB)
    assert_error(r, 404, "not_found")
    r = api.post("/v1/spaces/home/members/add", owner, actor="not an actor")
    assert_error(r, 422, "invalid_actor")

    assert_error(api.post("/v1/spaces/home/delete", dm(ALICE)), 403, "owner_required")
    report = api.ok("/v1/spaces/home/delete", owner)
    assert report["keys_destroyed"] == 1 and report["facts_deleted"] >= 1
    assert_error(api.post(f"/v1/memories/{bins['id']}/get", owner), 404, "not_found")
    assert_error(api.post("/v1/spaces/home/delete", owner), 404, "not_found")
    assert api.ok("/v1/spaces/list", owner)["spaces"] == []


# --- the OpenAPI document ------------------------------------------------------------------------


def test_openapi_documents_the_new_fields_and_routes(live: Live) -> None:
    spec = httpx.get(f"{live.url}/openapi.json").json()
    schemas = spec["components"]["schemas"]
    for model, field in (
        ("RememberIn", "metadata"),
        ("SearchIn", "filters"),
        ("ListIn", "filters"),
        ("UpdateIn", "metadata"),
        ("ContextIn", "names"),
        ("ContextIn", "about_guild"),
    ):
        prop = schemas[model]["properties"][field]
        assert prop.get("description") and prop.get("examples"), (model, field)
    for field in ("metadata", "refreshed"):
        assert field in schemas["FactOut"]["properties"]
    assert "shared" in str(schemas["ListIn"]["properties"]["scope"])

    paths = spec["paths"]
    for path in (
        "/v1/memories/{fact_id}/history",
        "/v1/spaces",
        "/v1/spaces/list",
        "/v1/spaces/{name}/members/add",
        "/v1/spaces/{name}/members/remove",
        "/v1/spaces/{name}/delete",
    ):
        op = paths[path]["post"]
        assert op["summary"] and op["security"] == [{"agentKey": []}], path
        for status, code in (("403", "owner_required"), ("404", "not_found")):
            examples = op["responses"][status]["content"]["application/json"]["examples"]
            assert examples[code]["value"]["error"]["code"] == code
        examples = op["responses"]["422"]["content"]["application/json"]["examples"]
        assert {"invalid_filter", "space_exists", "invalid_context"} <= set(examples)
    examples = paths["/v1/memories"]["post"]["responses"]["403"]["content"]["application/json"]
    assert "not_a_member" in examples["examples"]
    assert "shared spaces" in paths["/v1/spaces"]["post"]["tags"]
