"""Dashboard pages and form actions.

Every POST checks the session's CSRF token (and the Origin header when the browser sends
one); cookies are HttpOnly, Secure and SameSite=Strict. Edits and deletions from People and
Community first re-read the fact through the general inspector's context, so a forged id can
never reach an owner-scope fact from there; the change itself is made in the owner's own
flow (`Context.owner_dashboard`), because only a fact's writer, its subject or the owner in
a private context may change it. A deletion is asked about first (a page with its own form:
no script needed); a refused edit comes back with the text as typed and the reason.

Shared spaces have their own area, behind the same unlock as Owner Private. Display names
(the people directory, `Memory.people`) are read only with the owner's private context and
shown only on pages behind the owner's login.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.templating import Jinja2Templates

from ...config import ServerSettings
from ...errors import AccessDenied, ConfidanteError, NotFound
from ...memory import Memory
from ...model import Context, Fact, Scope
from ...services.credentials import check_password, password_is_set
from .auth import Session, Sessions, Throttle
from .spaces import member_list, spaces_of

COOKIE = "confidante_session"
PREFIX = "/dashboard"
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
_SECTIONS = {
    Scope.USER: "people",
    Scope.GUILD: "community",
    Scope.GLOBAL: "notes",
    Scope.OWNER: "owner",
}
PAGE_SIZE = 50


def _private_note(fact: Fact) -> bool:
    """A user-scope fact the owner wrote in private: shown only in Owner Private."""
    return fact.scope is Scope.USER and fact.origin == "owner"


def _refusal(e: ConfidanteError) -> str:
    """One "Refused:", then the reason (core messages may start with "refused:" already)."""
    reason = e.message.strip()
    if reason.lower().startswith("refused:"):
        reason = reason[len("refused:") :].strip()
    return f"Refused: {reason} ({e.code})."


def _when(value: datetime | int | None) -> str:
    if value is None:
        return ""
    if isinstance(value, int):  # milliseconds since the epoch (event rows)
        value = datetime.fromtimestamp(value / 1000, UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _templates() -> Jinja2Templates:
    env = Environment(
        loader=PackageLoader("confidante.surfaces.dashboard", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["when"] = _when
    return Jinja2Templates(env=env)


class _Stop(Exception):
    """Raised anywhere in a page handler to answer with this response instead."""

    def __init__(self, response: Response) -> None:
        self.response = response


class _PageRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Any]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except _Stop as stop:
                return stop.response

        return answer


def create_dashboard(mem: Memory, owner: str | None, settings: ServerSettings) -> APIRouter:
    """The dashboard's routes, acting as `owner` (None: nobody can log in)."""
    templates = _templates()
    sessions = Sessions(settings.session_hours * 3600)
    throttle = Throttle()
    elevated_s = settings.elevated_minutes * 60
    router = APIRouter(prefix=PREFIX, include_in_schema=False, route_class=_PageRoute)

    # -- helpers -----------------------------------------------------------------------------
    def session_of(request: Request) -> Session | None:
        return sessions.get(request.cookies.get(COOKIE))

    def logged_in(request: Request) -> Session:
        s = session_of(request)
        if s is None or not s.owner or owner is None:
            raise _Stop(go(f"{PREFIX}/login"))
        return s

    def elevated(request: Request, then: str = "owner") -> Session:
        s = logged_in(request)
        if not s.elevated():
            nxt = "?next=spaces" if then == "spaces" else ""
            raise _Stop(go(f"{PREFIX}/owner/unlock{nxt}", s))
        return s

    def check_post(request: Request, s: Session | None, token: str) -> Session:
        origin = request.headers.get("origin")
        if s is None or not hmac.compare_digest(s.csrf, token or ""):
            raise _Stop(refuse(request, s, "The form expired; reload the page and try again."))
        # Host only, not scheme: behind a TLS-terminating proxy the app itself sees http.
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host", ""):
            raise _Stop(refuse(request, s, "Cross-site form submission refused."))
        return s

    def refuse(request: Request, s: Session | None, message: str, status: int = 403) -> Response:
        return page(request, "error.html", s, status=status, message=message)

    def general() -> Context:
        assert owner is not None
        return Context.dashboard(owner)

    def private() -> Context:
        assert owner is not None
        return Context.owner_dashboard(owner)

    def page(
        request: Request, name: str, s: Session | None, status: int = 200, **ctx: Any
    ) -> HTMLResponse:
        flash = list(s.flash) if s else []
        errors = list(s.errors) if s else []
        if s:
            s.flash.clear()
            s.errors.clear()
        ctx.setdefault("area", "general")
        remaining = int(s.elevated_until - time.monotonic()) if s and s.elevated() else 0
        resp = templates.TemplateResponse(
            request,
            name,
            {
                "csrf": s.csrf if s else "",
                "flash": flash,
                "errors": errors,
                "logged_in": bool(s and s.owner),
                "elevated_minutes_left": (remaining + 59) // 60,
                "prefix": PREFIX,
                **ctx,
            },
            status_code=status,
            headers=_HEADERS,
        )
        if s is not None:
            set_cookie(resp, s)
        return resp

    def set_cookie(resp: Response, s: Session) -> None:
        # Secure is honoured on http://127.0.0.1 and localhost by browsers (trustworthy origins).
        resp.set_cookie(COOKIE, s.id, httponly=True, secure=True, samesite="strict", path=PREFIX)

    def go(
        url: str, s: Session | None = None, note: str | None = None, error: str | None = None
    ) -> RedirectResponse:
        if s is not None and note:
            s.flash.append(note)
        if s is not None and error:
            s.errors.append(error)
        resp = RedirectResponse(url, status_code=303, headers=_HEADERS)
        if s is not None:
            set_cookie(resp, s)
        return resp

    def counts() -> dict[str, int]:
        facts = mem.list(general())
        return {
            "people": sum(f.scope is Scope.USER for f in facts),
            "community": sum(f.scope is Scope.GUILD for f in facts),
            "notes": sum(f.scope is Scope.GLOBAL for f in facts),
        }

    def facts_in(
        ctx: Context,
        scope: Scope,
        q: str,
        *,
        page_no: int = 1,
        person: str = "",
        community: str = "",
    ) -> dict[str, Any]:
        """One page of a section: the facts, and counts that say the truth about the rest."""
        start = (page_no - 1) * PAGE_SIZE
        filters = {"subject": person.strip() or None, "community": community.strip() or None}
        if q.strip():
            hp = mem.search_page(
                ctx, q[:500], limit=PAGE_SIZE, start=start, scope=scope, count=True, **filters
            )
            facts, total, capped = [h.fact for h in hp.hits], hp.matches or 0, hp.capped
        else:
            lp = mem.list_page(ctx, limit=PAGE_SIZE, offset=start, scope=scope, **filters)
            facts, total, capped = lp.facts, lp.total, False
        return {
            "facts": facts,
            "total": total,
            "capped": capped,
            "first": start + 1 if facts else 0,
            "last": start + len(facts),
            "page_no": page_no,
            "pages": max(1, -(-total // PAGE_SIZE)),
        }

    def client(request: Request) -> str:
        return request.client.host if request.client else "?"

    def attempt(request: Request, password: str) -> bool:
        if throttle.blocked(client(request)):
            mem.record_denial("dashboard", "login_throttled")
            raise _Stop(refuse(request, None, "Too many attempts; wait a few minutes.", 429))
        if check_password(mem, password):
            return True
        throttle.fail(client(request))
        # In the owner's log, counted per minute (a flood adds to one row's count).
        mem.record_denial("dashboard", "login_failed")
        return False

    def change(action: Callable[[], str], s: Session, fallback: str, done: str) -> Response:
        """Run a form action (it returns where to go back to) and report how it went."""
        try:
            back = action()
        except NotFound:
            return go(fallback, s, error="That fact is gone or not visible here.")
        except ConfidanteError as e:
            return go(fallback, s, error=_refusal(e))
        return go(back, s, done)

    def directory() -> dict[str, list[str]]:
        """Display names by person, for pages behind the owner's login only (read with the
        owner's private context: the core refuses any other, and then none are shown)."""
        try:
            return mem.people(private())
        except AccessDenied:
            return {}

    def confirm_delete(
        request: Request, s: Session, fact: Fact, action: str, back: str, **ctx: Any
    ) -> Response:
        return page(
            request,
            "confirm.html",
            s,
            heading="Delete this fact?",
            fact=fact,
            warning="It is erased for good: it cannot be brought back.",
            action=action,
            back=back,
            button="Delete for good",
            **ctx,
        )

    def edit_page(
        request: Request,
        s: Session,
        fact: Fact,
        *,
        typed: str | None = None,
        error: str | None = None,
        **form: Any,
    ) -> Response:
        """The edit form; `form` holds `action_base`, `back` and the area's page values."""
        return page(
            request,
            "edit.html",
            s,
            status=422 if error else 200,
            fact=fact,
            text=fact.text if typed is None else typed,
            refusal=error,
            **form,
        )

    def save(
        request: Request,
        s: Session,
        find: Callable[[], Fact],
        text: str,
        form: Callable[[Fact], dict[str, Any]],
        fallback: str,
    ) -> Response:
        """An edit: saved (back to its section), or refused (the form again, with the text as
        typed and the reason, as an error)."""
        try:
            fact = find()  # a short id is resolved once, here
        except NotFound:
            return go(fallback, s, error="That fact is gone or not visible here.")
        except ConfidanteError as e:
            return go(fallback, s, error=_refusal(e))
        try:
            mem.update(private(), fact.id, text)
        except NotFound:
            return go(fallback, s, error="That fact is gone or not visible here.")
        except ConfidanteError as e:
            return edit_page(request, s, fact, typed=text, error=_refusal(e), **form(fact))
        return go(form(fact)["back"], s, "Saved.")

    static = resources.files("confidante.surfaces.dashboard") / "static"
    css = (static / "style.css").read_bytes()
    icon = (static / "favicon.svg").read_bytes()

    @router.get("/static/style.css")
    def style() -> Response:
        return Response(css, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    @router.get("/static/favicon.svg")
    def favicon() -> Response:
        return Response(
            icon, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"}
        )

    # -- login ---------------------------------------------------------------------------------
    @router.get("", response_class=HTMLResponse)
    @router.get("/", response_class=HTMLResponse)
    def index(request: Request) -> Response:
        logged_in(request)
        return go(f"{PREFIX}/people")

    @router.get("/login", response_class=HTMLResponse)
    def login_form(request: Request) -> Response:
        s = session_of(request)
        if s is not None and s.owner and owner is not None:
            return go(f"{PREFIX}/people", s)
        s = s or sessions.anonymous()
        return page(
            request, "login.html", s, no_owner=owner is None, no_password=not password_is_set(mem)
        )

    @router.post("/login", response_class=HTMLResponse)
    def login(request: Request, password: str = Form(""), csrf: str = Form("")) -> Response:
        s = check_post(request, session_of(request), csrf)
        if owner is None or not attempt(request, password):
            return page(
                request,
                "login.html",
                s,
                status=401,
                error="Wrong password.",
                no_owner=owner is None,
                no_password=not password_is_set(mem),
            )
        return go(f"{PREFIX}/people", sessions.rotate(s, owner=True))

    @router.post("/logout")
    def logout(request: Request, csrf: str = Form("")) -> Response:
        s = check_post(request, session_of(request), csrf)
        sessions.drop(s.id)
        resp = go(f"{PREFIX}/login")
        resp.delete_cookie(COOKIE, path=PREFIX, secure=True, httponly=True, samesite="strict")
        return resp

    # -- People, Community and Notes for everyone (the general inspector) ---------------------
    def listing(
        request: Request, scope: Scope, q: str, page_no: int, person: str, community: str
    ) -> Response:
        s = logged_in(request)
        try:
            found = facts_in(
                general(), scope, q, page_no=page_no, person=person, community=community
            )
        except ConfidanteError as e:  # a malformed filter (not platform:id, say)
            s.errors.append(f"Filter ignored: {e.message}.")
            found = facts_in(general(), scope, q, page_no=page_no)
            person = community = ""
        return page(
            request,
            "facts.html",
            s,
            section=_SECTIONS[scope],
            q=q,
            person=person,
            community=community,
            counts=counts(),
            action_base=f"{PREFIX}/facts",
            names=directory() if scope is Scope.USER else {},
            **found,
        )

    # each parameter gets its own Query (FastAPI keeps per-parameter state on it)
    def q_param() -> Any:
        return Query("", max_length=500)

    def page_param() -> Any:
        return Query(1, ge=1, le=100_000, alias="page")

    def filter_param() -> Any:
        return Query("", max_length=240)

    @router.get("/people", response_class=HTMLResponse)
    def people(
        request: Request,
        q: str = q_param(),
        page_no: int = page_param(),
        person: str = filter_param(),
        community: str = filter_param(),
    ) -> Response:
        return listing(request, Scope.USER, q, page_no, person, community)

    @router.get("/community", response_class=HTMLResponse)
    def community_(
        request: Request,
        q: str = q_param(),
        page_no: int = page_param(),
        person: str = filter_param(),
        community: str = filter_param(),
    ) -> Response:
        return listing(request, Scope.GUILD, q, page_no, person, community)

    @router.get("/notes", response_class=HTMLResponse)
    def notes(request: Request, q: str = q_param(), page_no: int = page_param()) -> Response:
        return listing(request, Scope.GLOBAL, q, page_no, "", "")

    def visible_in_general(fact_id: str) -> Fact:
        fact = mem.get(general(), fact_id)
        if fact.scope not in (Scope.USER, Scope.GUILD, Scope.GLOBAL):
            raise NotFound("no such fact")
        return fact

    def general_section(fact: Fact) -> str:
        return f"{PREFIX}/{_SECTIONS[fact.scope]}"

    def general_form(fact: Fact) -> dict[str, Any]:
        return {
            "action_base": f"{PREFIX}/facts",
            "back": general_section(fact),
            "section": _SECTIONS[fact.scope],
            "counts": counts(),
        }

    @router.get("/facts/{fact_id}/edit", response_class=HTMLResponse)
    def edit_form(request: Request, fact_id: str) -> Response:
        s = logged_in(request)
        try:
            fact = visible_in_general(fact_id)
        except NotFound:
            return page(request, "error.html", s, status=404, message="No such fact here.")
        return edit_page(request, s, fact, **general_form(fact))

    @router.post("/facts/{fact_id}/edit")
    def edit(
        request: Request,
        fact_id: str,
        text: str = Form(..., max_length=40_000),
        csrf: str = Form(""),
    ) -> Response:
        s = check_post(request, logged_in(request), csrf)
        find = lambda: visible_in_general(fact_id)  # noqa: E731
        return save(request, s, find, text, general_form, f"{PREFIX}/people")

    @router.get("/facts/{fact_id}/delete", response_class=HTMLResponse)
    def delete_form(request: Request, fact_id: str) -> Response:
        s = logged_in(request)
        try:
            fact = visible_in_general(fact_id)
        except NotFound:
            return page(request, "error.html", s, status=404, message="No such fact here.")
        return confirm_delete(
            request,
            s,
            fact,
            f"{PREFIX}/facts/{fact.id}/delete",
            general_section(fact),
            section=_SECTIONS[fact.scope],
            counts=counts(),
        )

    @router.post("/facts/{fact_id}/delete")
    def delete(
        request: Request, fact_id: str, csrf: str = Form(""), confirm: str = Form("")
    ) -> Response:
        s = check_post(request, logged_in(request), csrf)
        if confirm != "yes":  # not from the confirmation page: ask first
            return go(f"{PREFIX}/facts/{fact_id}/delete", s)

        def act() -> str:
            fact = visible_in_general(fact_id)  # a short id is resolved once, here
            mem.forget(private(), fact.id)
            return general_section(fact)

        return change(act, s, f"{PREFIX}/people", "Deleted.")

    @router.get("/stats", response_class=HTMLResponse)
    def stats(request: Request) -> Response:
        s = logged_in(request)
        data: dict[str, Any] | None = mem.public_stats()
        return page(request, "stats.html", s, section="stats", stats=data, counts=counts())

    # -- Owner Private -----------------------------------------------------------------------
    def after_unlock(nxt: str) -> str:
        """Where the unlock leads: Owner Private, or the Shared spaces page (nothing else)."""
        return f"{PREFIX}/owner/spaces" if nxt == "spaces" else f"{PREFIX}/owner"

    @router.get("/owner/unlock", response_class=HTMLResponse)
    def unlock_form(
        request: Request, then: str = Query("", max_length=16, alias="next")
    ) -> Response:
        s = logged_in(request)
        if s.elevated():
            return go(after_unlock(then), s)
        nxt = "spaces" if then == "spaces" else ""
        return page(request, "unlock.html", s, area="unlock", next=nxt)

    @router.post("/owner/unlock", response_class=HTMLResponse)
    def unlock(
        request: Request,
        password: str = Form(""),
        csrf: str = Form(""),
        then: str = Form("", max_length=16, alias="next"),
    ) -> Response:
        s = check_post(request, logged_in(request), csrf)
        nxt = "spaces" if then == "spaces" else ""
        if not attempt(request, password):
            return page(
                request,
                "unlock.html",
                s,
                status=401,
                area="unlock",
                error="Wrong password.",
                next=nxt,
            )
        until = time.monotonic() + elevated_s
        return go(after_unlock(nxt), sessions.rotate(s, owner=True, elevated_until=until))

    @router.post("/owner/lock")
    def lock(request: Request, csrf: str = Form("")) -> Response:
        s = check_post(request, logged_in(request), csrf)
        s.elevated_until = 0.0
        return go(f"{PREFIX}/people", s, "Owner Private is locked again.")

    @router.get("/owner", response_class=HTMLResponse)
    def owner_home(
        request: Request,
        q: str = Query("", max_length=500),
        page_no: int = Query(1, ge=1, le=100_000, alias="page"),
    ) -> Response:
        s = elevated(request)
        found = facts_in(private(), Scope.OWNER, q, page_no=page_no)
        # What the owner said about someone in private: user scope, but owner-only. Recall's
        # owner pool does not reach other people's silos, so filter the full list instead.
        notes = [f for f in mem.list(private()) if _private_note(f)]
        if q.strip():
            notes = [f for f in notes if q.strip().lower() in f.text.lower()]
        return page(
            request,
            "facts.html",
            s,
            area="owner",
            section="owner",
            notes=notes,
            names=directory(),
            q=q,
            person="",
            community="",
            action_base=f"{PREFIX}/owner/facts",
            **found,
        )

    def owner_fact(fact_id: str) -> Fact:
        """An owner fact, a private note about someone, or a shared space's fact: what the
        owner's areas list (never a People or Community fact through a forged id)."""
        fact = mem.get(private(), fact_id)
        if fact.scope not in (Scope.OWNER, Scope.SHARED) and not _private_note(fact):
            raise NotFound("no such fact")
        return fact

    def owner_form(fact: Fact) -> dict[str, Any]:
        """Where an owner-area fact is edited from, and goes back to."""
        if fact.scope is Scope.SHARED:
            return {
                "area": "spaces",
                "section": "spaces",
                "action_base": f"{PREFIX}/owner/facts",
                "back": f"{PREFIX}/owner/spaces",
            }
        return {
            "area": "owner",
            "section": "owner",
            "action_base": f"{PREFIX}/owner/facts",
            "back": f"{PREFIX}/owner",
        }

    def missing(request: Request, s: Session) -> Response:
        return page(
            request, "error.html", s, status=404, area="owner", message="No such fact here."
        )

    @router.get("/owner/facts/{fact_id}/edit", response_class=HTMLResponse)
    def owner_edit_form(request: Request, fact_id: str) -> Response:
        s = elevated(request)
        try:
            fact = owner_fact(fact_id)
        except NotFound:
            return missing(request, s)
        return edit_page(request, s, fact, **owner_form(fact))

    @router.post("/owner/facts/{fact_id}/edit")
    def owner_edit(
        request: Request,
        fact_id: str,
        text: str = Form(..., max_length=40_000),
        csrf: str = Form(""),
    ) -> Response:
        s = check_post(request, elevated(request), csrf)
        find = lambda: owner_fact(fact_id)  # noqa: E731
        return save(request, s, find, text, owner_form, f"{PREFIX}/owner")

    @router.get("/owner/facts/{fact_id}/delete", response_class=HTMLResponse)
    def owner_delete_form(request: Request, fact_id: str) -> Response:
        s = elevated(request)
        try:
            fact = owner_fact(fact_id)
        except NotFound:
            return missing(request, s)
        form = owner_form(fact)
        action = f"{PREFIX}/owner/facts/{fact.id}/delete"
        return confirm_delete(
            request, s, fact, action, form["back"], area=form["area"], section=form["section"]
        )

    @router.post("/owner/facts/{fact_id}/delete")
    def owner_delete(
        request: Request, fact_id: str, csrf: str = Form(""), confirm: str = Form("")
    ) -> Response:
        s = check_post(request, elevated(request), csrf)
        if confirm != "yes":  # not from the confirmation page: ask first
            return go(f"{PREFIX}/owner/facts/{fact_id}/delete", s)

        def act() -> str:
            fact = owner_fact(fact_id)
            mem.forget(private(), fact.id)
            return str(owner_form(fact)["back"])

        return change(act, s, f"{PREFIX}/owner", "Deleted.")

    # -- Shared spaces (behind the same unlock; their own area) -------------------------------
    spaces_url = f"{PREFIX}/owner/spaces"

    def space_change(action: Callable[[], object], s: Session, done: str) -> Response:
        try:
            action()
        except NotFound:
            return go(spaces_url, s, error="That space is gone.")
        except ConfidanteError as e:
            return go(spaces_url, s, error=_refusal(e))
        return go(spaces_url, s, done)

    @router.get("/owner/spaces", response_class=HTMLResponse)
    def spaces_home(request: Request) -> Response:
        s = elevated(request, then="spaces")
        return page(
            request,
            "spaces.html",
            s,
            area="spaces",
            section="spaces",
            spaces=spaces_of(mem, private()),
            names=directory(),
            action_base=f"{PREFIX}/owner/facts",
        )

    @router.post("/owner/spaces")
    def space_create(
        request: Request,
        name: str = Form("", max_length=64),
        members: str = Form("", max_length=20_000),
        csrf: str = Form(""),
    ) -> Response:
        s = check_post(request, elevated(request, then="spaces"), csrf)
        typed = name.strip()
        return space_change(
            lambda: mem.create_space(private(), typed, member_list(members)),
            s,
            f"Space {typed} created.",
        )

    @router.post("/owner/spaces/{name}/members/add")
    def space_add(
        request: Request, name: str, member: str = Form("", max_length=240), csrf: str = Form("")
    ) -> Response:
        s = check_post(request, elevated(request, then="spaces"), csrf)
        return space_change(
            lambda: mem.add_member(private(), name, member.strip()), s, "Member added."
        )

    @router.post("/owner/spaces/{name}/members/remove")
    def space_remove(
        request: Request, name: str, member: str = Form("", max_length=240), csrf: str = Form("")
    ) -> Response:
        s = check_post(request, elevated(request, then="spaces"), csrf)
        return space_change(
            lambda: mem.remove_member(private(), name, member.strip()), s, "Member removed."
        )

    @router.get("/owner/spaces/{name}/delete", response_class=HTMLResponse)
    def space_delete_form(request: Request, name: str) -> Response:
        s = elevated(request, then="spaces")
        found = next((v for v in spaces_of(mem, private()) if v.name == name), None)
        if found is None:
            return page(
                request, "error.html", s, status=404, area="spaces", message="No such space."
            )
        return page(
            request,
            "confirm.html",
            s,
            area="spaces",
            section="spaces",
            heading=f"Delete the space {found.name}?",
            space=found,
            warning=f"Its {len(found.facts)} fact{'s' if len(found.facts) != 1 else ''} and its "
            "key are erased for good, and its members lose it at once. It cannot be brought back.",
            action=f"{spaces_url}/{found.name}/delete",
            back=spaces_url,
            button="Delete the space for good",
        )

    @router.post("/owner/spaces/{name}/delete")
    def space_delete(
        request: Request, name: str, csrf: str = Form(""), confirm: str = Form("")
    ) -> Response:
        s = check_post(request, elevated(request, then="spaces"), csrf)
        if confirm != "yes":  # not from the confirmation page: ask first
            return go(f"{spaces_url}/{name}/delete", s)
        return space_change(lambda: mem.delete_space(private(), name), s, "Space deleted.")

    @router.get("/owner/log", response_class=HTMLResponse)
    def access_log(request: Request) -> Response:
        s = elevated(request)
        rows = mem.access_log(private(), 500)  # denials and owner-memory reads
        return page(request, "denials.html", s, area="owner", section="denials", rows=rows)

    @router.get("/owner/cleanup", response_class=HTMLResponse)
    def cleanup(request: Request) -> Response:
        s = elevated(request)
        lines: list[str] | None = mem.cleanup_history(private())
        return page(request, "cleanup.html", s, area="owner", section="cleanup", lines=lines)

    return router
