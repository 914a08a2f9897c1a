"""Issue 11, items 8 and 9: where an update may come from, ids in Unicode disguise, session
keys that cannot collide, expiry details, one path for hidden and missing ids, no meaning
left in a neighbour's vector, private backups and key files, failed logins in the log."""

from __future__ import annotations

import os
import re
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import numpy as np
import pytest

from confidante import (
    AccessDenied,
    Context,
    InvalidActor,
    InvalidContext,
    KeyFileExposed,
    Memory,
    NotFound,
    Surface,
)
from confidante.config import Settings
from confidante.store.sql import SqlStore
from confidante.vault.crypto import key_file_for, new_key
from surfaces_helpers import live_server

from conftest import ALICE, BOB, OWNER, Clock

T0 = datetime(2026, 2, 2, 10, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def cmem(backend: str, key: bytes, clock: Clock):
    m = Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock)
    yield m
    m.close()


# --- item 8: an update comes from where the fact was learned ------------------------------------


def test_text_typed_in_a_dm_is_never_republished_into_a_guild(cmem: Memory) -> None:
    g1 = Context.guild(ALICE, "g1")
    learned = cmem.remember(g1, "I run the g1 book swap", "me")  # about Alice, learned in g1
    community = cmem.remember(g1, "g1 meets on fridays")
    for ctx, fid in [
        (Context.dm(ALICE), learned.id),  # the subject, from her DM
        (Context.dm(OWNER), learned.id),  # the owner, in private, through the agent
        (Context.dm(OWNER), community.id),
        (Context.local(OWNER), community.id),
    ]:
        with pytest.raises(AccessDenied) as e:
            cmem.update(ctx, fid, "my home is on Elm street, come by")
        assert e.value.code == "origin_mismatch"
    seen = {f.text for f in cmem.list(Context.guild(BOB, "g1", participants=[ALICE]))}
    assert seen == {"I run the g1 book swap", "g1 meets on fridays"}
    assert cmem.denials(Context.dm(OWNER), 1)[0].code == "origin_mismatch"

    # From the same conversation it works; and the owner's explicit dashboard flow may edit.
    assert cmem.update(g1, learned.id, "I run the g1 book swap, Sundays").text.endswith("Sundays")
    edited = cmem.update(Context.owner_dashboard(OWNER), community.id, "g1 meets on saturdays")
    assert cmem.get(Context.guild(BOB, "g1"), community.id).text == edited.text


def test_updates_in_place_still_work(cmem: Memory) -> None:
    mine = cmem.remember(Context.dm(ALICE), "I like green tea")
    assert (
        cmem.update(Context.dm(ALICE), mine.id, "I like jasmine tea").text == "I like jasmine tea"
    )
    note = cmem.remember(Context.dm(OWNER), "dentist on monday", "owner")
    assert cmem.update(Context.local(OWNER), note.id, "dentist on tuesday").text.endswith("tuesday")
    with pytest.raises(AccessDenied) as e:  # Alice's DM words do not go into the owner's notes
        cmem.update(Context.dm(OWNER), mine.id, "owner rewrote this")
    assert e.value.code == "origin_mismatch"


# --- item 9: actor ids in Unicode disguise --------------------------------------------------------


DISGUISED = [
    "discord:1\u00a0",  # no-break space
    "\u3000discord:1",  # ideographic space
    "discord:1\u200b",  # zero-width space
    "discord:\u20601",  # word joiner
    " discord:1",
    "discord:1\n",
    "discord:1\u2028",  # line separator
]


@pytest.mark.parametrize("actor", DISGUISED)
def test_an_actor_in_disguise_is_never_the_owner(mem: Memory, actor: str) -> None:
    with pytest.raises(InvalidActor) as e:
        Context.dm(actor)
    assert str(e.value).isascii()  # never echoed (nor the character that disguised it)
    with pytest.raises(InvalidActor):
        Context(Surface.DM, actor)
    with pytest.raises((InvalidActor, InvalidContext)):
        Context.from_spec({"surface": "dm", "actor": actor})
    with pytest.raises(InvalidActor):
        Context.guild(OWNER, "g1", participants=[actor])
    with pytest.raises((InvalidActor, ValueError)):  # a settings error naming the variable
        Settings(owner_ids=[actor])
    before = mem.store.count_facts()
    with pytest.raises(InvalidActor):
        mem.remember(Context.dm(OWNER), "about the lookalike", f"user:{actor}")
    assert mem.store.count_facts() == before


