"""`contend serve` in a real browser: Debian's chromium driven by Playwright (headless).

A full decision round trip (the ledger still verifies), markup planted in claims, evidence,
answers, a diff and a file name rendering inert (no dialog ever fires), the
Content-Security-Policy enforced against inline script, and a run updating live.

The browser is /usr/bin/chromium (or $BROWSER_TESTS_CHROMIUM); `.ci/run` installs it. Without it
these tests skip with that reason, except where BROWSER_TESTS_REQUIRED=1 (CI) makes a
missing browser a failure. WEB_SCREENSHOTS=DIR also saves the screenshots shown in
docs/web.md there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from contend.cli.main import main
from contend.ledger.runs import LEDGER_FILE
from web_helpers import (
    EVIL_CLAIM,
    EVIL_DEFENSE,
    EVIL_EVIDENCE,
    EVIL_NAME,
    Served,
    rich_repo,
    serving,
)

pytestmark = pytest.mark.browser

T = TypeVar("T")
CHROMIUM = os.environ.get("BROWSER_TESTS_CHROMIUM", "/usr/bin/chromium")

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).is_file():
        if os.environ.get("BROWSER_TESTS_REQUIRED") == "1":
            pytest.fail(f"no browser at {CHROMIUM} and BROWSER_TESTS_REQUIRED=1")
        pytest.skip(
            f"issue 16: no chromium at {CHROMIUM} (apt-get install chromium, as .ci/run does)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield launched
        finally:
            launched.close()


class Watched:
    """A page with every dialog (alert, confirm, prompt) and CSP report it caused."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.dialogs: list[str] = []
        page.on("dialog", self._dialog)

    def _dialog(self, dialog: object) -> None:
        self.dialogs.append(str(getattr(dialog, "message", "?")))
        dialog.dismiss()  # type: ignore[attr-defined]


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield Watched(context.new_page())
    finally:
        context.close()


