#!/usr/bin/python3
"""Loads the gateway's fleet page in a real headless Chromium, driven by Selenium WebDriver
(Debian's python3-selenium and chromium-driver), and checks the rendered DOM after live data
arrived.

usage: fleet-page-check.py URL ARTIFACT_DIR DEVICE_ID...
       fleet-page-check.py --history URL ARTIFACT_DIR DIVE_DEVICE SWING_DEVICE

Passes when, within the deadline, the page's table has a row per DEVICE_ID with a model and
"connected", the live badge says "live" and at least one server-sent update was applied.
Then (waiting a little longer, without failing, for a swing and a depth state to show) it
saves a screenshot (fleet-page.png) and the rendered DOM (fleet-page.html) in ARTIFACT_DIR.

With --history it checks the device view instead: it clicks DIVE_DEVICE's row and waits until
the view lists a dive read from the event history (an item with an event id), then does the same
for SWING_DEVICE's swings, and saves fleet-page-history.png.

`chromium --dump-dom` with `--virtual-time-budget` cannot do this: virtual time stands still
while the page's event stream is open, so the page would never be "ready". Every wait is an
explicit WebDriverWait on the DOM under a deadline; the page's state is read in one script call
per look, so a row re-rendered by a live update is never read half old, half new.
"""
import json
import os
import shutil
import sys

from selenium import webdriver  # Debian python3-selenium
from selenium.common.exceptions import (ElementClickInterceptedException, StaleElementReferenceException,
                                        TimeoutException, WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

DEADLINE = 90
WIDTH, HEIGHT = 1400, 1000

# The fleet table as the page rendered it: the live badge, the update count and each row's cells.
PROBE = """return JSON.stringify({
    live: (document.getElementById('live') || {}).textContent,
    updates: (document.getElementById('updates') || {}).textContent,
    rows: [...document.querySelectorAll('#devices tbody tr')].map(tr => ({
        id: tr.dataset.device, cells: [...tr.children].map(td => td.textContent)}))})"""


def fail(message):
    print(f"fleet page: {message}", file=sys.stderr)
    sys.exit(1)


def start_browser():
    """A headless Chromium under Debian's chromedriver (the viewport is sized by size_viewport)."""
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    browser_path = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(driver_path):
        fail("chromedriver not found (Debian chromium-driver; scripts/lib.sh WG_TEST_PACKAGES)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                     f"--window-size={WIDTH},{HEIGHT}"):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    except WebDriverException as error:
        fail(f"chromedriver did not start chromium: {error.msg}")
    return driver


def size_viewport(driver):
    """Makes the viewport (what a screenshot shows) WIDTH x HEIGHT: --window-size counts the
    window's own bars, so the window grows by their size; looked at again until it is right (a
    new window may still report its first layout's size). Called after loading and before each
    screenshot."""
    inner = []

    def sized(driver):
        nonlocal inner
        inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
        if inner == [WIDTH, HEIGHT]:
            return True
        window = driver.get_window_size()
        driver.set_window_size(window["width"] + WIDTH - inner[0], window["height"] + HEIGHT - inner[1])
        return False

    try:
        WebDriverWait(driver, 10, poll_frequency=0.2).until(sized)
    except TimeoutException:
        fail(f"the viewport stayed {inner[0]} x {inner[1]}, not {WIDTH} x {HEIGHT}")


def screenshot(driver, path):
    size_viewport(driver)
    if not driver.save_screenshot(path):
        fail(f"chromium wrote no screenshot {path}")


def state(driver):
    return json.loads(driver.execute_script(PROBE) or "{}")


def main():
    history = len(sys.argv) > 1 and sys.argv[1] == "--history"
    arguments = sys.argv[2:] if history else sys.argv[1:]
    if len(arguments) < 3 or (history and len(arguments) != 4):
        fail(__doc__)
    url, artifacts, expected = arguments[0], arguments[1], arguments[2:]
    driver = start_browser()
    try:
        driver.get(url)
        size_viewport(driver)
        if history:
            check_history(driver, artifacts, dive=expected[0], swing=expected[1])
            return

        page = {}

        def ready(driver):
            nonlocal page
            page = state(driver)
            rows = {row["id"]: row["cells"] for row in page.get("rows", [])}
            listed = all(i in rows and rows[i][1] not in ("", "—") and rows[i][2] == "connected" for i in expected)
            return listed and page.get("live") == "live" and not (page.get("updates") or "0").startswith("0 ")

        try:
            WebDriverWait(driver, DEADLINE, poll_frequency=0.2).until(ready)
        except TimeoutException:
            fail(f"not rendered within {DEADLINE} s; last state: {json.dumps(page)[:1500]}")
        print(f"fleet page: {len(page['rows'])} devices listed, live, {page['updates']}")

        # For the screenshot: give swings and depth states a little longer to show (no failure).
        def interesting(driver):
            cells = [row["cells"] for row in state(driver).get("rows", [])]
            return any(c[5] != "—" for c in cells) and any(c[4] != "—" for c in cells)
        try:
            WebDriverWait(driver, 20, poll_frequency=0.5).until(interesting)
        except TimeoutException:
            pass

        os.makedirs(artifacts, exist_ok=True)
        screenshot(driver, os.path.join(artifacts, "fleet-page.png"))
        with open(os.path.join(artifacts, "fleet-page.html"), "w", encoding="utf-8") as file:
            file.write(driver.execute_script("return document.documentElement.outerHTML"))
        print(f"fleet page: screenshot and DOM saved in {artifacts}")
    finally:
        driver.quit()


def check_history(driver, artifacts, dive, swing):
    """Clicks each device's row and waits for the device view to list its dives or swings."""
    for device, kind in ((dive, "dives"), (swing, "swings")):
        listed = []

        def shown(driver):
            nonlocal listed
            listed = json.loads(driver.execute_script(
                f"return document.getElementById('history-device').textContent === '{device}' ? "
                f"JSON.stringify([...document.querySelectorAll('#history-{kind} li[data-event-id]')].map(li => [li.dataset.eventId, li.textContent])) : '[]'")
                or "[]")
            if listed:
                return True
            # Clicked again on every look: the row is rebuilt by each render, and a click on a
            # device already shown reads nothing new; the page reloads the list on a live event.
            rows = driver.find_elements(By.CSS_SELECTOR, f'#devices tbody tr[data-device="{device}"]')
            if rows:
                rows[0].click()
            return False

        try:
            WebDriverWait(driver, DEADLINE, poll_frequency=0.5,
                          ignored_exceptions=(StaleElementReferenceException, ElementClickInterceptedException)).until(shown)
        except TimeoutException:
            view = driver.execute_script("return JSON.stringify({device: document.getElementById('history-device').textContent, "
                                         "hint: document.getElementById('history-hint').textContent, "
                                         f"items: document.getElementById('history-{kind}').textContent}})")
            fail(f"the device view of {device} listed no {kind[:-1]} from the event history within {DEADLINE} s; view: {view}")
        print(f"fleet page: the device view of {device} lists {len(listed)} {kind} from the event history, first: {listed[0][1]}")
    os.makedirs(artifacts, exist_ok=True)
    screenshot(driver, os.path.join(artifacts, "fleet-page-history.png"))


if __name__ == "__main__":
    main()
