"""The dashboard's twins of the newer core, over real HTTP on loopback (and, for what a person
clicks, in a real Chromium): display names on People (behind the owner's login only), a Shared
spaces area of its own behind the owner unlock, deletions that ask first, and refused edits
shown as errors with the typed text kept. On SQLite and PostgreSQL where storage matters."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from confidante import Context, Memory, NotFound
from confidante.vault.crypto import new_key
from surfaces_helpers import PASSWORD, Live, live_server

from conftest import ALICE, BOB, CAROL, OWNER

NAMES = ("Alice Martin", "Bobby")
SPACE_MARK = "SPACEMARK"


class Dash:
    """A browser without a browser: one session cookie, the page's CSRF token, no redirects
    followed unless asked."""

    def __init__(self, live: Live) -> None:
        self.http = httpx.Client(base_url=live.url, timeout=30)
        self.sid: str | None = None
        self.csrf = ""

    def _send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {"Cookie": f"confidante_session={self.sid}"} if self.sid else {}
        r = self.http.request(method, path, headers=headers, follow_redirects=False, **kw)
        sid = re.search(r"confidante_session=([^;]*)", r.headers.get("set-cookie", ""))
        if sid:
            self.sid = sid.group(1) or None
        token = re.search(r'name="csrf" value="([^"]+)"', r.text)
        if token:
            self.csrf = token.group(1)
        return r

    def get(self, path: str, follow: bool = True) -> httpx.Response:
        r = self._send("GET", path)
        while follow and r.status_code == 303:
            r = self._send("GET", r.headers["location"])
        return r

    def post(self, path: str, follow: bool = True, **data: str) -> httpx.Response:
        data.setdefault("csrf", self.csrf)
        r = self._send("POST", path, data=data)
        while follow and r.status_code == 303:
            r = self._send("GET", r.headers["location"])
        return r

    def login(self) -> None:
        self.get("/dashboard/login")
        r = self.post("/dashboard/login", password=PASSWORD)
        assert r.status_code == 200 and r.url.path == "/dashboard/people", r.url

    def unlock(self, then: str = "") -> httpx.Response:
        self.get("/dashboard/owner/unlock")
        extra = {"next": then} if then else {}
        return self.post("/dashboard/owner/unlock", password=PASSWORD, **extra)


def _seed(mem: Memory) -> dict[str, str]:
    owner = Context.dm(OWNER)
    mem.create_space(owner, "home", members=[ALICE, BOB])
    g1 = Context.guild(BOB, "g1", names={BOB: "Bobby", ALICE: "Alice"})
    return {
        "alice": mem.remember(
            Context.dm(ALICE, names={ALICE: "Alice Martin"}), "Alice keeps three beehives"
        ).id,
        "bob": mem.remember(g1, "Bob is learning the violin", "me").id,
        "owner": mem.remember(owner, "Dentist moved to Thursday OWNERMARK", "owner").id,
        "space": mem.remember(
            Context.dm(ALICE), f"The bins go out on Tuesday {SPACE_MARK}", "shared:home"
        ).id,
    }


@pytest.fixture
def seeded(mem: Memory) -> Iterator[tuple[Live, dict[str, str]]]:
    ids = _seed(mem)
    with live_server(mem) as live:
        yield live, ids


def _no_names(text: str) -> None:
    for name in NAMES:
        assert name not in html.unescape(text), name


# --- display names -------------------------------------------------------------------------------


def test_names_show_on_people_and_only_behind_the_owner_login(
    seeded: tuple[Live, dict[str, str]],
) -> None:
    live, ids = seeded
    stranger = Dash(live)
    for path in (
        "/dashboard/login",
        "/dashboard/people",
        "/dashboard/people?person=discord:42",
        "/dashboard/owner/spaces",
        "/dashboard/owner",
        f"/dashboard/facts/{ids['alice']}/edit",
        "/dashboard/nope",
    ):
        _no_names(stranger.get(path).text)
    _no_names(stranger.post("/dashboard/login", password="wrong password here").text)
    _no_names(stranger.post("/dashboard/owner/spaces", csrf="forged", name="x").text)
    _no_names(httpx.get(f"{live.url}/openapi.json").text)

    owner = Dash(live)
    owner.login()
    people = html.unescape(owner.get("/dashboard/people").text)
    row = re.search(rf'<tr id="fact-{ids["alice"]}">.*?</tr>', people, re.S)
    assert row and ALICE in row.group(0) and "Alice Martin" in row.group(0)
    row = re.search(rf'<tr id="fact-{ids["bob"]}">.*?</tr>', people, re.S)
    assert row and "Bobby" in row.group(0)
    about = html.unescape(owner.get(f"/dashboard/people?person={ALICE}").text)
    assert "Alice Martin" in re.search(r'id="summary">.*?</p>', about, re.S).group(0)
    # names are labels on the page, never facts: not in any list, count or search result
    assert owner.get("/dashboard/people").text.count('<tr id="fact-') == 2
    for q in NAMES:
        found = html.unescape(owner.get(f"/dashboard/people?q={q}").text)
        results = re.findall(r'<td class="text"[^>]*>(.*?)</td>', found, re.S)
        assert not any(name in r for r in results for name in NAMES)


# --- shared spaces -----------------------------------------------------------------------------


def test_space_facts_never_reach_the_general_pages(seeded: tuple[Live, dict[str, str]]) -> None:
    live, ids = seeded
    d = Dash(live)
    d.login()
    for path in (
        "/dashboard/people",
        "/dashboard/community",
        "/dashboard/notes",
        "/dashboard/stats",
        f"/dashboard/people?q=bins+Tuesday+{SPACE_MARK}",
        f"/dashboard/community?q=bins+Tuesday+{SPACE_MARK}",
        f"/dashboard/notes?q={SPACE_MARK}",
    ):
        page = d.get(path).text
        results = re.findall(r'<td class="text"[^>]*>(.*?)</td>', page, re.S)
        assert not any(SPACE_MARK in r or "bins" in r for r in results), path
        assert "The bins go out" not in page, path
    # a forged id through the general inspector reaches nothing of a space
    assert d.get(f"/dashboard/facts/{ids['space']}/edit").status_code == 404
    assert d.get(f"/dashboard/facts/{ids['space']}/delete").status_code == 404
    r = d.post(f"/dashboard/facts/{ids['space']}/delete", confirm="yes")
    assert "gone or not visible" in r.text
    assert live.mem.get(Context.dm(BOB), ids["space"]).text.endswith(SPACE_MARK)
    # the spaces area needs the unlock, even when logged in
    r = d.get("/dashboard/owner/spaces", follow=False)
    assert r.status_code == 303 and r.headers["location"] == "/dashboard/owner/unlock?next=spaces"
    locked = d.get("/dashboard/owner/spaces")
    assert locked.url.path == "/dashboard/owner/unlock" and SPACE_MARK not in locked.text
    r = d.post("/dashboard/owner/spaces", name="sneaky")
    assert r.url.path == "/dashboard/owner/unlock" and "sneaky" not in str(
        live.mem.list_spaces(Context.dm(OWNER))
    )
    # the owner's own facts page does not list a space's facts either
    d.unlock()
    assert SPACE_MARK not in d.get("/dashboard/owner").text


def test_the_spaces_area(seeded: tuple[Live, dict[str, str]]) -> None:
    live, ids = seeded
    mem = live.mem
    owner = Context.dm(OWNER)
    d = Dash(live)
    d.login()
    r = d.unlock(then="spaces")
    assert r.url.path == "/dashboard/owner/spaces"
    page = html.unescape(r.text)
    assert 'class="area-spaces"' in page and 'id="spaces-banner"' in page
    section = re.search(r'<section class="card space" id="space-home">.*?</section>', page, re.S)
    assert section is not None
    home = section.group(0)
    assert f"The bins go out on Tuesday {SPACE_MARK}" in home and "shared:home" in home
    assert ALICE in home and BOB in home and "Alice Martin" in home and "Bobby" in home

    # create, add, remove: each a form with the session's CSRF token
    r = d.post("/dashboard/owner/spaces", name="team", members=f"{ALICE}, {CAROL}")
    assert "Space team created." in r.text
    assert mem.list_spaces(owner)[1] == {
        "name": "team",
        "namespace": "shared:team",
        "members": [ALICE, CAROL],
    }
    d.post("/dashboard/owner/spaces/team/members/add", member=BOB)
    d.post("/dashboard/owner/spaces/team/members/remove", member=ALICE)
    assert mem.list_spaces(owner)[1]["members"] == [BOB, CAROL]
    forged = d.post("/dashboard/owner/spaces/team/members/add", member=ALICE, csrf="forged")
    assert forged.status_code == 403 and mem.list_spaces(owner)[1]["members"] == [BOB, CAROL]
    # a refusal is an error, said once, in its own style
    for name, code in (("team", "space_exists"), ("Bad Name!", "invalid_input")):
        r = d.post("/dashboard/owner/spaces", name=name)
        refusals = re.findall(r'<p class="flash refused" role="alert">(.*?)</p>', r.text)
        assert len(refusals) == 1 and refusals[0].startswith("Refused: ") and code in refusals[0]
        assert "Refused: refused" not in r.text and 'class="flash done"' not in r.text

    # a space's fact is edited and deleted from its own page, deletion asked first
    r = d.get(f"/dashboard/owner/facts/{ids['space']}/edit")
    assert r.status_code == 200 and 'class="area-spaces"' in r.text
    r = d.post(f"/dashboard/owner/facts/{ids['space']}/edit", text="The bins go out on Monday")
    assert r.url.path == "/dashboard/owner/spaces" and "Saved." in r.text
    assert mem.get(Context.dm(BOB), ids["space"]).text == "The bins go out on Monday"
    r = d.get(f"/dashboard/owner/facts/{ids['space']}/delete")
    assert 'id="confirm-delete"' in r.text and "The bins go out on Monday" in r.text
    r = d.post(f"/dashboard/owner/facts/{ids['space']}/delete", confirm="yes")
    assert r.url.path == "/dashboard/owner/spaces" and "Deleted." in r.text
    with pytest.raises(NotFound):
        mem.get(owner, ids["space"])
    # People and Community facts are not the owner area's to change
    assert d.get(f"/dashboard/owner/facts/{ids['alice']}/edit").status_code == 404
    assert d.get(f"/dashboard/owner/facts/{ids['alice']}/delete").status_code == 404

    # deleting a space asks first; only the confirmation's own form erases it
    kept = mem.remember(Context.dm(BOB), "Team standup is at ten", "shared:team")
    r = d.post("/dashboard/owner/spaces/team/delete", follow=False)
    assert r.status_code == 303 and r.headers["location"] == "/dashboard/owner/spaces/team/delete"
    confirm = d.get("/dashboard/owner/spaces/team/delete").text
    assert "Delete the space team?" in confirm and "1 fact " in confirm
    assert mem.get(Context.dm(BOB), kept.id).text == "Team standup is at ten"
    r = d.post("/dashboard/owner/spaces/team/delete", confirm="yes")
    assert "Space deleted." in r.text and 'id="space-team"' not in r.text
    assert [s["name"] for s in mem.list_spaces(owner)] == ["home"]
    with pytest.raises(NotFound):
        mem.get(Context.dm(BOB), kept.id)
    assert d.get("/dashboard/owner/spaces/team/delete").status_code == 404


# --- delete asks first; a refused edit is an error and keeps the text ---------------------------


def test_deleting_asks_first(seeded: tuple[Live, dict[str, str]]) -> None:
    live, ids = seeded
    d = Dash(live)
    d.login()
    people = d.get("/dashboard/people").text
    assert f'href="/dashboard/facts/{ids["alice"]}/delete" class="danger"' in people
    assert 'method="post" action="/dashboard/facts/' not in people  # one click never deletes
    confirm = d.get(f"/dashboard/facts/{ids['alice']}/delete")
    assert confirm.status_code == 200 and "Alice keeps three beehives" in confirm.text
    assert 'name="confirm" value="yes"' in confirm.text
    # a post that did not come from the confirmation is sent to it, and deletes nothing
    r = d.post(f"/dashboard/facts/{ids['alice']}/delete", follow=False)
    assert r.status_code == 303 and r.headers["location"].endswith(f"/{ids['alice']}/delete")
    assert live.mem.get(Context.dm(ALICE), ids["alice"])
    r = d.post(f"/dashboard/facts/{ids['alice']}/delete", confirm="yes", csrf="forged")
    assert r.status_code == 403 and live.mem.get(Context.dm(ALICE), ids["alice"])
    r = d.post(f"/dashboard/facts/{ids['alice']}/delete", confirm="yes")
    assert r.url.path == "/dashboard/people" and "Deleted." in r.text
    with pytest.raises(NotFound):
        live.mem.get(Context.dm(ALICE), ids["alice"])

    d.unlock()
    assert d.get(f"/dashboard/owner/facts/{ids['owner']}/delete").status_code == 200
    d.post(f"/dashboard/owner/facts/{ids['owner']}/delete")
    assert live.mem.get(Context.dm(OWNER), ids["owner"])
    d.post(f"/dashboard/owner/facts/{ids['owner']}/delete", confirm="yes")
    with pytest.raises(NotFound):
        live.mem.get(Context.dm(OWNER), ids["owner"])


def test_a_refused_edit_is_an_error_and_keeps_the_typed_text(
    seeded: tuple[Live, dict[str, str]],
) -> None:
    live, ids = seeded
    d = Dash(live)
    d.login()
    typed = "Alice keeps bees; write to alice.martin@example.org about honey"
    r = d.post(f"/dashboard/facts/{ids['alice']}/edit", text=typed)
    assert r.status_code == 422
    page = html.unescape(r.text)
    refusal = re.search(r'<p class="refusal" id="refusal" role="alert">(.*?)</p>', page, re.S)
    assert refusal is not None
    assert refusal.group(1).startswith("Refused: private data is never stored")
    assert page.count("Refused") == 1 and "refused: refused" not in page.lower()
    assert 'class="flash' not in page  # not a success note
    assert (
        re.search(r'<textarea name="text" id="text"[^>]*>(.*?)</textarea>', page, re.S).group(1)
        == typed
    )
    assert live.mem.get(Context.dm(ALICE), ids["alice"]).text == "Alice keeps three beehives"
    # the owner's own area too
    d.unlock()
    r = d.post(f"/dashboard/owner/facts/{ids['owner']}/edit", text="call me at +1 415 555 0100")
    assert r.status_code == 422 and "+1 415 555 0100" in r.text and 'id="refusal"' in r.text
    assert 'class="area-owner"' in r.text


# --- in a real browser: the confirmation without scripts, the refusal's colour ------------------

sync_api = pytest.importorskip("playwright.sync_api")
from test_dashboard_browser import ARGS, CHROMIUM, login, shot  # noqa: E402

browser_only = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def live_sqlite(tmp_path: Path) -> Iterator[tuple[Live, dict[str, str]]]:
    mem = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=new_key())
    ids = _seed(mem)
    with live_server(mem) as live:
        yield live, ids
    mem.close()


def _page(browser: Any, live: Live, **kw: Any) -> Any:
    ctx = browser.new_context(base_url=live.url, viewport={"width": 1200, "height": 800}, **kw)
    page = ctx.new_page()
    login(page)
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    return page


@browser_only
def test_browser_delete_confirms_without_javascript(
    browser: Any, live_sqlite: tuple[Live, dict[str, str]]
) -> None:
    live, ids = live_sqlite
    page = _page(browser, live, java_script_enabled=False)
    row = page.locator(f"#fact-{ids['alice']}")
    row.locator("a.danger").click()
    page.wait_for_url(re.compile(rf"/dashboard/facts/{ids['alice']}/delete$"))
    assert page.locator("#confirm-text").inner_text() == "Alice keeps three beehives"
    shot(page, "v2-01-confirm-delete")
    page.click("#cancel")
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    assert page.locator(f"#fact-{ids['alice']}").count() == 1
    page.locator(f"#fact-{ids['alice']} a.danger").click()
    page.click("#confirm-delete")
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    assert page.locator(".flash.done").inner_text() == "Deleted."
    assert page.locator(f"#fact-{ids['alice']}").count() == 0
    page.context.close()


@browser_only
def test_browser_refused_edit_is_red_and_keeps_the_text(
    browser: Any, live_sqlite: tuple[Live, dict[str, str]]
) -> None:
    live, ids = live_sqlite
    page = _page(browser, live)
    page.goto(f"/dashboard/facts/{ids['bob']}/edit")
    typed = "Bob is learning the violin, his card is 4111 1111 1111 1111"
    page.fill("#text", typed)
    page.click("#save")
    refusal = page.locator("#refusal")
    refusal.wait_for()
    text = refusal.inner_text()
    assert text.startswith("Refused: ") and text.count("Refused") == 1
    assert page.locator("#text").input_value() == typed
    colour = refusal.evaluate("e => getComputedStyle(e).color")
    r, g, b = (int(x) for x in re.findall(r"\d+", colour)[:3])
    assert r > g and r > b, colour  # red, not the green of a success note
    refused_bg = refusal.evaluate("e => getComputedStyle(e).backgroundColor")
    shot(page, "v2-02-refused-edit")
    # fixing the text saves it
    page.fill("#text", "Bob is learning the viola")
    page.click("#save")
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    done = page.locator(".flash.done")
    assert done.inner_text() == "Saved."
    ok_bg = done.evaluate("e => getComputedStyle(e).backgroundColor")
    assert ok_bg != refused_bg and "Bob is learning the viola" in page.content()
    page.context.close()


@browser_only
def test_browser_spaces_area_is_its_own(
    browser: Any, live_sqlite: tuple[Live, dict[str, str]]
) -> None:
    live, _ = live_sqlite
    page = _page(browser, live)
    general_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.click("text=Shared spaces")
    page.wait_for_url(re.compile(r"/dashboard/owner/unlock\?next=spaces$"))
    page.fill("#password", PASSWORD)
    page.click("#unlock")
    page.wait_for_url(re.compile(r"/dashboard/owner/spaces$"))
    assert page.locator("#spaces-banner").is_visible()
    spaces_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert SPACE_MARK in page.locator("#space-home").inner_text()
    assert "Alice Martin" in page.locator("#space-home").inner_text()
    page.fill("#space-name", "team")
    page.fill("#space-members", f"{BOB} {CAROL}")
    page.click("#create")
    page.wait_for_url(re.compile(r"/dashboard/owner/spaces$"))
    assert page.locator("#space-team").is_visible()
    shot(page, "v2-03-spaces")
    page.click("text=Owner facts")
    page.wait_for_url(re.compile(r"/dashboard/owner$"))
    owner_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert len({general_bg, spaces_bg, owner_bg}) == 3
    page.context.close()
