"""A worked chat bot: how a platform adapter maps events to confidante contexts.

The "platform" is simulated in-process (an owner, users, two servers, a group chat, DMs);
a real adapter (discord.py, python-telegram-bot, ...) fills the same `Event` from its
authenticated metadata. For each event the bot:

1. builds a `Context` from who sent it and where (never from the message text);
2. answers "forget me" in a DM by erasing that person;
3. remembers what people say about themselves ("I ...", "my ...") in their own silo;
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


def context_for(e: Event) -> Context:
    """The one place the platform's metadata becomes a confidante context."""
    actor = f"{e.platform}:{e.sender}"
    others = [f"{e.platform}:{m}" for m in e.members if m != e.sender]
    if e.guild is not None:
        return Context.guild(actor, e.guild, channel=e.channel, participants=others)
    if e.chat is not None:
        return Context.group_dm(actor, e.chat, participants=others)
    return Context.dm(actor)


_ABOUT_ME = re.compile(r"^\s*(i|i'm|i am|my|i've)\b", re.I)
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
        if _ABOUT_ME.match(e.text):
            # refused (a phone number, a password...): not kept, and not repeated back
            with contextlib.suppress(ConfidanteError):
                self.memory.remember(ctx, e.text, "me")
        prompt = self.memory.prompt_context(ctx, e.text, max_tokens=600)
        self.prompts.append((e, prompt))
        return self.model(prompt, e.text)


OWNER, ALICE, BOB, CAROL = "1", "42", "43", "44"

SCRIPT = [
    Event("discord", OWNER, "I have a dentist appointment on Thursday"),
    Event("discord", ALICE, "I'm allergic to peanuts"),
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
    Event("discord", ALICE, "what do you know about me? peanuts? marathons? bees?"),
    Event("discord", OWNER, "what's on my schedule? dentist? peanuts? Lisbon?"),
    Event("discord", ALICE, "forget me"),
    Event("discord", ALICE, "do you remember my allergy? peanuts?"),
]


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        mem = Memory.open(Path(d) / "bot.db", owner_ids=[f"discord:{OWNER}"])
        bot = Bot(mem)
        for e in SCRIPT:
            reply = bot.handle(e)
            where = e.guild or e.chat or "dm"
            shown = bot.prompts[-1][1] if bot.prompts and bot.prompts[-1][0] is e else reply
            print(f"--- {e.sender} ({where}): {e.text}\n{shown}\n")
        mem.close()


if __name__ == "__main__":
    main()
