"""Issue 16: `cardgen serve`, a live preview, tested as a designer uses it: in a real browser.

The server runs as the real command in its own process on an ephemeral loopback port; headless
Debian Chromium (driven by its chromedriver, no network) opens the page while the test edits the
project's YAML like an editor would.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from cardgen.data.project import load_project
from cardgen.data.versions import load_game, resolve

ROOT = Path(__file__).resolve().parents[1]

MM_TO_CSS_PX = 96 / 25.4


class Served:
    def __init__(self, root: Path, *extra: str):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cardgen", "--project", str(root), "serve", "--version", "3.1",
             "--port", "0", "--no-browser", *extra],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        line = self.proc.stderr.readline()
        match = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        assert match, line + self.proc.stderr.read() if self.proc.poll() is not None else line
        self.url = match.group(1)

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, b""

    def state(self) -> dict:
        return json.loads(self.get("/state.json")[1])

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        return self.proc.returncode, err


@pytest.fixture(scope="module")
def served_project(tmp_path_factory) -> Path:
    """One copy of the seed project for the module's server: a test that edits it puts it back."""
    return load_project(ROOT).copy_sources(tmp_path_factory.mktemp("serve") / "project").root


@pytest.fixture(scope="module")
def served(served_project):
    """One server of 3.1 for the module (a start is seconds: Python, the imports, every face
    drawn): the page test, then the taken port, then the endpoints test, which stops it last."""
    server = Served(served_project)
    yield server
    if server.proc.poll() is None:
        server.stop()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1400,1000",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


def _names(driver) -> list[str]:
    return [fig.get_attribute("data-name") for fig in driver.find_elements(By.CSS_SELECTOR, "figure.card")]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_page_shows_every_card_and_updates_live_on_edit_error_and_fix(served, browser, served_project):
    """On the module's server and project: the edits are put back at the end."""
    project_copy = served_project
    project = load_project(project_copy)
    snapshot = resolve(project, load_game(project, "kings-blade"), "3.1")
    backs = [d for d, deck in snapshot.game.decks.items() if deck.back and snapshot.cards_in_deck(d)]
    wait = WebDriverWait(browser, 15, poll_frequency=0.05)

    browser.get(served.url)
    wait.until(lambda d: len(_names(d)) == len(snapshot.cards) + len(backs))
    names = _names(browser)
    in_deck_order = [c.name for d in snapshot.game.decks for c in snapshot.cards_in_deck(d)]
    assert [n for n in names if not n.startswith("Back of")] == in_deck_order
    assert browser.find_element(By.ID, "decks").text.splitlines()[2] == \
        f"The Mine {snapshot.deck_size('mine')} {len(snapshot.cards_in_deck('mine'))}"
    # the card's name is text on the page (search, screen readers), its picture an SVG image
    katana = browser.find_element(By.ID, "fig-card-katana-hilt")
    assert katana.find_element(By.CSS_SELECTOR, "figcaption .name").text == "Katana Hilt"
    assert katana.find_element(By.TAG_NAME, "svg").get_attribute("aria-label") == "Katana Hilt"
    # true size: 63 x 88 mm plus 3 mm bleed a side, at CSS's 96 px per inch
    browser.find_element(By.ID, "true-size").click()
    width = browser.execute_script(
        "return document.querySelector('#fig-card-katana-hilt svg').getBoundingClientRect().width")
    assert width == pytest.approx(69 * MM_TO_CSS_PX, abs=0.5)
    # the project's own fonts draw the text, not a fallback
    assert browser.execute_script("return document.fonts.check('12px \"Cinzel\"')") is True

    # an edit: the page changes by itself, without a reload, re-rendering only that card
    browser.execute_script("window.notReloaded = 42")
    serial = int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-serial"))
    started = time.perf_counter()
    _edit(project_copy / "versions/kings-blade/1.yml", "name: Katana Hilt", "name: Tanto Hilt")
    wait.until(lambda d: "Tanto Hilt" in _names(d))
    latency = time.perf_counter() - started
    print(f"one-card edit visible after {latency:.2f}s")
    assert browser.execute_script("return window.notReloaded") == 42
    assert "Katana Hilt" not in _names(browser)
    assert int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-serial")) > serial
    assert served.state()["rendered"] == 1
    assert "Tanto Hilt" in browser.find_element(By.ID, "fig-card-katana-hilt").find_element(
        By.TAG_NAME, "svg").get_attribute("innerHTML")

    # a broken file: its one-line error in the page, the cards stay
    version_file = project_copy / "versions/kings-blade/3.1.yml"
    good = version_file.read_text(encoding="utf-8")
    version_file.write_text(good + "\nrules: [oops\n", encoding="utf-8")
    error = browser.find_element(By.ID, "error")
    wait.until(lambda d: error.is_displayed() and "3.1.yml:" in error.text)
    assert re.match(r"error: versions/kings-blade/3\.1\.yml:\d+:\d+: ", error.text) or \
        re.search(r"3\.1\.yml:\d+:\d+:", error.text), error.text
    assert len(_names(browser)) == len(snapshot.cards) + len(backs)

    # fixed: the error goes, the server never stopped
    version_file.write_text(good, encoding="utf-8")
    wait.until(lambda d: not error.is_displayed())
    assert "Tanto Hilt" in _names(browser)
    assert served.proc.poll() is None

    _edit(project_copy / "versions/kings-blade/1.yml", "name: Tanto Hilt", "name: Katana Hilt")  # as it was
    wait.until(lambda d: "Katana Hilt" in _names(d))


