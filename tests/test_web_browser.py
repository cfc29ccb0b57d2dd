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
SHOTS = Path(os.environ["HEARTS_WEB_SHOTS"]) if os.environ.get("HEARTS_WEB_SHOTS") else None  # screenshots go here
DOCS_SHOT = bool(os.environ.get("HEARTS_WEB_DOCS"))  # set: (re)write docs/web-table.png


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
    app = create_app(records)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", records, app
    srv.should_exit = True
    thread.join(10)


def _shot(page, name: str, docs: bool = False, full: bool = False) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name), full_page=full)
    if docs and DOCS_SHOT:
        page.screenshot(path=str(DOCS / "web-table.png"))


def test_play_a_deal_by_clicking_then_replay(browser, server):
    url, records, _ = server
    page = browser.new_page(viewport={"width": 1000, "height": 700})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    page.select_option("#f-rules", "standard")
    page.fill("#f-seed", "7")
    page.check("#f-single")
    page.select_option("#f-speed", "30")
    for select in page.locator("#f-seats select").all():  # the curated menu, every seat at its default
        assert select.input_value() == "strongest"
        assert " ms" in select.locator("option:checked").inner_text()
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

    # any record: from the records folder, or uploaded
    saved = next(records.glob("*.json"))
    page.click("#nav-replay")
    page.wait_for_selector(f"#r-list button:has-text('{saved.name}')")
    page.set_input_files("#r-file", str(saved))
    page.wait_for_selector("#replay-view:not(.hidden) #r-felt .seat")
    assert page.locator("#r-felt .seat .card").count() == 52
    assert not errors, errors

    # the same table on a phone-sized window
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(url)
    phone.wait_for_selector("#f-seats select", state="attached")  # the page has its options
    phone.select_option("#f-mode", "spectate")
    phone.select_option("#f-speed", "250")
    phone.click("#f-start")
    phone.wait_for_selector("#felt .trick .card", timeout=30_000)
    assert phone.locator("#felt .seat .mini-hand").count() == 4
    _shot(phone, "phone-spectate.png", full=True)
    phone.close()
    page.close()


def test_special_decisions_with_the_keyboard(browser, server):
    """A scripted deal (see tests/test_web.py): void the deal, then lead hearts and shoot the moon;
    the menus answered from the keyboard and with buttons; a reload comes back to the game."""
    from hearts_env.core import Rules
    from hearts_env.web.game import GameSetup

    url, _, app = server
    hands = [
        "AC 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2C 3C 4C 5C 2D 3D 4D 5D 6D 7D 8D 9D TD",
        "6C 7C 8C 9C JD QD KD AD 2S 3S 4S 5S 6S",
        "TC JC QC KC 7S 8S 9S TS JS QS KS AS 2H",
    ]
    deal = {"seed": 1, "hands": [h.split() for h in hands]}
    rules = Rules.load("pagat_main", pass_cycle=["hold"], all_hearts_leader_unbroken="leader_may_void")
    game = app.state.store.create(
        GameSetup(
            rules, "pagat_main", ("", "heuristic", "heuristic", "heuristic"), 0, True, 3, scripted_deals=(deal, deal)
        )
    )
    page = browser.new_page(viewport={"width": 1100, "height": 760})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(f"{url}/#game={game.id}")
    for round_ in range(2):
        page.wait_for_selector("#hand button.card.legal", timeout=20_000)
        page.focus("#hand button.card.legal")
        page.keyboard.press("Enter")  # A♣ takes the first trick
        page.wait_for_selector(".decision .menu button", timeout=20_000)
        assert "only hearts" in page.inner_text("#prompt")
        if round_ == 0:
            _shot(page, "void-menu.png")
            page.reload()  # the game survives a reload
            page.wait_for_selector(".decision .menu button", timeout=20_000)
            page.keyboard.press("1")  # void the deal
            page.wait_for_selector("#next-deal", timeout=20_000)
            assert "(void)" in page.inner_text("table.scores")
            page.keyboard.press("n")
        else:
            page.keyboard.press("2")  # keep the deal and lead a heart
    page.wait_for_function("() => !document.querySelector('.decision .menu')", timeout=20_000)
    while True:
        page.wait_for_selector("#hand button.card.legal, .decision .menu button", timeout=20_000)
        if page.locator(".decision .menu button").count():
            break
        version = page.evaluate("() => game.version")
        page.locator("#hand button.card.legal").first.click()
        page.wait_for_function(f"() => game.version !== {version}", timeout=10_000)
    assert "shot the moon" in page.inner_text("#prompt")
    _shot(page, "moon-menu.png")
    page.locator(".decision .menu button", has_text="-26").click()
    page.wait_for_selector("#prompt.done", timeout=20_000)
    assert page.locator("table.scores tr.total td").first.inner_text() == "-26"
    assert not errors, errors
    page.close()
