"""Dashboard sessions and the login throttle (the password itself is checked by
`services.credentials`).

Sessions live in server memory only: a restart logs everyone out, and nothing about a
session is ever written to disk. An Owner Private unlock is a short-lived mark on a session
that only a fresh password entry sets.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Session:
    id: str
    csrf: str
    created: float
    owner: bool = False  # logged in
    elevated_until: float = 0.0  # Owner Private unlocked until (monotonic seconds)
    flash: list[str] = field(default_factory=list)  # what went well, shown once
    errors: list[str] = field(default_factory=list)  # what was refused, shown once

    def elevated(self, now: float | None = None) -> bool:
        return self.owner and (now or time.monotonic()) < self.elevated_until


class Sessions:
    """In-memory sessions, bounded in number; ids rotate on login and on unlock."""

    def __init__(self, lifetime_s: float, max_sessions: int = 5_000) -> None:
        self.lifetime_s = lifetime_s
        self.max_sessions = max_sessions
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()

    def _new(self, **kw: object) -> Session:
        s = Session(
            secrets.token_urlsafe(32),
            secrets.token_urlsafe(32),
            time.monotonic(),
            **kw,  # type: ignore[arg-type]
        )
        with self._lock:
            if len(self._by_id) >= self.max_sessions:
                # Drop the oldest anonymous session first, so a flood of login-page visits
                # cannot push the logged-in owner out.
                oldest = min(self._by_id.values(), key=lambda x: (x.owner, x.created))
                self._by_id.pop(oldest.id, None)
            self._by_id[s.id] = s
        return s

    def anonymous(self) -> Session:
        return self._new()

    def get(self, sid: str | None) -> Session | None:
        if not sid:
            return None
        with self._lock:
            s = self._by_id.get(sid)
            if s is not None and time.monotonic() - s.created > self.lifetime_s:
                del self._by_id[sid]
                return None
            return s

    def rotate(self, old: Session, *, owner: bool, elevated_until: float = 0.0) -> Session:
        """A fresh id (and CSRF token) whenever privilege changes: no session fixation."""
        self.drop(old.id)
        s = self._new(owner=owner, elevated_until=elevated_until)
        s.flash, s.errors = old.flash, old.errors
        return s

    def drop(self, sid: str) -> None:
        with self._lock:
            self._by_id.pop(sid, None)


class Throttle:
    """At most `limit` failed password entries per client in `window_s`."""

    def __init__(self, limit: int = 10, window_s: float = 300.0) -> None:
        self.limit = limit
        self.window_s = window_s
        self._fails: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        q = self._fails.setdefault(client, deque())
        while q and now - q[0] > self.window_s:
            q.popleft()
        return q

    def blocked(self, client: str) -> bool:
        with self._lock:
            return len(self._recent(client, time.monotonic())) >= self.limit

    def fail(self, client: str) -> None:
        with self._lock:
            now = time.monotonic()
            self._recent(client, now).append(now)
            if len(self._fails) > 10_000:
                self._fails.clear()  # bounded memory; an attacker gains a fresh window at most
