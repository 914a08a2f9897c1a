"""Importers never widen: a file's place in the tree decides the widest audience its entries
reach, what the file says about itself (confidante's comment) can only narrow that, and no
symlink inside the tree is followed. Real trees on disk (real symlinks), real memories on
both engines, and a property test over random trees and comments."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from confidante import Context, Memory, Scope
from confidante.interop import SKIP_REASONS, SenderMap, export_silo_tree, import_from, silo_hash
from confidante.interop.files import Tree
from confidante.interop.markdown import meta_comment
from confidante.interop.narrowing import FilePlace, decide
from confidante.vault.crypto import new_key

from conftest import ALICE, BOB, CAROL, OWNER, OWNER_TG

OWNER_CTX = Context.local(OWNER)
SECRET = "Owner secret: the spare key hides under the blue flowerpot"


def _md(*blocks: tuple[str, dict[str, Any] | None]) -> str:
    out = ["# MEMORY", ""]
    for text, meta in blocks:
        out += ["##", text]  # no header: an entry's text is exactly its body
        if meta is not None:
            out.append(meta_comment(meta))
        out.append("")
    return "\n".join(out)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _everything(mem: Memory) -> list:
    return mem.list(OWNER_CTX)


def _stored(mem: Memory) -> set[str]:
    return {f.text for f in _everything(mem)}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """The owner's files outside the tree: what a link would smuggle in."""
    out = tmp_path / "owner-private"
    _write(out / "MEMORY.md", _md((SECRET, None)))
    _write(out / "notes.json", json.dumps({"messages": [{"role": "user", "content": SECRET}]}))
    return out


# --- no symlink is followed -----------------------------------------------------------------


def test_a_silo_file_linked_to_the_owners_file_is_not_read(
    tmp_path: Path, mem: Memory, outside: Path
) -> None:
    """The review's case: a user's `MEMORY.md` that is a symlink to one of the owner's
    files. Nothing of it lands in that user's silo (or anywhere); the link is reported."""
    base = tmp_path / "tree"
    silo = base / "users" / silo_hash(ALICE)
    silo.mkdir(parents=True)
    (silo / "MEMORY.md").symlink_to(outside / "MEMORY.md")
    _write(base / "users" / silo_hash(BOB) / "MEMORY.md", _md(("Keeps three beehives", None)))
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE, BOB]))
    assert SECRET not in _stored(mem)
    assert _stored(mem) == {"Keeps three beehives"}
    assert report.skipped == [(f"users/{silo_hash(ALICE)}/MEMORY.md", "symlink")]
    assert SECRET not in json.dumps(report.to_dict())


LINKS = {
    # where the link is (relative to the tree) -> what it points at (in `outside`)
    "MEMORY.md": "MEMORY.md",
    "users": ".",
    f"users/{silo_hash(BOB)}": ".",
    "guilds": ".",
    "guilds/discord": ".",
    "guilds/discord/g1": ".",
    "guilds/discord/g1/MEMORY.md": "MEMORY.md",
    "groups/discord/chat9": ".",
    "2026-06-10.md": "MEMORY.md",
    "sessions": ".",
    "sessions/chat.json": "notes.json",
    "sender-ids.txt": "senders.txt",
}