def _beside(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` in another thread: Playwright's sync API keeps an event loop running in
    this one, and the review engine and the CLI start their own with asyncio.run."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


def _shoot(page: Page, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep = os.environ.get("WEB_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(keep) / name)


def _open(watched: Watched, served: Served, path: str = "/") -> Page:
    page = watched.page
    page.goto(f"{served.base}{path}?token={served.access.token}")
    assert served.access.token not in page.url  # the token left the address bar
    return page


def test_a_full_decision_round_trip_with_planted_markup_inert(
    watched: Watched, tmp_path: Path
) -> None:
    repo, result = _beside(rich_repo, tmp_path)
    with serving(repo) as s:
        page = _open(watched, s)
        [cookie] = page.context.cookies()
        assert (cookie["name"], cookie["httpOnly"], cookie["sameSite"]) == (
            "contend_token",
            True,
            "Strict",
        )
        assert page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it
        assert page.locator("table.runs tbody tr").count() == 1
        assert page.locator("table.runs .badge").inner_text() == "escalate"
        _shoot(page, tmp_path, "web-runs.png")
        page.click(f"a[href='/runs/{result.run_id}']")
        page.wait_for_url(f"**/runs/{result.run_id}")
        assert page.locator("#verdict").inner_text() == "escalate"
        # Ranked by contention: the two deadlocked majors first, the conceded minor resolved.
        assert page.locator("#live > article.dispute").count() == 2
        first = page.locator("#d-C1-1")
        # Every planted string is text on the page, and nothing of it became markup.
        assert first.locator(".side.critic .claim").inner_text() == EVIL_CLAIM
        assert first.locator(".side.critic pre").first.inner_text() == EVIL_EVIDENCE
        assert first.locator(".side.author .claim").inner_text() == EVIL_DEFENSE
        assert EVIL_NAME in page.locator("#d-C1-3 .where").inner_text()
        assert '<script>alert("diff")</script>' in page.locator("#d-C1-3 table.code").inner_text()
        planted = "main script, main img, main svg, main iframe, main b, a[href^='javascript:']"
        assert page.locator(planted).count() == 0
        _shoot(page, tmp_path, "web-run.png")

        # The whole thread on demand.
        page.click("#d-C1-1 details.thread summary")
        assert page.locator("#d-C1-1 details.thread li").count() == 4

        # A blank note is refused by the server too (the browser's `required` removed).
        form = page.locator("#d-C1-1 form.decide")
        form.locator("input[value=overrule]").check()
        form.locator("textarea").evaluate("t => { t.required = false; t.value = '   '; }")
        form.locator("button[type=submit]").click()
        page.wait_for_load_state()
        assert "a decision needs a note" in page.locator("#d-C1-1 .error").inner_text()
        ledger = s.config.state_dir / "runs" / result.run_id / LEDGER_FILE
        before = ledger.read_bytes()

        form = page.locator("#d-C1-1 form.decide")
        form.locator("input[value=overrule]").check()
        form.locator("textarea").fill("callers filter empty lists <i>first</i>")
        form.locator("button[type=submit]").click()
        page.wait_for_url("**decided=C1-1**")
        assert "recorded in the ledger" in page.locator(".flash").inner_text()
        assert page.locator("#verdict").inner_text() == "escalate"  # C1-3 still deadlocked
        assert page.locator("#live > article.dispute").count() == 1
        resolved = page.locator("details#r-C1-1")
        assert "overruled" in resolved.locator("> summary").inner_text()
        assert resolved.get_attribute("open") is not None  # the one just decided
        assert "callers filter empty lists <i>first</i>" in resolved.inner_text()

        form = page.locator("#d-C1-3 form.decide")
        form.locator("input[value=waive]").check()
        form.locator("textarea").fill("a test fixture, on purpose")
        form.locator("button[type=submit]").click()
        page.wait_for_url("**decided=C1-3**")
        assert page.locator("#verdict").inner_text() == "pass"
        assert "Nothing unresolved" in page.locator("#live").inner_text()
        _shoot(page, tmp_path, "web-decided.png")
        page.goto(f"{s.base}/runs/{result.run_id}/disputes/C1-1")
        page.goto(f"{s.base}/stats")
        assert "50.0%" in page.locator("table.stats tr.total").inner_text()  # 1 of 2 overruled
        _shoot(page, tmp_path, "web-stats.png")
        after = ledger.read_bytes()
        assert after.startswith(before) and after.count(b"\n") == before.count(b"\n") + 2
    assert watched.dialogs == []
    assert _beside(main, ["ledger", "verify", str(ledger.parent)]) == 0


def test_the_csp_forbids_inline_script_in_the_browser(watched: Watched, tmp_path: Path) -> None:
    repo, result = _beside(rich_repo, tmp_path)
    with serving(repo) as s:
        page = _open(watched, s, f"/runs/{result.run_id}")
        page.evaluate(
            """() => {
              window.__violations = [];
              document.addEventListener('securitypolicyviolation',
                e => window.__violations.push(e.violatedDirective));
              const s = document.createElement('script');
              s.textContent = 'window.__inline = 1; alert("inline")';
              document.body.appendChild(s);
              const b = document.createElement('button');
              b.id = 'planted';
              b.setAttribute('onclick', 'window.__handler = 1; alert("handler")');
              document.body.appendChild(b);
              const a = document.createElement('a');
              a.id = 'jslink';
              a.href = 'javascript:window.__link = 1; alert("link")';
              a.textContent = 'x';
              document.body.appendChild(a);
            }"""
        )
        page.click("#planted")
        page.click("#jslink")
        page.wait_for_function("window.__violations.length >= 3")
        ran = page.evaluate("[window.__inline, window.__handler, window.__link]")
        assert ran == [None, None, None]
        violations = page.evaluate("window.__violations")
        assert all(v.startswith("script-src") for v in violations)
        # The page's own script (a file of this server) did run: live updates are wired.
        assert page.locator("#live").get_attribute("data-live-connected") == "1"
    assert watched.dialogs == []


def test_a_run_updates_live_when_its_ledger_grows(
    watched: Watched, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, result = _beside(rich_repo, tmp_path)
    monkeypatch.chdir(repo)
    with serving(repo) as s:
        page = _open(watched, s, f"/runs/{result.run_id}")
        page.wait_for_selector("#live[data-live-connected='1']")
        assert page.locator("#live > article.dispute").count() == 2
        entries = page.locator(".ledger").inner_text()
        # Someone decides from the command line while the page is open.
        assert (
            _beside(main, ["decide", "C1-1", "--overrule", "--note", "decided in a terminal"]) == 0
        )
        page.wait_for_selector("#live[data-updated]", timeout=15_000)
        assert page.locator("#live > article.dispute").count() == 1
        assert page.locator(".ledger").inner_text() != entries
        assert page.locator("details#r-C1-1").count() == 1
        # A note being typed is never thrown away: the page only says the ledger changed.
        page.locator("#d-C1-3 textarea").fill("half-written thought")
        # Upheld: a person confirmed the defect, the run fails (exit 1, as `contend gate`).
        assert _beside(main, ["decide", "C1-3", "--uphold", "--note", "from the terminal"]) == 1
        page.wait_for_selector("#stale:not([hidden])", timeout=15_000)
        assert page.locator("#d-C1-3 textarea").input_value() == "half-written thought"
    assert watched.dialogs == []