def test_listens_on_loopback_and_reports_a_taken_port(served, served_project, cli):
    port = int(served.url.rsplit(":", 1)[1].strip("/"))
    assert served.url.startswith("http://127.0.0.1:")
    result = cli("serve", "--port", str(port), "--no-browser", cwd=served_project)
    assert result.code == 2
    assert result.err.strip() == f"error: cannot listen on 127.0.0.1:{port} (Address already in use); pass another --port"
    assert served.proc.poll() is None  # the running server is not disturbed


def test_endpoints_serve_only_what_they_should(served, served_project):
    """The last test of the module's server: it stops it."""
    project_copy = served_project
    state = served.state()
    assert state["game"] == "kings-blade" and state["version"] == "3.1" and state["previous"] == "3"
    assert state["error"] is None and state["findings"] == []
    status, svg = served.get("/card/card-katana-hilt.svg")
    assert status == 200 and svg.startswith(b"<?xml") and b'width="69mm"' in svg
    status, font = served.get("/fonts/Cinzel-Regular.ttf")
    assert status == 200 and font == (project_copy / "fonts/Cinzel-Regular.ttf").read_bytes()
    (project_copy / "fonts/Leak.ttf").symlink_to("/etc/hostname")  # a link in fonts/ leading out of the project
    for attack in ("/fonts/../cardgen.yml", "/fonts/%2e%2e/cardgen.yml", "/files/../../../cardgen.yml",
                   "/fonts/OFL-Cinzel.txt", "/card/../cardgen.yml", "/etc/passwd", "/fonts/Leak.ttf"):
        assert served.get(attack)[0] == 404, attack
    status, diff = served.get("/diff")  # the link is named, not read, wherever the fonts are loaded
    assert status == 200 and b"Leak.ttf leads outside" in diff and b"hostname" not in diff.split(b"(to")[0]
    (project_copy / "fonts/Leak.ttf").unlink()
    status, diff = served.get("/diff")
    assert status == 200 and b"Version 3 -> " in diff and b"Forge" in diff
    code, err = served.stop()
    assert code == 0 and "stopped" in err and "Traceback" not in err


def test_lang_previews_a_translation_and_its_own_build_folder(project_copy):
    """`--lang nl` shows the Dutch cards (plural forms from the catalog) and links the nl/ build."""
    built = project_copy / "build/kings-blade/3.1/nl"
    built.mkdir(parents=True)
    (built / "sheets-a4.pdf").write_bytes(b"%PDF-1.7 dutch")
    (project_copy / "build/kings-blade/3.1/sheets-a4.pdf").write_bytes(b"%PDF-1.7 english")
    served = Served(project_copy, "--lang", "nl")
    try:
        state = served.state()
        assert (state["lang"], state["source_lang"], state["error"]) == ("nl", "en", None)
        svg = served.get("/card/card-arming-sword.svg")[1].decode("utf-8")
        assert "+1 zwaardpunt<" in svg and "+3 zwaardpunten<" in svg and "sword point" not in svg
        assert [f["name"] for f in state["files"]] == ["sheets-a4.pdf"]
        assert served.get("/files/sheets-a4.pdf") == (200, b"%PDF-1.7 dutch")
    finally:
        served.stop()