@pytest.mark.parametrize("link", sorted(LINKS))
def test_no_link_inside_the_tree_is_followed(
    tmp_path: Path, mem: Memory, outside: Path, link: str
) -> None:
    """Files and folders alike, wherever the importer walks: the link is reported as a
    `symlink` skip (its position, never its target or contents) and nothing behind it is
    read. Everything else in the tree still comes in."""
    _write(outside / "senders.txt", f"{CAROL}\n")
    (outside / "users" / silo_hash(CAROL)).mkdir(parents=True)
    _write(outside / "users" / silo_hash(CAROL) / "MEMORY.md", _md((SECRET, None)))
    (outside / "discord" / "g1").mkdir(parents=True)
    _write(outside / "discord" / "g1" / "MEMORY.md", _md((SECRET, None)))
    _write(outside / "g1" / "MEMORY.md", _md((SECRET, None)))
    _write(outside / "chat.json", json.dumps({"messages": [SECRET]}))
    base = tmp_path / "tree"
    _write(base / "groups" / "discord" / "chat1" / "MEMORY.md", _md(("Plays the oboe", None)))
    target = outside / LINKS[link]
    path = base / link
    if path.exists() or path.is_symlink():
        pytest.fail("the link must not replace the tree's own files")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target, target_is_directory=target.is_dir())
    senders = None if link == "sender-ids.txt" else SenderMap([ALICE, BOB])
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=senders, ttl_days=3650)
    assert SECRET not in _stored(mem)
    assert not any(f.subject == CAROL for f in _everything(mem))
    assert (link, "symlink") in report.skipped
    assert "Plays the oboe" in _stored(mem)
    assert str(outside) not in json.dumps(report.to_dict())


def test_a_link_inside_the_tree_to_another_silo_is_not_followed(
    tmp_path: Path, mem: Memory
) -> None:
    """A link need not leave the tree to widen: Bob's `MEMORY.md` pointing at Alice's
    would put her words in his silo."""
    base = tmp_path / "tree"
    alice = _write(base / "users" / silo_hash(ALICE) / "MEMORY.md", _md(("I like tea", None)))
    bob = base / "users" / silo_hash(BOB)
    bob.mkdir(parents=True)
    (bob / "MEMORY.md").symlink_to(Path("..") / silo_hash(ALICE) / "MEMORY.md")
    assert alice.is_file()
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE, BOB]))
    assert [(f.subject, f.text) for f in _everything(mem)] == [(ALICE, "I like tea")]
    assert report.skipped == [(f"users/{silo_hash(BOB)}/MEMORY.md", "symlink")]


def test_the_named_folder_may_itself_be_a_link(tmp_path: Path, mem: Memory) -> None:
    """The path the owner names is their choice: followed once, and only it."""
    real = tmp_path / "real-tree"
    _write(real / "users" / silo_hash(ALICE) / "MEMORY.md", _md(("Plays the oboe", None)))
    (tmp_path / "named").symlink_to(real, target_is_directory=True)
    report = import_from(
        mem, "silo-tree", tmp_path / "named", OWNER_CTX, sender_ids=SenderMap([ALICE])
    )
    assert report.imported == 1 and report.skipped == []


def test_a_link_swapped_in_after_the_listing_is_not_read(tmp_path: Path, outside: Path) -> None:
    """Every component is opened relative to its folder with O_NOFOLLOW: a file or a folder
    on the way that is a link when it is opened is refused, whatever the listing said."""
    base = tmp_path / "tree"
    silo = base / "users" / silo_hash(ALICE)
    _write(silo / "MEMORY.md", "mine")
    tree = Tree(base)
    assert [n.kind for n in tree.list("users", silo_hash(ALICE))] == ["file"]
    (silo / "MEMORY.md").unlink()
    (silo / "MEMORY.md").symlink_to(outside / "MEMORY.md")  # swapped after the listing
    skip = tree.read("users", silo_hash(ALICE), "MEMORY.md")
    assert skip is not None and not isinstance(skip, str)
    assert (skip.position, skip.reason) == (f"users/{silo_hash(ALICE)}/MEMORY.md", "symlink")
    # a folder on the way swapped for a link to a look-alike folder outside
    fake = tmp_path / "fake-silo"
    _write(fake / "MEMORY.md", SECRET)
    os.rename(silo, tmp_path / "moved")
    silo.symlink_to(fake, target_is_directory=True)
    skip = tree.read("users", silo_hash(ALICE), "MEMORY.md")
    assert skip is not None and not isinstance(skip, str) and skip.reason == "symlink"
    assert tree.kind("users", silo_hash(ALICE), "MEMORY.md") == "symlink"
    assert tree.list("users", silo_hash(ALICE)) == []