def test_a_distinct_lookalike_stays_distinct(mem: Memory) -> None:
    """Characters that are not whitespace stay: a fullwidth digit is someone else."""
    other = Context.dm("discord:\uff11")  # FULLWIDTH DIGIT ONE
    with pytest.raises(AccessDenied):
        mem.remember(other, "I am the owner now", "owner")
    mem.remember(Context.dm(OWNER), "owner only", "owner")
    assert mem.recall(other, "owner only") == []


def test_guild_and_channel_ids_are_taken_exactly(mem: Memory) -> None:
    for bad in ("g1\u00a0", "\u3000g1", "g1\u200b"):
        with pytest.raises(InvalidContext):
            Context.guild(ALICE, bad)
        with pytest.raises(InvalidContext):
            Context.guild(ALICE, "g1", channel=bad)


# --- item 9: session keys built from ids with ":" -------------------------------------------------


def test_session_keys_with_colons_do_not_collide(mem: Memory) -> None:
    a = Context.guild(ALICE, "g", channel="1:c")
    b = Context.guild(ALICE, "discord:g:1", channel="c")
    none = Context.guild(ALICE, "g2")
    dash = Context.guild(ALICE, "g2", channel="-")
    assert a.session != b.session and none.session != dash.session
    assert Context.guild(ALICE, "g1", channel="general").session == "guild:discord:g1:general"
    mem.remember(a, "said in the first conversation", "session")
    mem.remember(none, "said without a channel", "session")
    assert mem.recall(b, "said first conversation") == []
    assert mem.recall(dash, "said without channel") == []
    assert mem.recall(a, "said first conversation")


# --- item 9: expiry details --------------------------------------------------------------------


def test_refresh_on_read_never_lengthens_an_explicit_ttl(backend: str, key: bytes, clock) -> None:
    s = Settings(refresh_on_read=True, default_ttl_days=10)
    with Memory.open(backend, owner_ids=[OWNER], master_key=key, clock=clock, settings=s) as m:
        short = m.remember(Context.dm(ALICE), "alice is at the station now", ttl=timedelta(hours=1))
        normal = m.remember(Context.dm(ALICE), "alice likes the station cafe")
        clock.advance(minutes=30)
        assert len(m.recall(Context.dm(ALICE), "station")) == 2
        assert m.get(Context.dm(ALICE), short.id).expires_at == clock.now + timedelta(hours=1)
        assert m.get(Context.dm(ALICE), normal.id).expires_at == clock.now + timedelta(days=10)
        clock.advance(hours=2)
        assert [h.fact.id for h in m.recall(Context.dm(ALICE), "station")] == [normal.id]


def test_a_writer_forgets_an_expired_fact_not_yet_purged(cmem: Memory, clock: Clock) -> None:
    live_expired = cmem.remember(Context.dm(ALICE), "temporary plan A", ttl=timedelta(hours=1))
    archived = cmem.remember(Context.dm(ALICE), "temporary plan B", ttl=timedelta(hours=1))
    clock.advance(hours=2)
    with pytest.raises(NotFound):
        cmem.get(Context.dm(ALICE), live_expired.id)  # expired: not readable any more
    with pytest.raises(NotFound):
        cmem.forget(Context.dm(BOB), live_expired.id)  # nor visible to anyone else
    cmem.forget(Context.dm(ALICE), live_expired.id)  # but its writer can still erase it
    assert cmem.store.get_fact(live_expired.id) is None
    cmem.store.archive_facts([cmem.store.get_fact(archived.id)], "2026-02", 0)  # cleanup's move
    assert cmem.store.count_archive() == 1
    cmem.forget(Context.dm(ALICE), archived.id)
    assert cmem.store.count_archive() == 0
    with pytest.raises(NotFound):
        cmem.forget(Context.dm(ALICE), archived.id)


# --- item 9: a hidden id and a missing id take one path ------------------------------------------


def test_hidden_and_missing_ids_take_the_same_path(mem: Memory, monkeypatch) -> None:
    hidden = mem.remember(Context.dm(OWNER), "owner only thought", "owner")
    missing = "0" * 32
    statements: list[str] = []
    real = SqlStore._q

    def spy(self, sql, params=()):
        statements.append(sql.split()[0])
        return real(self, sql, params)

    monkeypatch.setattr(SqlStore, "_q", spy)
    paths = []
    for fid in (hidden.id, missing, hidden.id, missing):
        statements.clear()
        with pytest.raises(NotFound) as e:
            mem.get(Context.dm(ALICE), fid)
        paths.append((tuple(statements), str(e.value), e.value.code))
    monkeypatch.undo()
    assert paths[0] == paths[1] and paths[2] == paths[3]
    assert any(s in ("INSERT", "UPDATE") for s in paths[0][0])  # one log write, for both


