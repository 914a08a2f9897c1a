"""`confidante demo`: one owner, two users, two servers, in a throwaway database.

Shows, context by context, what the agent recalls and what the policy refuses.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from ...errors import AccessDenied, ConfidanteError
from ...memory import Memory
from ...model import Context
from ...vault.crypto import new_key

OWNER = "discord:1"
ALICE = "discord:42"
BOB = "discord:43"

CONTEXTS = {
    "owner DM": Context.dm(OWNER),
    "Alice DM": Context.dm(ALICE),
    "Bob DM": Context.dm(BOB),
    "Alice in book-club (g1)": Context.guild(ALICE, "g1", channel="general", participants=[BOB]),
    "Bob in book-club (g1)": Context.guild(BOB, "g1", channel="general"),
    "Bob in gaming (g2)": Context.guild(BOB, "g2", channel="raids"),
    "owner in book-club (g1)": Context.guild(OWNER, "g1", channel="general"),
    "general dashboard": Context.dashboard(),
}

# (who, text, namespace)
WRITES = [
    ("owner DM", "Dentist moved to Thursday, keep it between us", "owner"),
    ("owner DM", "Alice is planning a surprise party for Bob", f"user:{ALICE}"),
    ("Alice DM", "Alice is allergic to peanuts", None),
    ("Alice in book-club (g1)", "The book club reads Dune this month", None),
    ("Bob in book-club (g1)", "Bob is hosting the next book club meeting", "me"),
    ("Bob in gaming (g2)", "Raid night is Saturday", None),
    ("Bob in gaming (g2)", "Bob mains a healer in the raid", "me"),
]

# (who, query)
RECALLS = [
    ("owner DM", "dentist Thursday"),
    ("Alice DM", "dentist Thursday"),
    ("Alice DM", "peanuts allergy"),
    ("Bob DM", "surprise party"),
    ("Alice in book-club (g1)", "book club Dune meeting"),
    ("Bob in gaming (g2)", "book club Dune"),
    ("Bob in gaming (g2)", "raid healer"),
    ("owner in book-club (g1)", "dentist Thursday"),
]

# (who, text, namespace): each is refused by the policy
REFUSALS = [
    ("Alice DM", "I am the owner now", "owner"),
    ("owner in book-club (g1)", "a private note typed in public", "owner"),
    ("Bob DM", "Alice owes me money", f"user:{ALICE}"),
    ("Alice DM", "community announcement", "guild"),
    ("general dashboard", "a fact with no home", None),
]


@dataclass
class DemoResult:
    recalls: list[dict[str, object]]
    refusals: list[dict[str, object]]
    dashboard: list[str]


def run_script(mem: Memory) -> DemoResult:
    for who, text, ns in WRITES:
        mem.remember(CONTEXTS[who], text, ns)
    recalls = []
    for who, query in RECALLS:
        hits = mem.recall(CONTEXTS[who], query, k=3)
        recalls.append({"context": who, "query": query, "hits": [h.fact.text for h in hits]})
    refusals = []
    for who, text, ns in REFUSALS:
        try:
            mem.remember(CONTEXTS[who], text, ns)
            refusals.append({"context": who, "namespace": ns, "refused": None})
        except AccessDenied as e:
            refusals.append({"context": who, "namespace": ns, "refused": e.code})
    try:
        mem.recall(CONTEXTS["Alice DM"], "party", subjects=[BOB])
    except AccessDenied as e:
        refusals.append({"context": "Alice DM", "namespace": "recall subjects=", "refused": e.code})
    dashboard = [f.text for f in mem.list(CONTEXTS["general dashboard"])]
    return DemoResult(recalls, refusals, dashboard)


def run_demo(console: Console, *, as_json: bool = False) -> DemoResult:
    with (
        tempfile.TemporaryDirectory(prefix="confidante-demo-") as tmp,
        Memory.open(Path(tmp) / "demo.db", owner_ids=[OWNER], master_key=new_key()) as mem,
    ):
        result = run_script(mem)
    if as_json:
        print(json.dumps(result.__dict__))
        return result
    console.print(
        Panel.fit(
            f"owner [bold]{OWNER}[/bold]; Alice {ALICE}; Bob {BOB}; servers g1 (book club), "
            "g2 (gaming).\nEvery fact is encrypted at rest; each context sees only what the "
            "design's read rules allow.",
            title="confidante demo",
        )
    )
    t = Table(title="what each context recalls", show_lines=True)
    t.add_column("context", style="cyan")
    t.add_column("query")
    t.add_column("recalled")
    for r in result.recalls:
        hits = r["hits"]
        assert isinstance(hits, list)
        t.add_row(str(r["context"]), str(r["query"]), "\n".join(hits) or "[dim]nothing[/dim]")
    console.print(t)
    t = Table(title="what the policy refuses", show_lines=False)
    t.add_column("context", style="cyan")
    t.add_column("write to")
    t.add_column("refused with", style="red")
    for r in result.refusals:
        t.add_row(str(r["context"]), str(r["namespace"]), str(r["refused"]))
    console.print(t)
    console.print(
        Panel(
            "\n".join(result.dashboard),
            title="general dashboard (People + Community; no Owner Private)",
        )
    )
    return result


__all__ = ["ConfidanteError", "DemoResult", "run_demo", "run_script"]
