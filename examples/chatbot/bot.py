"""A worked chat bot: how a platform adapter maps events to confidante contexts.

The "platform" is simulated in-process (an owner, users, two servers, a group chat, DMs);
a real adapter (discord.py, python-telegram-bot, ...) fills the same `Event` from its
authenticated metadata. For each event the bot:

1. builds a `Context` from who sent it and where (never from the message text), with the
   display names the platform shows (so "what is Alice allergic to?" names Alice);
2. answers "forget me" in a DM by erasing that person;
3. remembers what people say about themselves ("I ...", "my ...") in their own silo, and
   what a household member says for the household ("home: ...") in the shared space
   `home` the owner made for Alice and Bob;
4. injects `prompt_context` into the model call (stubbed here: it records the prompt).

Run it: `python examples/chatbot/bot.py` prints each prompt of a short scripted day.
"""

from __future__ import annotations

import contextlib
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from confidante import ConfidanteError, Context, Memory


@dataclass(frozen=True)
class Event:
    """One incoming message, as the platform reports it."""

    platform: str  # "discord"
    sender: str  # the platform's user id of the author (authenticated by the platform)
    text: str
    guild: str | None = None  # a server message
    channel: str | None = None
    chat: str | None = None  # a group chat
    members: tuple[str, ...] = ()  # other people present (their platform ids)
    names: tuple[tuple[str, str], ...] = ()  # (platform id, display name) the platform shows


def context_for(e: Event) -> Context:
    """The one place the platform's metadata becomes a confidante context."""
    actor = f"{e.platform}:{e.sender}"
    others = [f"{e.platform}:{m}" for m in e.members if m != e.sender]
    names = {f"{e.platform}:{who}": name for who, name in e.names}
    if e.guild is not None:
        return Context.guild(actor, e.guild, channel=e.channel, participants=others, names=names)
    if e.chat is not None:
        return Context.group_dm(actor, e.chat, participants=others, names=names)
    return Context.dm(actor, names=names)


_ABOUT_ME = re.compile(r"^\s*(i|i'm|i am|my|i've)\b", re.I)
_FOR_HOME = re.compile(r"^\s*home\s*:", re.I)
_FORGET_ME = re.compile(r"^\s*forget (about )?me\b", re.I)

Model = Callable[[str, str], str]  # (prompt context, message) -> reply


def stub_model(prompt: str, message: str) -> str:
    return "ok"


@dataclass
class Bot:
    memory: Memory
    model: Model = stub_model
    prompts: list[tuple[Event, str]] = field(default_factory=list)

    def handle(self, e: Event) -> str:
        ctx = context_for(e)
        if _FORGET_ME.match(e.text):
            if ctx.community is not None:  # only in private: "forget me" erases a person
                return "Ask me that in a direct message, and I will forget everything about you."
            self.memory.forget_subject(ctx, ctx.actor or "")
            return "Done: I have forgotten everything about you."
        if _ABOUT_ME.match(e.text) or _FOR_HOME.match(e.text):
            # refused (a phone number, a password, not a household member...): not kept,
            # and not repeated back
            with contextlib.suppress(ConfidanteError):
                where = "shared:home" if _FOR_HOME.match(e.text) else "me"
                self.memory.remember(ctx, e.text, where)
        prompt = self.memory.prompt_context(ctx, e.text, max_tokens=600)
        self.prompts.append((e, prompt))
        return self.model(prompt, e.text)


OWNER, ALICE, BOB, CAROL = "1", "42", "43", "44"

SCRIPT = [
    Event("discord", OWNER, "I have a dentist appointment on Thursday"),
    Event("discord", ALICE, "I'm allergic to peanuts", names=((ALICE, "Alice"),)),
    Event("discord", ALICE, "home: the bins go out on Tuesday night"),
    Event("discord", BOB, "when do the bins go out? home chores?"),
    Event("discord", CAROL, "home: when do the bins go out?"),
    Event("discord", ALICE, "my phone is +1 415 555 0100"),
    Event("discord", BOB, "I keep three beehives", guild="g1", channel="general", members=(ALICE,)),
    Event("discord", ALICE, "I run marathons", guild="g2", channel="sports", members=(BOB,)),
    Event("discord", CAROL, "I'm planning the trip to Lisbon", chat="trip", members=(ALICE, BOB)),
    Event(
        "discord",
        ALICE,
        "who keeps beehives here? snacks with peanuts?",
        guild="g1",
        channel="general",
        members=(BOB,),
    ),
    Event(
        "discord",
        BOB,
        "any tips for marathons or peanuts or the dentist?",
        guild="g1",
        channel="general",
    ),
    Event(
        "discord",
        BOB,
        "what is Alice allergic to?",
        guild="g1",
        channel="general",
        names=((ALICE, "Alice"), (BOB, "Bob")),
    ),
    Event("discord", ALICE, "what do you know about me? peanuts? marathons? bees?"),
    Event("discord", OWNER, "what's on my schedule? dentist? peanuts? Lisbon?"),
    Event("discord", OWNER, "what is Alice allergic to?"),
    Event("discord", ALICE, "forget me"),
    Event("discord", ALICE, "do you remember my allergy? peanuts?"),
    Event("discord", BOB, "home: when do the bins go out?"),
]


def set_up(mem: Memory) -> None:
    """What the owner does once, in their own DM: a household space for Alice and Bob."""
    owner = Context.dm(f"discord:{OWNER}")
    mem.create_space(owner, "home", members=[f"discord:{ALICE}", f"discord:{BOB}"])


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        mem = Memory.open(Path(d) / "bot.db", owner_ids=[f"discord:{OWNER}"])
        set_up(mem)
        bot = Bot(mem)
        for e in SCRIPT:
            reply = bot.handle(e)
            where = e.guild or e.chat or "dm"
            shown = bot.prompts[-1][1] if bot.prompts and bot.prompts[-1][0] is e else reply
            print(f"--- {e.sender} ({where}): {e.text}\n{shown}\n")
        mem.close()


if __name__ == "__main__":
    main()
