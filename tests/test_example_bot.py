"""The worked chat bot (examples/chatbot/bot.py), driven through a scripted day: what
each participant's prompt may and may not contain."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from confidante import Memory

BOT = Path(__file__).resolve().parents[1] / "examples" / "chatbot" / "bot.py"


@pytest.fixture
def bot_module():
    spec = importlib.util.spec_from_file_location("example_bot", BOT)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["example_bot"] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("example_bot", None)


def test_scripted_day(tmp_path: Path, key: bytes, bot_module) -> None:
    b = bot_module
    with Memory.open(tmp_path / "bot.db", owner_ids=["discord:1"], master_key=key) as mem:
        b.set_up(mem)
        bot = b.Bot(mem)
        replies = [bot.handle(e) for e in b.SCRIPT]
        prompts = {(e.sender, e.text): p for e, p in bot.prompts}
        prompts |= {e.text: p for e, p in bot.prompts if e.sender == b.ALICE}
        prompts |= {
            e.text: p for e, p in bot.prompts if e.sender != b.ALICE and e.text not in prompts
        }

        # the household: Bob (a member) reads what Alice wrote for it; Carol does not
        assert "bins go out on Tuesday" in prompts[(b.BOB, "when do the bins go out? home chores?")]
        assert "bins go out" not in prompts[(b.CAROL, "home: when do the bins go out?")].replace(
            "home: when do the bins go out?", ""
        )
        # after Alice is forgotten the household keeps its note, without her name
        assert "bins go out on Tuesday" in prompts[(b.BOB, "home: when do the bins go out?")]

        # a name: the owner's DM finds Alice's allergy by her display name; in g1, Bob
        # naming her gets nothing she said in her DM
        assert "allergic to peanuts" in prompts[(b.OWNER, "what is Alice allergic to?")]
        assert "peanuts" not in prompts[(b.BOB, "what is Alice allergic to?")]

        # Alice in her DM: her own facts, never the owner's, Bob's, or her refused phone
        mine = prompts["what do you know about me? peanuts? marathons? bees?"]
        assert "allergic to peanuts" in mine and "run marathons" in mine
        assert "dentist" not in mine.lower() and "beehives" not in mine
        assert "415" not in mine and "Lisbon" not in mine

        # in server g1: Bob's bees (said there), never Alice's DM allergy or her g2 marathons
        g1 = prompts["who keeps beehives here? snacks with peanuts?"]
        assert "three beehives" in g1 and "allergic" not in g1 and "marathons" not in g1
        g1_bob = prompts["any tips for marathons or peanuts or the dentist?"]
        assert "peanuts" not in g1_bob and "dentist" not in g1_bob.lower()
        assert "marathons" not in g1_bob.replace("any tips for marathons", "")

        # the owner, in their DM: their own notes; identity block names them as owner
        owner = prompts["what's on my schedule? dentist? peanuts? Lisbon?"]
        assert "dentist appointment" in owner and "your owner" in owner
        assert "Lisbon" not in owner  # the group chat's talk stays in the group chat

        # "forget me": gone from her next prompt, and from the files' reach
        assert replies[
            b.SCRIPT.index(next(e for e in b.SCRIPT if e.text == "forget me"))
        ].startswith("Done")
        after = prompts["do you remember my allergy? peanuts?"]
        assert "peanuts" not in after and "allergic" not in after and "marathons" not in after


def test_runs_as_a_script() -> None:
    p = subprocess.run([sys.executable, str(BOT)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "allergic to peanuts" in p.stdout