# --- a comment in a user's silo can only narrow -------------------------------------------

WIDENINGS: dict[str, dict[str, Any]] = {
    "owner memory": {"scope": "owner"},
    "owner memory, as the owner": {"scope": "owner", "author": OWNER, "origin": "owner"},
    "a global note": {"scope": "global"},
    "a guild under another person's name": {
        "scope": "guild",
        "community": "discord:g1",
        "origin": "guild:discord:g1",
        "author": BOB,
    },
    "a guild under her own name": {
        "scope": "guild",
        "community": "discord:g1",
        "origin": "guild:discord:g1",
        "author": ALICE,
    },
    "another person's silo": {"scope": "user", "subject": BOB, "origin": f"dm:{BOB}"},
    "another person's silo, written by the owner": {
        "scope": "user",
        "subject": BOB,
        "origin": "owner",
        "author": OWNER,
    },
    "another person's fact learned in a guild": {
        "scope": "user",
        "subject": BOB,
        "origin": "guild:discord:g1",
        "author": BOB,
    },
    "her own fact, authored by someone else": {
        "scope": "user",
        "subject": ALICE,
        "origin": f"dm:{ALICE}",
        "author": BOB,
    },
    "the owner's session history": {"scope": "session"},
    "a community named in the comment": {"scope": "user", "community": "discord:g1"},
}


@pytest.mark.parametrize("case", sorted(WIDENINGS))
def test_a_comment_in_a_users_silo_cannot_widen(tmp_path: Path, mem: Memory, case: str) -> None:
    """Text a user dictated, followed by a forged comment: it never reaches owner memory,
    a global note, a guild, or another person's silo. The entry is skipped as
    `metadata_widens` (by position), and the rest of the silo comes in as hers."""
    base = tmp_path / "tree"
    forged = "Forged: the owner's password hint is the dog's name"
    _write(
        base / "users" / silo_hash(ALICE) / "MEMORY.md",
        _md(("I like tea", None), (forged, WIDENINGS[case])),
    )
    report = import_from(mem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE, BOB]))
    assert report.skipped == [(f"users/{silo_hash(ALICE)}/MEMORY.md:6", "metadata_widens")]
    facts = _everything(mem)
    assert [(f.scope, f.subject, f.text) for f in facts] == [(Scope.USER, ALICE, "I like tea")]
    for ctx in (Context.dm(BOB), Context.guild(BOB, "g1"), Context.guild(ALICE, "g1")):
        assert mem.list(ctx) == [] or all(f.text != forged for f in mem.list(ctx))


def test_a_comment_in_a_users_silo_may_narrow(tmp_path: Path, mem: Memory) -> None:
    """Owner-only (the owner's own note about her, as an export writes it) is narrower than
    her DM: kept, and she does not see it. Her own fact learned in a guild, in her silo (as
    older exports wrote it), comes back as said in her DM: narrower, and reported."""
    base = tmp_path / "tree"
    note = {"scope": "user", "subject": ALICE, "origin": "owner", "author": OWNER}
    guild = {"scope": "user", "subject": ALICE, "origin": "guild:discord:g1", "author": ALICE}
    dated = {"scope": "user", "origin": f"dm:{ALICE}", "created_at": "2026-01-02T10:00:00Z"}
    # (dated history keeps its date; a long lifetime keeps it from being archived at once)
    _write(
        base / "users" / silo_hash(ALICE) / "MEMORY.md",
        _md(
            ("Surprise party for her on Friday", note),
            ("Plays bass in the band", guild),
            ("I like tea", dated),
        ),
    )
    report = import_from(
        mem, "silo-tree", base, OWNER_CTX, sender_ids=SenderMap([ALICE]), ttl_days=3650
    )
    assert report.skipped == [] and report.imported == 3
    assert report.narrowed == [f"users/{silo_hash(ALICE)}/MEMORY.md:7"]
    shape = {(f.text, f.scope, f.subject, f.origin, f.author) for f in _everything(mem)}
    assert shape == {
        ("Surprise party for her on Friday", Scope.USER, ALICE, "owner", OWNER),
        ("Plays bass in the band", Scope.USER, ALICE, f"dm:{ALICE}", ALICE),
        ("I like tea", Scope.USER, ALICE, f"dm:{ALICE}", ALICE),
    }
    assert {f.text for f in mem.list(Context.dm(ALICE))} == {
        "Plays bass in the band",
        "I like tea",
    }
    assert mem.list(Context.guild(BOB, "g1")) == []
    dated_fact = next(f for f in _everything(mem) if f.text == "I like tea")
    assert dated_fact.created_at.isoformat().startswith("2026-01-02")


