"""The dashboard in a real headless Chromium (Debian's `chromium`, driven by Playwright):
log in, People and Community without any owner fact, Owner Private behind re-authentication,
log out. Screenshots of each page go to test-output/screenshots/."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from confidante import Context, Memory
from confidante.vault.crypto import new_key
from surfaces_helpers import PASSWORD, Live, live_server

from conftest import ALICE, BOB, OWNER

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path(__file__).resolve().parent.parent / "test-output" / "screenshots"
OWNER_MARKERS = ("ZEBRAMARK", "QUOLLMARK", "OWNERABOUTALICE")

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Live, dict[str, str]]]:
    mem = Memory.open(
        tmp_path_factory.mktemp("dash") / "m.db", owner_ids=[OWNER], master_key=new_key()
    )
    owner_dm = Context.dm(OWNER)
    ids = {
        "owner1": mem.remember(owner_dm, "Dentist moved to Thursday ZEBRAMARK", "owner").id,
        "owner2": mem.remember(owner_dm, "Birthday gift idea for mum QUOLLMARK", "owner").id,
        # What the owner says about Alice in private stays owner-only, even in the inspector.
        "about_alice": mem.remember(
            owner_dm, "Alice owes me a book OWNERABOUTALICE", f"user:{ALICE}"
        ).id,
        "alice": mem.remember(Context.dm(ALICE), "Alice keeps three beehives").id,
        "bob": mem.remember(Context.dm(BOB), "Bob is learning the violin").id,
        "guild": mem.remember(Context.guild(ALICE, "g1"), "Book club reads Dune this month").id,
        "guild2": mem.remember(Context.guild(BOB, "g2"), "Chess club meets on Fridays").id,
    }
    mem.record_skill_use("weather", ok=True)
    with live_server(mem) as live:
        yield live, ids
    mem.close()


@pytest.fixture
def page(browser: Any, seeded: tuple[Live, dict[str, str]]) -> Iterator[Any]:
    ctx = browser.new_context(base_url=seeded[0].url, viewport={"width": 1200, "height": 800})
    p = ctx.new_page()
    yield p
    ctx.close()


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def session_cookie(page: Any) -> str | None:
    return next(
        (c["value"] for c in page.context.cookies() if c["name"] == "confidante_session"), None
    )


def login(page: Any, password: str = PASSWORD) -> None:
    page.goto("/dashboard/")
    page.wait_for_url(re.compile(r"/dashboard/login$"))
    page.fill("#password", password)
    page.click("#login")


def assert_no_owner_facts(page: Any) -> None:
    content = page.content()
    for marker in OWNER_MARKERS:
        assert marker not in content


def assert_no_owner_results(page: Any) -> None:
    """After a search for an owner marker: the page echoes the query, the results must not."""
    results = page.locator("#facts").all_inner_texts()
    for marker in OWNER_MARKERS:
        assert not any(marker in r for r in results)
    assert "Dentist" not in " ".join(results) and "Birthday" not in " ".join(results)


def test_full_owner_journey(page: Any, seeded: tuple[Live, dict[str, str]]) -> None:
    _, ids = seeded

    # Login page, a wrong password, then the right one.
    page.goto("/dashboard/people")
    page.wait_for_url(re.compile(r"/dashboard/login$"))
    shot(page, "01-login")
    login(page, "not the password at all")
    assert page.locator(".error").inner_text() == "Wrong password."
    login(page)
    page.wait_for_url(re.compile(r"/dashboard/people$"))

    cookie = next(c for c in page.context.cookies() if c["name"] == "confidante_session")
    assert cookie["httpOnly"] and cookie["secure"] and cookie["sameSite"] == "Strict"

    # People: users' own facts, never owner facts, and counts that exclude them.
    assert "Alice keeps three beehives" in page.content()
    assert "Bob is learning the violin" in page.content()
    assert_no_owner_facts(page)
    people_rows = page.locator("#facts tbody tr").count()
    assert people_rows == 2
    assert page.locator("#count-people").inner_text() == "2"
    assert page.locator("#result-count").inner_text() == "2"
    shot(page, "02-people")

    for word in ("Dentist Thursday", "birthday gift mum", "owes me a book"):
        page.fill("#q", word)
        page.click("#search")
        page.wait_for_url(re.compile(r"/dashboard/people\?q="))
        assert_no_owner_facts(page)
        assert_no_owner_results(page)
    page.fill("#q", "ZEBRAMARK")
    page.click("#search")
    page.wait_for_url(re.compile(r"/dashboard/people\?q=ZEBRAMARK"))
    assert_no_owner_results(page)
    page.fill("#q", "beehives")
    page.click("#search")
    page.wait_for_url(re.compile(r"q=beehives"))
    assert "Alice keeps three beehives" in page.locator("#facts").inner_text()
    shot(page, "03-people-search")

    # Community: each community's facts, never owner facts.
    page.click("text=Community")
    page.wait_for_url(re.compile(r"/dashboard/community$"))
    assert "Book club reads Dune this month" in page.content()
    assert "Chess club meets on Fridays" in page.content()
    assert page.locator("#count-community").inner_text() == "2"
    assert_no_owner_facts(page)
    page.fill("#q", "dentist thursday birthday gift")
    page.click("#search")
    page.wait_for_url(re.compile(r"/dashboard/community\?q="))
    assert_no_owner_facts(page)
    assert_no_owner_results(page)
    page.goto("/dashboard/community")
    shot(page, "04-community")

    # A forged id cannot reach an owner fact through the general inspector.
    resp = page.goto(f"/dashboard/facts/{ids['owner1']}/edit")
    assert resp.status == 404
    assert_no_owner_facts(page)

    # Edit a People fact; delete a Community fact.
    page.goto(f"/dashboard/facts/{ids['bob']}/edit")
    shot(page, "05-edit")
    page.fill("#text", "Bob is learning the cello")
    page.click("#save")
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    assert "Bob is learning the cello" in page.content() and "Saved." in page.content()
    page.goto("/dashboard/community")
    page.locator(f"#fact-{ids['guild2']} a.danger").click()  # asks first
    page.wait_for_url(re.compile(rf"/dashboard/facts/{ids['guild2']}/delete$"))
    assert "Chess club meets on Fridays" in page.locator("#confirm-text").inner_text()
    page.click("#confirm-delete")
    page.wait_for_url(re.compile(r"/dashboard/community$"))
    assert "Chess club" not in page.content() and "Deleted." in page.content()
    assert page.locator("#count-community").inner_text() == "1"

    page.goto("/dashboard/stats")
    assert "weather" in page.locator("#skills").inner_text()
    shot(page, "06-stats")

    # Owner Private: only through a fresh password entry.
    page.goto("/dashboard/owner")
    page.wait_for_url(re.compile(r"/dashboard/owner/unlock$"))
    assert_no_owner_facts(page)
    shot(page, "07-owner-unlock")
    page.fill("#password", "wrong wrong wrong")
    page.click("#unlock")
    assert page.locator(".error").inner_text() == "Wrong password."
    assert_no_owner_facts(page)
    page.fill("#password", PASSWORD)
    page.click("#unlock")
    page.wait_for_url(re.compile(r"/dashboard/owner$"))
    assert page.locator("#owner-banner").inner_text().startswith("OWNER PRIVATE")
    text = page.locator("#facts").inner_text()
    assert "ZEBRAMARK" in text and "QUOLLMARK" in text
    assert "beehives" not in text and "Dune" not in text  # owner scope only
    # What the owner said about Alice in private is here too, and only here.
    assert "OWNERABOUTALICE" in page.locator("#notes").inner_text()
    assert "beehives" not in page.locator("#notes").inner_text()
    general_bg = "rgb(245, 246, 248)"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != general_bg
    shot(page, "08-owner-private")

    page.fill("#q", "dentist")
    page.click("#search")
    page.wait_for_url(re.compile(r"/dashboard/owner\?q=dentist"))
    assert "ZEBRAMARK" in page.locator("#facts").inner_text()

    page.click("text=Access log")
    page.wait_for_url(re.compile(r"/dashboard/owner/log$"))
    assert "owner_read" in page.content()
    shot(page, "09-access-log")
    page.click("text=Cleanup history")
    page.wait_for_url(re.compile(r"/dashboard/owner/cleanup$"))
    shot(page, "10-cleanup-history")

    # Leaving Owner Private locks it again.
    page.goto("/dashboard/owner")
    page.click("#lock")
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    assert_no_owner_facts(page)
    page.goto("/dashboard/owner")
    page.wait_for_url(re.compile(r"/dashboard/owner/unlock$"))

    # Log out: the session is gone (the login page hands out a fresh, anonymous one).
    before = session_cookie(page)
    page.click("#logout")
    page.wait_for_url(re.compile(r"/dashboard/login$"))
    shot(page, "11-logged-out")
    page.goto("/dashboard/people")
    page.wait_for_url(re.compile(r"/dashboard/login$"))
    assert session_cookie(page) != before


def test_posts_need_the_csrf_token(page: Any) -> None:
    login(page)
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    r = page.request.post("/dashboard/logout", form={"csrf": "forged"})
    assert r.status == 403
    csrf = page.locator("input[name=csrf]").first.get_attribute("value")
    r = page.request.post(
        "/dashboard/logout", form={"csrf": csrf}, headers={"Origin": "http://evil.example"}
    )
    assert r.status == 403
    page.goto("/dashboard/people")
    assert page.url.endswith("/dashboard/people")  # still logged in


def test_owner_private_needs_the_unlock_even_when_logged_in(
    page: Any, seeded: tuple[Live, dict[str, str]]
) -> None:
    _, ids = seeded
    login(page)
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    for path in (
        "/dashboard/owner",
        f"/dashboard/owner/facts/{ids['owner2']}/edit",
        "/dashboard/owner/log",
    ):
        page.goto(path)
        page.wait_for_url(re.compile(r"/dashboard/owner/unlock$"))
        assert_no_owner_facts(page)


def test_no_owner_configured_means_nobody_logs_in(browser: Any, tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m.db", owner_ids=[], master_key=new_key())
    with live_server(mem) as live:
        ctx = browser.new_context(base_url=live.url)
        page = ctx.new_page()
        page.goto("/dashboard/people")
        page.wait_for_url(re.compile(r"/dashboard/login$"))
        assert "No owner is configured" in page.locator("#no-owner").inner_text()
        assert page.locator("#password").count() == 0
        shot(page, "00-no-owner")
        r = page.request.post("/dashboard/login", form={"password": PASSWORD, "csrf": ""})
        assert r.status == 403
        ctx.close()
    mem.close()


def test_a_short_id_is_resolved_once(browser: Any, tmp_path: Path) -> None:
    """Edit and delete by a shortened id (as tables show them): the id is resolved among
    what the general inspector shows, and that fact (never an owner fact that happens to
    share the prefix) is the one changed."""
    mem = Memory.open(tmp_path / "m.db", owner_ids=[OWNER], master_key=new_key())
    owner_ids = [
        f.id
        for f in mem.remember_many(
            Context.dm(OWNER), [f"owner note {i}" for i in range(1000)], "owner"
        )
    ]
    people = [
        f.id for f in mem.remember_many(Context.dm(ALICE), [f"alice note {i}" for i in range(1000)])
    ]
    prefix = next(
        p
        for p in sorted({i[:4] for i in people})
        if sum(i.startswith(p) for i in people) == 1 and any(o.startswith(p) for o in owner_ids)
    )
    target = next(i for i in people if i.startswith(prefix))
    with live_server(mem) as live:
        ctx = browser.new_context(base_url=live.url)
        page = ctx.new_page()
        login(page)
        page.wait_for_url(re.compile(r"/dashboard/people$"))
        page.goto(f"/dashboard/facts/{prefix}/edit")
        csrf = page.locator("input[name=csrf]").first.get_attribute("value")
        r = page.request.post(
            f"/dashboard/facts/{prefix}/edit", form={"text": "edited by prefix", "csrf": csrf}
        )
        assert r.ok and "Saved." in r.text()
        assert mem.get(Context.dm(ALICE), target).text == "edited by prefix"
        r = page.request.post(
            f"/dashboard/facts/{prefix}/delete", form={"csrf": csrf, "confirm": "yes"}
        )
        assert r.ok and "Deleted." in r.text()
        ctx.close()
    owner_texts = {f.text for f in mem.list(Context.dm(OWNER)) if f.id in set(owner_ids)}
    assert len(owner_texts) == 1000 and "edited by prefix" not in owner_texts
    assert target not in {f.id for f in mem.list(Context.dm(ALICE))}
    mem.close()
