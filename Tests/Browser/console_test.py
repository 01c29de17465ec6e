#!/usr/bin/env python3
"""The emulator's console in a real browser (issue 48): headless Chromium driven by Playwright.

    python3 Tests/Browser/console_test.py [--demo .build/debug/vortex-demo] [--output .build/browser-tests]

It starts `vortex-demo --stay` (the embedded emulator and the nine Vortex subscriptions), opens the
console the demo prints, waits until the page lists the nine subscriptions, publishes a device
presence event from the form ("Channel", "Event (JSON)", "Publish") and checks that the demo's typed
stream printed it. A screenshot of the console is kept in the output folder. Exit 0 when all holds,
1 with the reason otherwise. Needs Debian's `chromium` and the `playwright` wheel (`.ci/run`
installs both); Playwright's own browser download is not used.
"""
import argparse
import os
import queue
import signal
import subprocess
import sys
import threading
import time

from playwright.sync_api import sync_playwright

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHANNEL = "vortex-app/user/demo-user-1/device/presenceChanged"
EVENT = '{"eventType": "device/presenceChanged", "timestamp": "2026-11-28T12:00:00Z", "thingName": "cam-from-console", "online": false}'


def fail(message):
    print(f"console test: FAIL: {message}", flush=True)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo", default=os.path.join(ROOT, ".build", "debug", "vortex-demo"))
    parser.add_argument("--output", default=os.path.join(ROOT, ".build", "browser-tests"))
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    arguments = parser.parse_args()
    os.makedirs(arguments.output, exist_ok=True)

    demo = subprocess.Popen([arguments.demo, "--stay"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in demo.stdout], daemon=True).start()
    log = []

    def wait_for_line(predicate, seconds, what):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                if demo.poll() is not None:
                    fail(f"the demo exited ({demo.returncode}) before {what}:\n" + "\n".join(log))
                continue
            log.append(line)
            if predicate(line):
                return line
        fail(f"no {what} within {seconds} s:\n" + "\n".join(log))

    try:
        console = wait_for_line(lambda line: line.startswith("Console: "), 120, "console address").split()[1]
        wait_for_line(lambda line: line.startswith("Staying connected"), 120, "nine live subscriptions")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=arguments.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(console)
            page.wait_for_function("document.querySelectorAll('.subscription').length === 9", timeout=20_000)
            listed = page.locator(".subscription").all_text_contents()
            if CHANNEL not in listed:
                fail(f"the console does not list {CHANNEL}: {listed}")

            page.get_by_label("Channel").fill(CHANNEL)
            page.get_by_label("Event (JSON)").fill(EVENT)
            page.get_by_label("API key or token").fill("da2-vortex-demo-publisher")
            page.get_by_role("button", name="Publish").click()
            page.wait_for_function("document.getElementById('publish-result').textContent.startsWith('Published')", timeout=15_000)
            typed = wait_for_line(lambda line: "cam-from-console" in line, 15, "typed event from the console")
            if "DevicePresenceOutput" not in typed:
                fail(f"the demo's stream printed another type: {typed}")
            page.wait_for_function(
                "[...document.querySelectorAll('#events .event')].some(row => row.textContent.includes('device/presenceChanged'))", timeout=10_000)
            # Each event with the id its Server-Sent Events carry (what a client's envelope says).
            ids = page.eval_on_selector_all("#events .event", "rows => rows.map(row => row.children[1].textContent)")
            if not ids or not all(text.isdigit() for text in ids):
                fail(f"the console lists events without their ids: {ids}")
            screenshot = os.path.join(arguments.output, "console.png")
            page.screenshot(path=screenshot, full_page=True)
            browser.close()
        print(f"console test: the page listed 9 subscriptions and {len(ids)} events with ids; a publish from its form reached the typed stream: {typed.strip()}")
        print(f"console test: screenshot {screenshot}")
    finally:
        demo.send_signal(signal.SIGINT)
        try:
            demo.wait(timeout=20)
        except subprocess.TimeoutExpired:
            demo.kill()


if __name__ == "__main__":
    main()