def test_an_unmapped_silo_names_only_whoever_hashes_to_it(tmp_path: Path, mem: Memory) -> None:
    """With no sender list, a silo folder named by the hash of a whole actor accepts a
    comment naming that actor (an export's own silo), and nobody else: not another person,
    and not another platform's account with the same raw id (`silo_hash("42")` is the
    folder of whoever has the raw id 42, on any platform)."""
    base = tmp_path / "tree"
    own = {"scope": "user", "subject": ALICE, "origin": f"dm:{ALICE}", "author": ALICE}
    other = {"scope": "user", "subject": BOB, "origin": f"dm:{BOB}", "author": BOB}
    _write(base / "users" / silo_hash(ALICE) / "MEMORY.md", _md(("I like tea", own), ("x", other)))
    raw = {"scope": "user", "subject": "telegram:42", "origin": "dm:telegram:42"}
    _write(base / "users" / silo_hash("42") / "MEMORY.md", _md(("Has two cats", raw)))
    report = import_from(mem, "silo-tree", base, OWNER_CTX)
    assert sorted(report.skipped) == [
        (f"users/{silo_hash('42')}/MEMORY.md:3", "metadata_widens"),
        (f"users/{silo_hash(ALICE)}/MEMORY.md:7", "metadata_widens"),
    ]
    assert {(f.subject, f.text) for f in _everything(mem)} == {(ALICE, "I like tea")}


def test_a_guild_file_stays_in_its_guild(tmp_path: Path, mem: Memory) -> None:
    """A community's file brings back that community's memory (by any author) and its
    members' own facts learned there; never another community, owner memory, a global
    note, a DM fact, or a person's fact written by someone else."""
    base = tmp_path / "tree"
    g1 = "discord:g1"
    ok = {
        "We read Dune this month": {"scope": "guild", "origin": f"guild:{g1}", "author": BOB},
        "I keep bees": {"scope": "user", "subject": BOB, "author": BOB, "origin": f"guild:{g1}"},
    }
    widening = {
        "other guild": {"scope": "guild", "community": "discord:g2", "origin": "guild:discord:g2"},
        "a group chat": {"scope": "guild", "origin": f"group:{g1}"},
        "owner": {"scope": "owner"},
        "global": {"scope": "global"},
        "a DM": {"scope": "user", "subject": BOB, "author": BOB, "origin": f"dm:{BOB}"},
        "someone else's": {
            "scope": "user",
            "subject": ALICE,
            "author": BOB,
            "origin": f"guild:{g1}",
        },
        "owner's note": {"scope": "user", "subject": ALICE, "author": OWNER, "origin": "owner"},
        "a person in guild scope": {"scope": "guild", "subject": ALICE},
    }
    blocks = [(t, m) for t, m in ok.items()] + [(f"nope {k}", m) for k, m in widening.items()]
    _write(
        base / "guilds" / "discord" / "g1" / "MEMORY.md", _md(("Meets on Fridays", None), *blocks)
    )
    report = import_from(mem, "silo-tree", base, OWNER_CTX)
    assert report.skipped_by_reason() == {"metadata_widens": len(widening)}
    shape = {
        (f.text, f.scope, f.subject, f.community, f.origin, f.author) for f in _everything(mem)
    }
    assert shape == {
        ("Meets on Fridays", Scope.GUILD, None, g1, f"guild:{g1}", OWNER),
        ("We read Dune this month", Scope.GUILD, None, g1, f"guild:{g1}", BOB),
        ("I keep bees", Scope.USER, BOB, None, f"guild:{g1}", BOB),
    }


