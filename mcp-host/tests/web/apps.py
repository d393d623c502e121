"""MCP Apps on the page of `mcp-host web`, in Debian's chromium.

Usage: apps.py SCENARIO URL (CHROMIUM: the browser's path), as page.py:
each scenario drives the page and the apps inside it (each app is two
frames deep: the sandbox proxy, then the app) by role and name, and prints
one JSON object of what it saw.
"""

import json
import os
import re
import sys

from playwright.sync_api import expect, sync_playwright

from page import WAIT_MS, send


def app_frame(page, label):
    """The app of the call `label` (`tool (server)`): inside its proxy."""
    return page.frame_locator(f'iframe[title="App of {label}"]').frame_locator("iframe")


def basic(page, url):
    send(page, "what time is it")
    card = page.get_by_role("article", name="Tool call get-time (basic)")
    expect(card.get_by_role("region", name="App of get-time (basic)")).to_be_visible()
    app = app_frame(page, "get-time (basic)")
    shown = app.locator("#server-time")
    expect(shown).not_to_have_text("Loading...")
    first = shown.text_content()
    expect(page.locator(".answer")).to_have_text("done")
    # The app calls its own tool through the host.
    app.get_by_role("button", name="Get Server Time").click()
    expect(shown).not_to_have_text(first)
    second = shown.text_content()
    # The app's message is the next line.
    app.get_by_role("button", name="Send Message").click()
    expect(page.locator(".answer").nth(1)).to_have_text("got it")
    # A link is opened only if the person says so.
    app.get_by_role("button", name="Open Link").click()
    ask = card.get_by_role("group", name="The app of get-time (basic) asks to open https://modelcontextprotocol.io/")
    expect(ask).to_be_visible()
    buttons = ask.get_by_role("button").all_text_contents()
    ask.get_by_role("button", name="Don't open").click()
    expect(ask).to_be_hidden()
    return {
        "first": first,
        "second": second,
        "user": page.locator(".user").all_text_contents(),
        "link_buttons": buttons,
        "pages": len(page.context.pages),
        "sandbox": page.locator('iframe[title="App of get-time (basic)"]').get_attribute("sandbox"),
        "inner_sandbox": page.frame_locator('iframe[title="App of get-time (basic)"]')
        .locator("iframe")
        .get_attribute("sandbox"),
    }


def budget(page, url):
    send(page, "show the budget")
    app = app_frame(page, "get-budget-data (budget)")
    expect(app.locator("#status-bar")).to_contain_text("$100,000")
    expect(app.get_by_role("heading", name="Budget Allocator")).to_be_visible()
    return {"status": app.locator("#status-bar").text_content().strip()}


def hostile(page, url):
    send(page, "show it")
    cut = page.get_by_role("alert").filter(has_text="cut off")
    expect(cut).to_be_visible()
    return {
        "user": page.locator(".user").all_text_contents(),
        "cut": cut.text_content(),
        "frames": page.locator('iframe[title="App of show (fixture)"]').count(),
    }


def cancel(page, url):
    send(page, "show it slowly")
    app = app_frame(page, "slow_show (fixture)")
    expect(app.locator("#state")).to_contain_text("input")
    page.get_by_role("button", name="Stop").click()
    expect(app.locator("#state")).to_have_text("cancelled: Stopped by the person")
    region = page.get_by_role("region", name="App of slow_show (fixture)")
    region.get_by_role("button", name="Close app").click()
    expect(region).to_have_text("App of slow_show (fixture) closed: the person closed it")
    return {"frames": page.locator('iframe[title="App of slow_show (fixture)"]').count()}


def answered(app, count):
    """The console app's `count`th answer (`N METHOD JSON`), without N."""
    out = app.locator("#out")
    expect(out).to_have_text(re.compile(f"^{count} "))
    text = out.text_content()
    assert text.startswith(f"{count} "), text
    return text[len(f"{count} "):]


def approve(page, url):
    send(page, "show it")
    app = app_frame(page, "show (fixture)")
    expect(app.locator("#state")).to_have_text("result shown: hi (host renders apps: true)")
    seen = {"answers": []}
    asks = page.get_by_role("group", name="Approval: The app of fixture asks to run record. Run it?")
    for count, button in enumerate(["Allow once", "Deny", "Allow once"], start=1):
        app.get_by_role("button", name="Call record").click()
        expect(asks).to_have_count(count)
        ask = asks.nth(count - 1)
        seen.setdefault("buttons", ask.get_by_role("button").all_text_contents())
        ask.get_by_role("button", name=button).click()
        expect(ask.get_by_role("button")).to_have_count(0)
        seen["answers"].append(answered(app, count))
    # An app that goes takes its question with it.
    app.get_by_role("button", name="Call record").click()
    expect(asks).to_have_count(4)
    page.get_by_role("region", name="App of show (fixture)").get_by_role("button", name="Close app").click()
    expect(asks.nth(3).get_by_role("button")).to_have_count(0)
    seen["asks"] = asks.all_text_contents()
    return seen


def console(page, url):
    send(page, "show it")
    app = app_frame(page, "show (fixture)")
    expect(app.locator("#state")).to_have_text("result shown: hi (host renders apps: true)")
    seen = {"answers": [], "contexts": [json.loads(app.locator("#context").text_content())]}
    count = 0

    def click(name):
        nonlocal count
        count += 1
        app.get_by_role("button", name=name).click()
        seen["answers"].append(answered(app, count))

    for name in ["Read note", "Read other", "Read big"]:
        click(name)
    click("Fullscreen")
    region = page.get_by_role("region", name="App of show (fixture) (full screen)")
    expect(region).to_be_visible()
    box = region.bounding_box()
    seen["fullscreen_box"] = [box["x"], box["y"], box["width"], box["height"]]
    seen["viewport"] = [page.viewport_size["width"], page.viewport_size["height"]]
    expect(app.locator("#context")).to_contain_text('"displayMode":"fullscreen"')
    seen["contexts"].append(json.loads(app.locator("#context").text_content()))
    click("Picture in picture")
    region.get_by_role("button", name="Exit full screen").click()
    expect(page.get_by_role("region", name="App of show (fixture)")).to_be_visible()
    expect(app.locator("#context")).to_contain_text('"displayMode":"inline"')
    seen["contexts"].append(json.loads(app.locator("#context").text_content()))
    page.emulate_media(color_scheme="dark")
    expect(app.locator("#context")).to_contain_text('"theme":"dark"')
    seen["contexts"].append(json.loads(app.locator("#context").text_content()))
    return seen


SCENARIOS = {
    "basic": basic,
    "budget": budget,
    "hostile": hostile,
    "cancel": cancel,
    "approve": approve,
    "console": console,
}


def main():
    scenario, url = sys.argv[1], sys.argv[2]
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ["CHROMIUM"], args=args)
        try:
            page = browser.new_context().new_page()
            page.set_default_timeout(WAIT_MS)
            expect.set_options(timeout=WAIT_MS)
            page.goto(url)
            expect(page.get_by_role("status")).to_have_text("Ready")
            seen = SCENARIOS[scenario](page, url)
        finally:
            browser.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
