#!/usr/bin/python3
"""Loads the gateway's fleet page in a real headless Chromium, driven through the DevTools
protocol, and checks the rendered DOM after live data arrived.

usage: fleet-page-check.py URL ARTIFACT_DIR DEVICE_ID...
       fleet-page-check.py --history URL ARTIFACT_DIR DIVE_DEVICE SWING_DEVICE

Passes when, within the deadline, the page's table has a row per DEVICE_ID with a model and
"connected", the live badge says "live" and at least one server-sent update was applied.
Then (waiting a little longer, without failing, for a swing and a depth state to show) it
saves a screenshot (fleet-page.png) and the rendered DOM (fleet-page.html) in ARTIFACT_DIR.

With --history it checks the device view instead: it clicks DIVE_DEVICE's row and waits until
the view lists a dive read from the event history (an item with an event id), then does the same
for SWING_DEVICE's swings, and saves fleet-page-history.png.

`--dump-dom` with `--virtual-time-budget` cannot do this: virtual time stands still while the
page's event stream is open, so the page would never be "ready". Uses Debian's
python3-websocket; every wait polls the DOM under a deadline.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import websocket  # Debian python3-websocket

DEADLINE = 90


def fail(message):
    print(f"fleet page: {message}", file=sys.stderr)
    sys.exit(1)


class DevTools:
    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.next_id = 0

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        while True:
            answer = json.loads(self.socket.recv())
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    fail(f"{method}: {answer['error']}")
                return answer.get("result", {})


def main():
    history = len(sys.argv) > 1 and sys.argv[1] == "--history"
    arguments = sys.argv[2:] if history else sys.argv[1:]
    if len(arguments) < 3 or (history and len(arguments) != 4):
        fail(__doc__)
    url, artifacts, expected = arguments[0], arguments[1], arguments[2:]
    profile = tempfile.mkdtemp(prefix="wg-chromium.")
    browser = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
         f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Chromium writes the port it chose and the browser's endpoint into the profile.
        active = os.path.join(profile, "DevToolsActivePort")
        start = time.monotonic()
        while not (os.path.exists(active) and len(open(active).read().split("\n")) >= 2):
            if browser.poll() is not None or time.monotonic() - start > 30:
                fail("chromium did not open its DevTools port")
            time.sleep(0.1)
        port, path = open(active).read().split("\n")[:2]
        tools = DevTools(f"ws://127.0.0.1:{port}{path}")
        target = tools.call("Target.createTarget", url="about:blank")["targetId"]
        session = tools.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        tools.call("Emulation.setDeviceMetricsOverride", session, width=1400, height=1000, deviceScaleFactor=1, mobile=False)
        tools.call("Page.enable", session)
        tools.call("Page.navigate", session, url=url)

        probe = """JSON.stringify({
            live: (document.getElementById('live') || {}).textContent,
            updates: (document.getElementById('updates') || {}).textContent,
            rows: [...document.querySelectorAll('#devices tbody tr')].map(tr => ({
                id: tr.dataset.device, cells: [...tr.children].map(td => td.textContent)}))})"""

        def state():
            result = tools.call("Runtime.evaluate", session, expression=probe, returnByValue=True)
            return json.loads(result.get("result", {}).get("value") or "{}")

        def ready(page):
            rows = {row["id"]: row["cells"] for row in page.get("rows", [])}
            listed = all(i in rows and rows[i][1] not in ("", "—") and rows[i][2] == "connected" for i in expected)
            return listed and page.get("live") == "live" and not (page.get("updates") or "0").startswith("0 ")

        if history:
            check_history(tools, session, artifacts, dive=expected[0], swing=expected[1])
            return

        start = time.monotonic()
        page = {}
        while not ready(page):
            if time.monotonic() - start > DEADLINE:
                fail(f"not rendered within {DEADLINE} s; last state: {json.dumps(page)[:1500]}")
            time.sleep(0.2)
            page = state()
        print(f"fleet page: {len(page['rows'])} devices listed, live, {page['updates']}")

        # For the screenshot: give swings and depth states a little longer to show (no failure).
        def interesting(p):
            cells = [row["cells"] for row in p.get("rows", [])]
            return any(c[5] != "—" for c in cells) and any(c[4] != "—" for c in cells)
        extra = time.monotonic()
        while not interesting(page) and time.monotonic() - extra < 20:
            time.sleep(0.5)
            page = state()

        os.makedirs(artifacts, exist_ok=True)
        shot = tools.call("Page.captureScreenshot", session, format="png")["data"]
        with open(os.path.join(artifacts, "fleet-page.png"), "wb") as file:
            file.write(base64.b64decode(shot))
        html = tools.call("Runtime.evaluate", session, expression="document.documentElement.outerHTML", returnByValue=True)
        with open(os.path.join(artifacts, "fleet-page.html"), "w", encoding="utf-8") as file:
            file.write(html["result"]["value"])
        print(f"fleet page: screenshot and DOM saved in {artifacts}")
    finally:
        browser.terminate()
        try:
            browser.wait(timeout=10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)


def check_history(tools, session, artifacts, dive, swing):
    """Clicks each device's row and waits for the device view to list its dives or swings."""
    def evaluate(expression):
        result = tools.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    for device, kind in ((dive, "dives"), (swing, "swings")):
        start = time.monotonic()
        listed = []
        while not listed:
            if time.monotonic() - start > DEADLINE:
                view = evaluate("JSON.stringify({device: document.getElementById('history-device').textContent, "
                                "hint: document.getElementById('history-hint').textContent, "
                                f"items: document.getElementById('history-{kind}').textContent}})")
                fail(f"the device view of {device} listed no {kind[:-1]} from the event history within {DEADLINE} s; view: {view}")
            # Clicked again on every look: the row is rebuilt by each render, and a click on a
            # device already shown reads nothing new; the page reloads the list on a live event.
            evaluate(f"(() => {{ const r = document.querySelector('#devices tbody tr[data-device=\"{device}\"]'); if (r) r.click(); }})()")
            time.sleep(0.5)
            value = evaluate(
                f"document.getElementById('history-device').textContent === '{device}' ? "
                f"JSON.stringify([...document.querySelectorAll('#history-{kind} li[data-event-id]')].map(li => [li.dataset.eventId, li.textContent])) : '[]'")
            listed = json.loads(value or "[]")
        print(f"fleet page: the device view of {device} lists {len(listed)} {kind} from the event history, first: {listed[0][1]}")
    os.makedirs(artifacts, exist_ok=True)
    shot = tools.call("Page.captureScreenshot", session, format="png")["data"]
    with open(os.path.join(artifacts, "fleet-page-history.png"), "wb") as file:
        file.write(base64.b64decode(shot))


if __name__ == "__main__":
    main()