def test_the_owners_file_and_daily_notes_keep_to_their_place(tmp_path: Path, mem: Memory) -> None:
    """The root `MEMORY.md` is owner memory and nothing else; a daily note is a global note,
    or (narrower) owner memory; neither can put text in a person's silo or a guild."""
    base = tmp_path / "tree"
    person = {"scope": "user", "subject": ALICE, "origin": f"dm:{ALICE}", "author": ALICE}
    guild = {"scope": "guild", "community": "discord:g1", "origin": "guild:discord:g1"}
    _write(
        base / "MEMORY.md",
        _md(
            ("Dentist moved to Thursday", {"scope": "owner", "author": OWNER_TG}),
            ("nope global", {"scope": "global"}),
            ("nope person", person),
            ("nope guild", guild),
        ),
    )
    _write(
        base / "2026-06-10.md",
        "# 2026-06-10\n\n- The weekly backup finished early\n"
        f"- Owner-only reminder\n  {meta_comment({'scope': 'owner'})}\n"
        f"- nope person\n  {meta_comment(person)}\n"
        f"- nope guild\n  {meta_comment(guild)}\n",
    )
    report = import_from(mem, "silo-tree", base, OWNER_CTX, ttl_days=3650)
    assert report.skipped_by_reason() == {"metadata_widens": 5}
    assert {(f.text, f.scope) for f in _everything(mem)} == {
        ("Dentist moved to Thursday", Scope.OWNER),
        ("The weekly backup finished early", Scope.GLOBAL),
        ("Owner-only reminder", Scope.OWNER),
    }


def test_export_puts_a_members_guild_fact_in_the_guilds_folder(tmp_path: Path, mem: Memory) -> None:
    """So it round-trips exactly under the rule: its place (the guild's folder) says who may
    read it. A community whose id cannot be a folder name gets a `~<hash>` folder, which only
    that community's comment matches."""
    mem.remember(Context.guild(BOB, "g1"), "I keep bees", "me")
    mem.remember(Context.guild(BOB, "odd/id"), "We meet at the pier")
    mem.remember(Context.guild(BOB, "odd/id"), "I fish on Sundays", "me")
    mem.remember(Context.dm(ALICE), "I like tea")
    dest = tmp_path / "out"
    export_silo_tree(mem, OWNER_CTX, dest)
    hashed = "~" + silo_hash("discord:odd/id")
    assert "I keep bees" in (dest / "guilds" / "discord" / "g1" / "MEMORY.md").read_text()
    assert "I fish on Sundays" in (dest / "guilds" / "discord" / hashed / "MEMORY.md").read_text()
    assert not (dest / "users" / silo_hash(BOB)).exists()
    with Memory.open(
        tmp_path / "back.db", owner_ids=[OWNER, OWNER_TG], master_key=new_key()
    ) as back:
        report = import_from(back, "silo-tree", dest, OWNER_CTX)
        assert report.skipped == [] and report.refused == [] and report.narrowed == []

        def shape(m: Memory) -> set[tuple]:
            return {
                (f.text, f.scope, f.subject, f.community, f.origin, f.author)
                for f in _everything(m)
            }

        assert shape(back) == shape(mem)


def test_decide_is_pure_and_total() -> None:
    """Values in, values out: every comment gives a place within the file's, or a reason."""
    place = FilePlace.silo(ALICE, silo_hash(ALICE), mapped=True)
    for meta in ({}, {"scope": 5}, {"scope": "user", "subject": "not an actor"}, {"scope": "?"}):
        got = decide(place, meta, OWNER_CTX, [OWNER])
        assert isinstance(got, str) or got.ctx in (Context.dm(ALICE), OWNER_CTX)


