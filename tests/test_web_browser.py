"""The web table in a real browser: headless Chromium through Playwright plays a whole deal by
clicking cards, then replays its record. In CI (``CI`` set) a missing browser is a failure."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parent.parent / "docs"
SHOTS = Path(os.environ.get("HEARTS_WEB_SHOTS", "")) if os.environ.get("HEARTS_WEB_SHOTS") else None


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the browser test needs {what} in CI")
    pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (pip install playwright)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        _missing("chromium (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    uvicorn = pytest.importorskip("uvicorn") if not os.environ.get("CI") else __import__("uvicorn")
    from hearts_env.web.server import create_app

    records = tmp_path_factory.mktemp("records")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(create_app(records), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", records
    srv.should_exit = True
    thread.join(10)


def _shot(page, name: str, docs: bool = False, full: bool = False) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name), full_page=full)
    if docs:
        page.screenshot(path=str(DOCS / "web-table.png"))


def test_play_a_deal_by_clicking_then_replay(browser, server):
    url, records = server
    page = browser.new_page(viewport={"width": 1100, "height": 760})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    page.select_option("#f-rules", "standard")
    page.fill("#f-seed", "7")
    page.check("#f-single")
    page.select_option("#f-speed", "30")
    for select in page.locator("#f-seats select").all():
        select.select_option("heuristic")
    page.click("#f-start")
    page.wait_for_selector("#felt .seat")

    refused = False
    shot_taken = False
    deadline = time.monotonic() + 180
    while True:
        assert time.monotonic() < deadline, "the deal did not finish"
        page.wait_for_function(
            "() => { const p = document.getElementById('prompt'); return p.classList.contains('turn') ||"
            " p.classList.contains('done'); }",
            timeout=30_000,
        )
        if page.locator("#prompt.done").count():
            break
        version = page.evaluate("() => game.version")
        if page.locator("#confirm-pass").count():
            cards = page.locator("#hand button.card")
            for i in range(3):
                cards.nth(i).click()
            assert page.locator("#hand button.card.selected").count() == 3
            _shot(page, "pass.png")
            page.click("#confirm-pass")
        elif page.locator(".decision .menu button").count():
            page.locator(".decision .menu button").first.click()
        else:
            illegal = page.locator("#hand button.card.illegal")
            if not refused and illegal.count():
                before = page.locator("#hand button.card").count()
                illegal.first.click()
                page.wait_for_selector("#prompt.error")
                text = page.inner_text("#prompt")
                assert "must" in text or "not" in text, text  # the engine's reason, as the terminal gives it
                assert page.locator("#hand button.card").count() == before  # refused: the hand is unchanged
                refused = True
            in_hand = page.locator("#hand button.card").count()
            if not shot_taken and in_hand <= 9 and page.locator(".trick .card").count():
                _shot(page, "table.png", docs=True)
                shot_taken = True
            page.locator("#hand button.card.legal").first.click()
        page.wait_for_function(f"() => game.version !== {version}", timeout=10_000)
    assert page.locator("#hand button.card").count() == 0
    assert page.locator("table.scores tr.total td").count() == 4
    assert refused, "no illegal card was ever shown (try another seed)"
    _shot(page, "deal-over.png")
    assert any(records.glob("*.json")), "the finished game was not saved"
    assert page.locator("a[download]").count() == 1

    # the record, replayed trick by trick with every hand shown
    page.click("text=Replay this game")
    page.wait_for_selector("#r-felt .seat")
    assert page.locator("#r-felt .seat").first.locator(".card").count() == 13
    for _ in range(4):
        page.click("#r-nexttrick")
    assert page.locator("#r-felt .trick .card").count() == 4
    _shot(page, "replay.png")
    page.keyboard.press("End")
    assert "Deal scores" in page.inner_text("#r-log")
    assert not errors, errors

    # the same table on a phone-sized window
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(url)
    phone.select_option("#f-mode", "spectate")
    phone.select_option("#f-speed", "250")
    phone.click("#f-start")
    phone.wait_for_selector("#felt .trick .card", timeout=30_000)
    assert phone.locator("#felt .seat .mini-hand").count() == 4
    _shot(phone, "phone-spectate.png", full=True)
    phone.close()
    page.close()
