"""The dashboard with 5,000 facts, in a real Chromium: pages and true counts, filters by person
and community, honest search counts, the Notes for everyone section, a favicon, and a layout
that fits a 390 px wide phone. Screenshots go to test-output/screenshots/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from confidante import Context, Memory
from confidante.vault.crypto import new_key
from surfaces_helpers import PASSWORD, Live, live_server

from conftest import OWNER

sync_api = pytest.importorskip("playwright.sync_api")
from test_dashboard_browser import ARGS, CHROMIUM, SHOTS, login, shot  # noqa: E402

pytestmark = pytest.mark.skipif(
    not __import__("pathlib").Path(CHROMIUM).exists(), reason="no chromium"
)

PEOPLE, PER_PERSON = 1000, 3
COMMUNITIES, PER_COMMUNITY = 4, 500
HOBBIES = [
    "sourdough baking",
    "trail running",
    "chess openings",
    "birdwatching",
    "salsa dancing",
    "watercolour painting",
    "rock climbing",
    "jazz piano",
    "urban gardening",
    "film photography",
]
TOPICS = [
    "the next meetup moved to the library",
    "we agreed to read a mystery novel next",
    "the server rules were updated for voice channels",
    "a new channel for job postings opened",
    "the weekly quiz starts at the usual time",
    "members voted for a summer picnic",
]


def person(i: int) -> str:
    return f"discord:{100000 + i}"


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    mem = Memory.open(
        tmp_path_factory.mktemp("scale") / "m.db", owner_ids=[OWNER], master_key=new_key()
    )
    for i in range(PEOPLE):
        h = HOBBIES[i % len(HOBBIES)]
        mem.remember_many(
            Context.dm(person(i)),
            [
                f"I spend weekends on {h}",
                f"I would like to get better at {h}",
                "I prefer tea to coffee",
            ],
        )
    for g in range(COMMUNITIES):
        mem.remember_many(
            Context.guild(person(g), f"club{g}"),
            [f"{TOPICS[j % len(TOPICS)]} (item {j})" for j in range(PER_COMMUNITY)],
            "guild",
        )
    owner_dm = Context.dm(OWNER)
    mem.remember_many(owner_dm, ["Remember to renew the OWNERSECRET passport"], "owner")
    mem.remember_many(
        owner_dm,
        ["The bot answers in the language it is addressed in", "Quiet hours are at night"],
        "global",
    )
    assert mem.store.count_facts() >= 5000
    with live_server(mem) as live:
        yield live
    mem.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def new_page(browser: Any, live: Live, **viewport: int) -> Any:
    size = viewport or {"width": 1200, "height": 900}
    ctx = browser.new_context(base_url=live.url, viewport=size)
    page = ctx.new_page()
    login(page)
    page.wait_for_url(re.compile(r"/dashboard/people$"))
    return page


def rows(page: Any) -> int:
    return page.locator("#facts tbody tr").count()


def test_pages_counts_and_filters(browser: Any, big: Live) -> None:
    page = new_page(browser, big)
    people_total = PEOPLE * PER_PERSON
    assert page.locator("#count-people").inner_text() == str(people_total)
    assert page.locator("#result-count").inner_text() == str(people_total)
    assert rows(page) == 50
    assert page.locator("#range").inner_text() == "1\u201350"
    assert page.locator("#page-of").inner_text() == f"Page 1 of {people_total // 50}"
    first_ids = set(page.locator("#facts tbody tr").evaluate_all("rs => rs.map(r => r.id)"))
    page.click("#next")
    page.wait_for_url(re.compile(r"page=2"))
    second_ids = set(page.locator("#facts tbody tr").evaluate_all("rs => rs.map(r => r.id)"))
    assert len(second_ids) == 50 and not first_ids & second_ids
    page.click("#last")
    assert page.locator("#range").inner_text() == f"{people_total - 49}\u2013{people_total}"
    assert "OWNERSECRET" not in page.content()

    # filter by person: a click on who the fact is about
    page.goto("/dashboard/people?page=1")
    who = page.locator("#facts tbody tr td.who a").first
    name = who.inner_text()
    who.click()
    page.wait_for_url(re.compile(r"person="))
    assert rows(page) == PER_PERSON and page.locator("#result-count").inner_text() == "3"
    assert all(t == name for t in page.locator("td.who").all_inner_texts())
    shot(page, "scale-01-person-filter")

    # filter by community, typed as its bare id
    page.goto("/dashboard/community")
    assert page.locator("#count-community").inner_text() == str(COMMUNITIES * PER_COMMUNITY)
    page.fill("#community", "club2")
    page.click("#search")
    page.wait_for_url(re.compile(r"community=club2"))
    assert page.locator("#result-count").inner_text() == str(PER_COMMUNITY)
    assert set(page.locator("td.who").all_inner_texts()) == {"discord:club2"}
    assert page.locator("#page-of").inner_text() == f"Page 1 of {-(-PER_COMMUNITY // 50)}"
    page.context.close()


def test_search_counts_are_honest(browser: Any, big: Live) -> None:
    page = new_page(browser, big)
    page.fill("#q", "birdwatching")
    page.click("#search")
    page.wait_for_url(re.compile(r"q=birdwatching"))
    birders = PEOPLE // len(HOBBIES) * 2  # two facts each
    assert page.locator("#result-count").inner_text() == str(birders)
    assert page.locator("#range").inner_text() == "1\u201350"
    assert "birdwatching" in page.locator("#facts").inner_text()
    page.click("#last")
    assert rows(page) == birders - 50 * (birders // 50) or rows(page) == 50
    # a word in every person's facts: more matches than recall ranks, and the page says so
    page.goto("/dashboard/people?q=tea")
    summary = page.locator("#summary").inner_text()
    assert page.locator("#result-count").inner_text() == "1000" and "1000+ matches" in summary
    assert "recall ranks the best 1000" in summary
    shot(page, "scale-02-search-capped")
    page.context.close()


def test_notes_for_everyone(browser: Any, big: Live) -> None:
    page = new_page(browser, big)
    page.click("text=Notes for everyone")
    page.wait_for_url(re.compile(r"/dashboard/notes$"))
    assert page.locator("#count-notes").inner_text() == "2"
    text = page.locator("#facts").inner_text()
    assert "language it is addressed in" in text and "OWNERSECRET" not in page.content()
    favicon = page.request.get(page.locator("link[rel=icon]").get_attribute("href"))
    assert favicon.status == 200 and favicon.headers["content-type"].startswith("image/svg")
    page.context.close()


def test_a_phone_screen(browser: Any, big: Live) -> None:
    page = new_page(browser, big, width=390, height=844)

    def fits() -> None:
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{page.url} is {width}px wide on a 390px screen"

    fits()
    first = page.locator("#facts tbody tr").first
    box = first.bounding_box()
    assert box["width"] <= 390
    assert page.locator("#facts thead").is_hidden()  # one card per fact
    assert page.locator("#next").is_visible() and page.locator("#q").is_visible()
    shot(page, "scale-03-phone-people")
    page.screenshot(path=str(SHOTS / "scale-03-phone-people-screen.png"))  # what a phone shows
    for path in ("/dashboard/community", "/dashboard/notes", "/dashboard/stats"):
        page.goto(path)
        fits()
    page.goto("/dashboard/owner")
    page.fill("#password", PASSWORD)
    page.click("#unlock")
    page.wait_for_url(re.compile(r"/dashboard/owner$"))
    fits()
    assert page.locator("#owner-banner").is_visible()
    shot(page, "scale-04-phone-owner")
    page.context.close()