# --- item 9: no meaning left in a neighbour's vector ---------------------------------------------


def test_a_forgotten_line_leaves_no_meaning_in_its_neighbours(mem: Memory) -> None:
    embedder = next(r for r in mem.pipeline.rankers if hasattr(r, "embed_documents"))
    lines = ["I finally adopted a kitten named Biscuit", "yes, last week!", "we went hiking"]
    facts = mem.remember_many(Context.dm(ALICE), lines, embed_context=1)

    def vector(fid: str) -> np.ndarray:
        opened = mem.open_row(mem.store.get_fact(fid))
        assert opened is not None and opened.vector is not None
        return opened.vector

    def same(fid: str, text: str) -> bool:
        # float16 as stored; a batch and a single text may round their last bit apart
        return np.allclose(vector(fid), embedder.embed_documents([text])[0], atol=2e-3)

    assert same(facts[1].id, " ".join(lines[:2]))
    assert not same(facts[1].id, lines[1])
    mem.forget(Context.dm(ALICE), facts[0].id)
    assert same(facts[1].id, lines[1])
    assert same(facts[2].id, " ".join(lines[1:]))  # untouched
    mem.update(Context.dm(ALICE), facts[1].id, "yes, it was fun")
    assert same(facts[2].id, "yes, it was fun we went hiking")


# --- item 9: private backups and key files ---------------------------------------------------------


def test_backups_are_private_from_the_first_byte(db_path: Path, key: bytes, monkeypatch) -> None:
    old = os.umask(0)
    try:
        with Memory.open(db_path, owner_ids=[OWNER], master_key=key) as m:
            m.remember(Context.dm(ALICE), "backed up")
            monkeypatch.setattr(os, "chmod", lambda *a, **k: pytest.fail("chmod after creation"))
            dest = m.backup(db_path.parent / "b" / "copy.db")
            monkeypatch.undo()
    finally:
        os.umask(old)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o600


def test_a_key_file_others_can_read_is_refused(db_path: Path) -> None:
    Memory.open(db_path, owner_ids=[OWNER]).close()
    kf = key_file_for(db_path)
    secret = kf.read_text().strip()
    for mode in (0o644, 0o640, 0o606):
        os.chmod(kf, mode)
        with pytest.raises(KeyFileExposed) as e:
            Memory.open(db_path, owner_ids=[OWNER])
        assert e.value.code == "key_file_permissions" and secret not in str(e.value)
    os.chmod(kf, 0o600)
    Memory.open(db_path, owner_ids=[OWNER]).close()


# --- item 9: failed logins in the owner's log, aggregated ----------------------------------------


def test_failed_logins_are_counted_not_flooding(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=new_key())
    with live_server(mem) as live:
        bad = "cf_" + "x" * 43
        for _ in range(40):
            r = httpx.post(
                f"{live.url}/v1/memories/list", headers={"Authorization": f"Bearer {bad}"}
            )
            assert r.status_code == 401
        for _ in range(3):
            assert httpx.post(f"{live.url}/mcp", json={}).status_code == 401
        with httpx.Client(base_url=live.url) as c:
            for _ in range(4):
                page = c.get("/dashboard/login")
                csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
                sid = page.cookies.get("confidante_session") or re.search(
                    r"confidante_session=([^;]+)", page.headers.get("set-cookie", "")
                ).group(1)
                r = c.post(
                    "/dashboard/login",
                    data={"password": "wrong password!", "csrf": csrf},
                    headers={"Cookie": f"confidante_session={sid}"},
                )
                assert r.status_code == 401
    log = mem.access_log(Context.dm(OWNER), 100)
    counts: dict[tuple[str, str], int] = {}
    for e in log:
        counts[(e.code, e.surface)] = counts.get((e.code, e.surface), 0) + e.count
        assert bad not in repr(e)
    assert counts[("unauthenticated", "api")] == 40
    assert counts[("unauthenticated", "mcp")] == 3
    assert counts[("login_failed", "dashboard")] == 4
    assert len(log) <= 6  # aggregated: a row per kind of event and minute, not per attempt
    mem.close()
