"""Isolation: what each audience gets, counted against the design's read table.

    python benchmarks/isolation.py [--conversations 0-9] [--questions 40]

1. **LoCoMo silos**: each LoCoMo conversation is one person's memory; the first half of its
   sessions said in their DM, the second half in a guild of their own (with a display name
   for them there), in one database. Every question of every conversation is asked by its
   own person in their DM, by a member of that person's guild naming them, by the owner in
   private naming them, and by every other person in their DM and their guild naming them.
   A hit from a conversation the asking context may not see is a leak (must be 0); the
   share of questions whose own person's facts are found is printed per context.
2. **Probes** (GateMem-style): a canary in every kind of partition (owner, a DM-origin and a
   guild-origin fact of Alice, a guild, a shared space, a session, the directory of names,
   global), read from every kind of context (owner DM, owner asking about a guild, members
   and non-members of the space in DMs and group chats, a guild naming Alice by id, mention
   and display name, another guild, the general dashboard, background), by recall, list and
   get. Each outcome is compared with the read table: a canary seen where the table says no
   is a leak; one not seen where it says yes is a miss (both must be 0).
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
from pathlib import Path

from confidante import ConfidanteError, Context, Memory
from confidante.vault.crypto import new_key
from locomo import DEFAULT_DATA, line, load, sessions

OWNER = "discord:1"


def _span(text: str) -> range:
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def locomo_silos(samples: list[dict], questions: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(Path(tmp) / "silos.db", owner_ids=[OWNER], master_key=new_key())
        people: dict[int, tuple[str, str]] = {}
        owner_of: dict[str, int] = {}
        for i, sample in enumerate(samples):
            actor, name = f"discord:{1000 + i}", f"Member{i}"
            people[i] = (actor, name)
            all_sessions = list(sessions(sample))
            half = len(all_sessions) // 2
            for n, (_, turns) in enumerate(all_sessions):
                if n < half:
                    ctx = Context.dm(actor)
                else:
                    ctx = Context.guild(actor, f"g{i}", channel="c", names={actor: name})
                for f in mem.remember_many(ctx, [line(t) for t in turns], "me"):
                    owner_of[f.id] = i
        leaks = 0
        asked = 0
        found: dict[str, int] = {"own DM": 0, "own guild": 0, "owner naming": 0}
        for i, sample in enumerate(samples):
            actor, name = people[i]
            for qa in sample["qa"][:questions]:
                q = str(qa["question"])
                asked += 1
                contexts = {
                    "own DM": (Context.dm(actor), {i}),
                    "own guild": (
                        Context.guild(f"discord:{9000 + i}", f"g{i}", channel="c"),
                        {i},
                    ),
                    "owner naming": (Context.dm(OWNER), set(owner_of.values())),
                }
                for label, (ctx, allowed) in contexts.items():
                    asking = f"{q} ({name})" if label != "own DM" else q
                    hits = mem.recall(ctx, asking, k=10)
                    leaks += sum(owner_of.get(h.fact.id, -1) not in allowed for h in hits)
                    found[label] += any(owner_of.get(h.fact.id) == i for h in hits)
                for j, (other, _) in people.items():  # everyone else, naming this person
                    if j == i:
                        continue
                    for ctx in (
                        Context.dm(other),
                        Context.guild(other, f"g{j}", channel="c", names={actor: name}),
                    ):
                        hits = mem.recall(ctx, f"{q} ({name}, {actor})", k=10)
                        leaks += sum(owner_of.get(h.fact.id) == i for h in hits)
        mem.close()
    return {"people": len(samples), "questions": asked, "leaks": leaks, "found": found}


ALICE, BOB, CAROL, DAN = "discord:42", "discord:43", "discord:44", "discord:45"
CANARIES = {
    "owner": "the owner's canary is plum",
    "alice_dm": "alice's dm canary is quince",
    "alice_g1": "alice's g1 canary is fennel",
    "guild_g1": "the g1 canary is walnut",
    "space_home": "the home canary is saffron",
    "session": "the session canary is nutmeg",
    "global": "the global canary is clover",
}


def probes() -> dict[str, object]:
    """Plant, read from every context, compare with the table."""
    with tempfile.TemporaryDirectory() as tmp:
        mem = Memory.open(Path(tmp) / "probes.db", owner_ids=[OWNER], master_key=new_key())
        owner = Context.dm(OWNER)
        mem.create_space(owner, "home", members=[ALICE, BOB])
        alice_dm = Context.dm(ALICE, names={ALICE: "Alicia"})
        alice_g1 = Context.guild(ALICE, "g1", channel="c", names={ALICE: "Alicia"})
        ids = {
            "owner": mem.remember(owner, CANARIES["owner"], "owner").id,
            "alice_dm": mem.remember(alice_dm, CANARIES["alice_dm"]).id,
            "alice_g1": mem.remember(alice_g1, CANARIES["alice_g1"], "me").id,
            "guild_g1": mem.remember(alice_g1, CANARIES["guild_g1"]).id,
            "space_home": mem.remember(alice_dm, CANARIES["space_home"], "shared:home").id,
            "session": mem.remember(alice_dm, CANARIES["session"], "session").id,
            "global": mem.remember(owner, CANARIES["global"], "global").id,
        }
        everyone = set(CANARIES)
        mine = {"alice_dm", "alice_g1", "space_home", "session", "global"}
        # context -> (what recall naming Alice may find, what list and get may show); the
        # owner's recall pool starts narrow (no other community unless asked about), and
        # Alice's g1 facts reach g1 only when a query names her
        table: dict[str, tuple[Context, set[str], set[str]]] = {
            "owner DM": (owner, everyone - {"session", "guild_g1"}, everyone - {"session"}),
            "owner about g1": (
                Context.dm(OWNER, about_guild="g1"),
                everyone - {"session"},
                everyone - {"session"},
            ),
            "Alice DM": (alice_dm, mine, mine),
            "Bob DM (member)": (
                Context.dm(BOB),
                {"space_home", "global"},
                {"space_home", "global"},
            ),
            "Carol DM": (Context.dm(CAROL), {"global"}, {"global"}),
            "group of members": (
                Context.group_dm(BOB, "home-chat", participants=[ALICE]),
                {"space_home", "global"},
                {"space_home", "global"},
            ),
            "group with Carol": (
                Context.group_dm(BOB, "mixed", participants=[ALICE, CAROL]),
                {"global"},
                {"global"},
            ),
            "g1 member": (
                Context.guild(DAN, "g1", channel="c"),
                {"alice_g1", "guild_g1", "global"},
                {"guild_g1", "global"},
            ),
            "g2 member": (Context.guild(DAN, "g2", channel="c"), {"global"}, {"global"}),
            "dashboard": (
                Context.dashboard(),
                {"alice_dm", "alice_g1", "guild_g1", "global"},
                {"alice_dm", "alice_g1", "guild_g1", "global"},
            ),
            "background": (Context.background("nightly"), {"global"}, {"global"}),
        }
        # recall names Alice by id, by mention and by display name; list and get as they are
        queries = ["canary", f"canary {ALICE}", "canary <@42>", "what is Alicia's canary?"]
        leaks, misses, checks = [], [], 0
        for label, (ctx, may_recall, may_list) in table.items():
            recalled: set[str] = set()
            for q in queries:
                with contextlib.suppress(ConfidanteError):  # a dashboard names no namespace
                    hit_ids = {h.fact.id for h in mem.recall(ctx, q, k=50)}
                    recalled |= {k for k, v in ids.items() if v in hit_ids}
            listed: set[str] = set()
            with contextlib.suppress(ConfidanteError):
                listed = {k for k, v in ids.items() if v in {f.id for f in mem.list(ctx)}}
            got = set()
            for k, fid in ids.items():
                with contextlib.suppress(ConfidanteError):
                    mem.get(ctx, fid)
                    got.add(k)
            checks += len(ids) * 3
            for what, seen, allowed in (
                ("recalled", recalled, may_recall),
                ("listed", listed, may_list),
                ("got by id", got, may_list | (may_recall - {"alice_g1"})),
            ):
                leaks += [f"{label} {what} {k}" for k in sorted(seen - allowed)]
            misses += [f"{label} did not recall {k}" for k in sorted(may_recall - recalled)]
            misses += [f"{label} did not list {k}" for k in sorted(may_list - listed)]
        names_leak = []
        for label, (ctx, _, _) in table.items():
            if label.startswith("owner"):
                continue
            try:
                text = " ".join(f.text for f in mem.list(ctx)) + mem.prompt_context(ctx, "canary")
            except ConfidanteError:
                continue
            if "Alicia" in text:
                names_leak.append(label)
        mem.close()
    return {
        "contexts": len(table),
        "checks": checks,
        "leaks": leaks,
        "misses": misses,
        "names shown to others": names_leak,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--conversations", default="0-9")
    ap.add_argument("--questions", type=int, default=40, help="per conversation")
    args = ap.parse_args()
    p = probes()
    print(f"probes: {p['contexts']} contexts x {len(CANARIES)} canaries, {p['checks']} checks")
    print(
        f"  leaks {len(p['leaks'])}, misses {len(p['misses'])}, "
        f"display names shown to others {len(p['names shown to others'])}"
    )
    for line_ in p["leaks"] + p["misses"] + p["names shown to others"]:
        print(f"  {line_}")
    if not args.data.exists():
        print(f"(no LoCoMo data at {args.data}: silos skipped)")
        return
    samples = load(args.data)
    samples = [samples[i] for i in _span(args.conversations) if i < len(samples)]
    s = locomo_silos(samples, args.questions)
    print(
        f"\nLoCoMo silos: {s['people']} people, {s['questions']} questions asked from "
        f"their DM, their guild, the owner's DM, and (naming them) by others"
    )
    print(f"  hits from a conversation the context may not see: {s['leaks']}")
    found = s["found"]
    for label, n in found.items():  # type: ignore[union-attr]
        print(f"  {label}: own facts found for {n / s['questions']:.3f} of questions")


if __name__ == "__main__":
    main()