# --- the property: random trees, random comments ------------------------------------------

PEOPLE = [ALICE, BOB, CAROL, "telegram:555"]
COMMUNITIES = [("guilds", "discord:g1"), ("guilds", "discord:g2"), ("groups", "discord:chat9")]
WORDS = ["garden", "bread", "chess", "violin", "kayak", "pottery", "tomato", "lantern"]

meta_values = st.fixed_dictionaries(
    {},
    optional={
        "scope": st.sampled_from(["owner", "user", "guild", "global", "session", "bogus"]),
        "subject": st.sampled_from([OWNER, *PEOPLE, "silo:0123456789abcdef"]),
        "community": st.sampled_from([c for _, c in COMMUNITIES] + ["discord:g3"]),
        "origin": st.sampled_from(
            ["owner", "dashboard"]
            + [f"dm:{p}" for p in (OWNER, *PEOPLE)]
            + [f"{k}:{c}" for k in ("guild", "group") for _, c in COMMUNITIES]
        ),
        "author": st.sampled_from([OWNER, OWNER_TG, *PEOPLE]),
        "created_at": st.sampled_from(["2026-01-02", "2025-12-31T23:00:00Z"]),
        "kind": st.sampled_from(["fact", "preference"]),
    },
)
comments = st.lists(st.one_of(st.none(), meta_values), min_size=0, max_size=3)


@st.composite
def trees(draw: st.DrawFn) -> dict[str, Any]:
    silos = []
    for person in draw(st.lists(st.sampled_from(PEOPLE), unique=True, max_size=4)):
        style = draw(st.sampled_from(["whole", "raw", "stranger"]))
        name = {
            "whole": silo_hash(person),
            "raw": silo_hash(person.partition(":")[2]),
            "stranger": hashlib.sha256(person.encode() + b"?").hexdigest()[:16],
        }[style]
        silos.append((person, name, style != "stranger" and draw(st.booleans())))
    return {
        "owner": draw(st.booleans()),
        "silos": silos,
        "communities": draw(st.lists(st.sampled_from(COMMUNITIES), unique=True, max_size=3)),
        "days": draw(st.lists(st.sampled_from(["2026-06-10", "2026-06-11"]), unique=True)),
        "comments": draw(st.lists(comments, min_size=12, max_size=12)),
        "links": draw(
            st.lists(
                st.sampled_from(["file-out", "folder-out", "file-in", "guild-out", "day-out"]),
                max_size=3,
            )
        ),
    }


@dataclass
class _Built:
    origin: dict[str, tuple[str, Any]] = field(default_factory=dict)  # text -> (place, detail)
    plain: set[str] = field(default_factory=set)  # entries without a comment: must arrive
    links: set[str] = field(default_factory=set)  # positions of links in the tree
    outside: set[str] = field(default_factory=set)  # texts only a followed link could read


