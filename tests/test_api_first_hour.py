"""The API forgives and explains: bodies without a Content-Type, documentation pages that load
nothing from outside, ISO times, pages with cursors, and every error code documented."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

import confidante
from confidante import Context, Memory
from confidante.errors import DENIAL_LOG_CODES, ERROR_CODES, ConfidanteError
from confidante.vault.crypto import new_key
from surfaces_helpers import Live, live_server

from conftest import ALICE, BOB, OWNER


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    path = tmp_path_factory.mktemp("api1h") / "memory.db"
    mem = Memory.open(path, owner_ids=[OWNER], master_key=new_key())
    with live_server(mem) as server:
        yield server
    mem.close()


@pytest.fixture(scope="module")
def token(live: Live) -> str:
    return live.token("first-hour")


def post(live: Live, token: str, path: str, body: str | bytes, **headers: str) -> httpx.Response:
    return httpx.post(
        live.url + path,
        content=body,
        headers={"Authorization": f"Bearer {token}", **headers},
        timeout=30,
    )


def test_curl_style_bodies_are_read_as_json(live: Live, token: str) -> None:
    body = '{"context": {"actor": "discord:42", "surface": "dm"}, "text": "I prefer tea"}'
    # what `curl -d` sends, and what a client that names no type sends
    for headers in ({"Content-Type": "application/x-www-form-urlencoded"}, {}):
        r = post(live, token, "/v1/memories", body, **headers)
        assert r.status_code == 201, r.text
        assert r.json()["text"] == "I prefer tea"
    bad = post(live, token, "/v1/memories", "context=dm&text=hi")
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "malformed_json"
    assert "Content-Type: application/json" in bad.json()["error"]["message"]
    xml = post(live, token, "/v1/memories", "<text/>", **{"Content-Type": "application/xml"})
    assert xml.status_code == 415
    assert xml.json()["error"] == {
        "code": "unsupported_media_type",
        "message": "send the body as JSON with Content-Type: application/json",
    }


def test_an_empty_body_is_an_empty_object(live: Live) -> None:
    pinned = live.token("pinned-bob", {"surface": "dm", "actor": BOB})
    r = post(live, pinned, "/v1/memories/list", b"")
    assert r.status_code == 200 and r.json()["total"] == 0


def test_times_are_iso_8601(live: Live, token: str) -> None:
    api = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {token}"})
    fact = api.post(
        "/v1/memories", json={"context": {"surface": "dm", "actor": ALICE}, "text": "iso check"}
    ).json()
    for name in ("created_at", "updated_at", "expires_at"):
        assert datetime.fromisoformat(fact[name]).utcoffset() is not None
    api.post(
        "/v1/memories",
        json={"context": {"surface": "dm", "actor": ALICE}, "text": "x", "namespace": "owner"},
    )
    denials = api.post("/v1/denials", json={"context": {"surface": "dm", "actor": OWNER}}).json()[
        "denials"
    ]
    assert denials and all(datetime.fromisoformat(d["at"]).utcoffset() is not None for d in denials)


def test_list_and_search_pages(live: Live, token: str) -> None:
    api = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {token}"})
    ctx = {"surface": "dm", "actor": "discord:77"}
    texts = [f"page test about gardening number {i}" for i in range(23)]
    live.mem.remember_many(Context.dm("discord:77"), texts)
    seen, cursor, pages = [], None, 0
    while True:
        r = api.post("/v1/memories/list", json={"context": ctx, "limit": 10, "cursor": cursor})
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["total"] == 23
        seen += [f["text"] for f in data["facts"]]
        pages += 1
        cursor = data["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and sorted(seen) == sorted(texts) and len(set(seen)) == 23
    # a new fact does not shift the pages already handed out
    first = api.post("/v1/memories/list", json={"context": ctx, "limit": 5}).json()
    live.mem.remember(Context.dm("discord:77"), "a newer gardening note")
    second = api.post(
        "/v1/memories/list", json={"context": ctx, "limit": 5, "cursor": first["next_cursor"]}
    ).json()
    assert not {f["id"] for f in first["facts"]} & {f["id"] for f in second["facts"]}

    hits, cursor = [], None
    while True:
        body = {"context": ctx, "query": "gardening", "k": 10, "cursor": cursor}
        data = api.post("/v1/memories/search", json=body).json()
        hits += [h["id"] for h in data["hits"]]
        cursor = data["next_cursor"]
        if cursor is None:
            break
    assert len(hits) == 24 and len(set(hits)) == 24
    wrong = api.post(
        "/v1/memories/search",
        json={"context": ctx, "query": "tea", "cursor": first["next_cursor"]},
    )
    assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "invalid_cursor"
    # another reader's cursor positions nothing it cannot see
    other = api.post(
        "/v1/memories/list",
        json={"context": {"surface": "dm", "actor": BOB}, "cursor": first["next_cursor"]},
    ).json()
    assert all("gardening" not in f["text"] for f in other["facts"])


def test_docs_and_redoc_load_nothing_from_outside(live: Live) -> None:
    for page, asset in (("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")):
        html = httpx.get(live.url + page).text
        urls = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", html)
        assert urls and all(u.startswith("/") for u in urls), urls
        assert "cdn" not in html.lower() and "fonts.googleapis" not in html
        js = httpx.get(f"{live.url}/docs/assets/{asset}")
        assert js.status_code == 200 and len(js.content) > 100_000
    spec = httpx.get(live.url + "/openapi.json").json()
    examples = spec["paths"]["/v1/memories"]["post"]["responses"]["403"]["content"][
        "application/json"
    ]["examples"]
    assert examples["owner_required"]["value"]["error"]["code"] == "owner_required"


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no Chromium")
def test_swagger_ui_renders_offline(live: Live) -> None:
    from playwright.sync_api import sync_playwright

    outside: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"))
        page = browser.new_page()

        def only_loopback(route: Any) -> None:
            url = route.request.url
            if url.startswith(live.url) or url.startswith("data:"):
                route.continue_()
            else:
                outside.append(url)
                route.abort()

        page.route("**/*", only_loopback)
        page.goto(live.url + "/docs")
        page.get_by_text("Remember a fact").first.wait_for(timeout=20_000)
        page.goto(live.url + "/redoc")
        # ReDoc renders every operation into its (collapsed) menu and its body
        page.get_by_text("Recall, best first").first.wait_for(state="attached", timeout=20_000)
        browser.close()
    assert outside == []


# --- the catalogue of error codes --------------------------------------------------------------

SRC = Path(confidante.__file__).parent


def _codes_in_source() -> set[str]:
    """Every error code the package can produce: class `code = "..."`, `code="..."`
    arguments, `AccessDenied("...")`, and the codes adapters put in error bodies."""
    codes: set[str] = set()
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                codes.add(node.value.value)
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                for kw in node.keywords:
                    if kw.arg == "code" and isinstance(kw.value, ast.Constant):
                        codes.add(kw.value.value)
                # the code is the first argument (after the status for HTTP helpers)
                at = 1 if name in ("ApiError", "error_response", "_send_json") else 0
                if (
                    name in ("AccessDenied", "error_body", "ApiError", "error_response")
                    and len(node.args) > at
                ):
                    arg = node.args[at]
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        codes.add(arg.value)
    return codes


def test_every_error_code_is_documented_with_an_example() -> None:
    found = _codes_in_source()
    assert {"owner_required", "unauthenticated", "ambiguous_id", "database_missing"} <= found
    undocumented = found - set(ERROR_CODES) - set(DENIAL_LOG_CODES)
    assert undocumented == set()
    for code, doc in ERROR_CODES.items():
        assert doc.example and doc.when and 400 <= doc.status < 600, code
    for cls in _subclasses(ConfidanteError):
        assert ERROR_CODES[cls.code].status == cls.http_status, cls


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def test_http_codes_used_by_the_gate_are_documented() -> None:
    from confidante.surfaces.http.errors import _HTTP_CODES

    assert set(_HTTP_CODES.values()) <= set(ERROR_CODES)


def test_no_cdn_in_the_package() -> None:
    """No template or module points a browser at a CDN."""
    hits = subprocess.run(
        ["grep", "-rIl", "-e", "cdn.jsdelivr", "-e", "unpkg.com", "-e", "googleapis", str(SRC)],
        capture_output=True,
        text=True,
    ).stdout
    assert hits == ""


def test_ids_by_prefix_and_list_by_scope(live: Live, token: str) -> None:
    api = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {token}"})
    me = {"surface": "dm", "actor": "discord:88"}
    fact = api.post("/v1/memories", json={"context": me, "text": "prefix check"}).json()
    got = api.post(f"/v1/memories/{fact['id'][:10]}/get", json={"context": me})
    assert got.status_code == 200 and got.json()["id"] == fact["id"]
    hidden = api.post(
        f"/v1/memories/{fact['id'][:10]}/get", json={"context": {"surface": "dm", "actor": BOB}}
    )
    assert hidden.status_code == 404 and hidden.json()["error"]["code"] == "not_found"
    session = api.post(
        "/v1/memories", json={"context": me, "text": "a session line", "namespace": "session"}
    ).json()
    only = api.post("/v1/memories/list", json={"context": me, "scope": "session"}).json()
    assert [f["id"] for f in only["facts"]] == [session["id"]] and only["total"] == 1