def _build(base: Path, outside: Path, spec: dict[str, Any]) -> tuple[_Built, SenderMap]:
    built = _Built()
    counter = iter(range(10_000))
    comments = iter(spec["comments"])

    def texts(kind: str, detail: Any) -> list[tuple[str, dict[str, Any] | None]]:
        metas = [None, *next(comments)]
        out = []
        for meta in metas:
            n = next(counter)
            text = f"{WORDS[n % 8]} {WORDS[(n // 8) % 8]} idea {n}"
            built.origin[text] = (kind, detail)
            if meta is None:
                built.plain.add(text)
            out.append((text, meta))
        return out

    def memory_md(path: Path, kind: str, detail: Any) -> None:
        blocks = texts(kind, detail)
        lines = ["# MEMORY", ""]
        for text, meta in blocks:
            lines += ["##", text] + ([meta_comment(meta)] if meta is not None else []) + [""]
        _write(path, "\n".join(lines))

    # what only a followed link could bring in
    for n in range(3):
        secret = f"outside secret number {n}"
        built.outside.add(secret)
        _write(outside / f"f{n}" / "MEMORY.md", f"##\n{secret}\n")
    if spec["owner"]:
        memory_md(base / "MEMORY.md", "owner", None)
    mapped = []
    for person, name, is_mapped in spec["silos"]:
        memory_md(base / "users" / name / "MEMORY.md", "silo", (person, name, is_mapped))
        if is_mapped:
            mapped.append(person)
    for kind, community in spec["communities"]:
        platform, _, ident = community.partition(":")
        memory_md(base / kind / platform / ident / "MEMORY.md", "community", (kind, community))
    for day in spec["days"]:
        blocks = texts("daily", day)
        lines = [f"# {day}", ""]
        for text, meta in blocks:
            lines.append(f"- {text}")
            if meta is not None:
                lines.append("  " + meta_comment(meta))
        _write(base / f"{day}.md", "\n".join(lines) + "\n")
    for n, link in enumerate(spec["links"]):
        name = hashlib.sha256(f"link{n}".encode()).hexdigest()[:16]
        if link == "file-out":
            rel = f"users/{name}/MEMORY.md"
            target = outside / f"f{n}" / "MEMORY.md"
        elif link == "folder-out":
            rel, target = f"users/{name}", outside / f"f{n}"
        elif link == "file-in":
            silo = next(iter(spec["silos"]), None)
            if silo is None:
                continue
            rel, target = f"users/{name}/MEMORY.md", base / "users" / silo[1] / "MEMORY.md"
        elif link == "guild-out":
            rel, target = f"guilds/discord/linked{n}", outside / f"f{n}"
        else:
            rel, target = f"2026-07-0{n + 1}.md", outside / f"f{n}" / "MEMORY.md"
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).symlink_to(target, target_is_directory=target.is_dir())
        built.links.add(rel)
    return built, SenderMap(mapped)


def _allowed(fact: Any, kind: str, detail: Any) -> bool:
    """Whether a stored fact stays within what its file's place allows."""
    if kind == "owner":
        return fact.scope is Scope.OWNER
    if kind == "daily":
        return fact.scope in (Scope.GLOBAL, Scope.OWNER)
    if kind == "silo":
        person, name, is_mapped = detail
        if is_mapped:
            subjects = {person}
        else:
            subjects = {f"silo:{name}"}
            if hashlib.sha256(fact.subject.encode()).hexdigest().startswith(name):
                subjects.add(fact.subject)
        return (
            fact.scope is Scope.USER
            and fact.subject in subjects
            and fact.community is None
            and fact.origin in (f"dm:{fact.subject}", "owner")
            and fact.author in (fact.subject, OWNER)
        )
    folder, community = detail
    origin = f"{'group' if folder == 'groups' else 'guild'}:{community}"
    if fact.scope is Scope.GUILD:
        return fact.community == community and fact.origin == origin
    return fact.scope is Scope.USER and fact.origin == origin and fact.author == fact.subject


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(spec=trees())
def test_no_import_ever_widens(spec: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="confidante-narrowing-") as tmp:
        base, outside = Path(tmp) / "tree", Path(tmp) / "outside"
        base.mkdir()
        built, senders = _build(base, outside, spec)
        with Memory.open(
            Path(tmp) / "m.db", owner_ids=[OWNER, OWNER_TG], master_key=new_key()
        ) as mem:
            report = import_from(
                mem, "silo-tree", base, OWNER_CTX, sender_ids=senders, ttl_days=3650
            )
            facts = mem.list(OWNER_CTX)
        assert report.refused == []
        stored = {f.text for f in facts}
        assert not stored & built.outside
        for f in facts:
            kind, detail = built.origin[f.text]
            assert _allowed(f, kind, detail), (kind, detail, f.scope, f.subject, f.origin)
        assert built.plain <= stored  # not vacuous: what no comment narrows arrives whole
        assert {p for p, why in report.skipped if why == "symlink"} == built.links
        assert set(report.skipped_by_reason()) <= set(SKIP_REASONS)
