"""The page of `mcp-host web` driven in Debian's chromium by Playwright.

Usage: page.py SCENARIO URL (CHROMIUM: the browser's path). Each scenario
finds the controls by role and accessible name (the page's contract),
does what a person does, waits for what the page must show, and prints
one JSON object of what it saw for the Rust test to check exactly. A
wait that times out fails the scenario (exit status 1, the error on
stderr).
"""

import json
import os
import re
import sys

from playwright.sync_api import expect, sync_playwright

WAIT_MS = 20_000


def card_fields(card):
    """A call card's fields, by their labels."""
    names = card.locator("dt").all_text_contents()
    values = card.locator("dd").all_text_contents()
    return dict(zip(names, values))


def send(page, text):
    box = page.get_by_role("textbox", name="Message")
    box.fill(text)
    box.press("Enter")


def answers(page):
    return page.locator(".answer").all_text_contents()


def streamed(page, url):
    # Every text the answer showed, as it changed.
    page.evaluate(
        """() => {
            window.seen = [];
            new MutationObserver(() => {
                const a = document.querySelector('.answer');
                if (a && window.seen.at(-1) !== a.textContent) window.seen.push(a.textContent);
            }).observe(document.getElementById('conversation'),
                {subtree: true, childList: true, characterData: true});
        }"""
    )
    send(page, "hello")
    expect(page.get_by_role("button", name="Stop")).to_be_visible()
    expect(page.locator(".answer")).to_have_text("The quick brown fox jumps over the lazy dog.")
    expect(page.get_by_role("button", name="Stop")).to_be_hidden()
    return {
        "user": page.locator(".user").all_text_contents(),
        "answers": answers(page),
        "seen": page.evaluate("window.seen"),
        "message_left": page.get_by_role("textbox", name="Message").input_value(),
    }


def card(page, url):
    send(page, "take your time")
    call = page.get_by_role("article", name="Tool call slow (everything)")
    expect(call.get_by_role("progressbar")).to_be_visible()
    progress = call.locator("dd").nth(3).text_content()
    expect(call.locator("dd").nth(5)).to_have_text("success")
    expect(page.locator(".answer")).to_have_text("done")
    fields = card_fields(call)
    duration = fields.pop("Duration")
    return {
        "fields": fields,
        "progress_seen": progress,
        "duration_ms": int(re.fullmatch(r"(\d+) ms", duration).group(1)),
        "input": call.locator(".input").text_content(),
    }


def approve(word):
    def scenario(page, url):
        send(page, "go")
        call = page.get_by_role("article", name="Tool call toggle_bonus (everything)")
        group = call.get_by_role("group", name=re.compile("^Approval: Run toggle_bonus of everything"))
        expect(group).to_be_visible()
        buttons = group.get_by_role("button").all_text_contents()
        expect(group.get_by_role("button", name="Allow once")).to_be_focused()
        group.get_by_role("button", name=word).click()
        expect(page.locator(".answer")).to_have_text("done")
        return {
            "buttons": buttons,
            "fields": {k: v for k, v in card_fields(call).items() if k != "Duration"},
            "approval": call.locator(".approval").text_content(),
        }

    return scenario


def always_tool(page, url):
    send(page, "go")
    first = page.get_by_role("article", name="Tool call toggle_bonus (everything)").first
    first.get_by_role("button", name="Always allow this tool").click()
    expect(page.locator(".answer")).to_have_text("done")
    cards = page.get_by_role("article", name="Tool call toggle_bonus (everything)")
    return {
        "cards": cards.count(),
        "approvals": page.locator(".approval").all_text_contents(),
        "outcomes": [card_fields(cards.nth(i))["Outcome"] for i in range(cards.count())],
    }


def stop_asked(page, url):
    send(page, "go")
    call = page.get_by_role("article", name="Tool call toggle_bonus (everything)")
    expect(call.get_by_role("button", name="Allow once")).to_be_visible()
    page.get_by_role("button", name="Stop").click()
    expect(page.get_by_text("Stopped", exact=True)).to_be_visible()
    # The question is gone; a late answer is refused.
    late = page.evaluate(
        """() => mcpHost.post('/api/approve', {ask: 1, answer: 'once'}).then(() => 'taken', e => e.message)"""
    )
    return {
        "approval": call.locator(".approval").text_content(),
        "buttons": call.get_by_role("button").count(),
        "late": late,
    }


def first_text(page, url):
    # For each of 5 lines: the time from the Enter that sends it to its
    # answer's first text on screen, in ms (the page's clock).
    page.evaluate(
        """() => {
            window.firsts = [];
            new MutationObserver(() => {
                const all = document.querySelectorAll('.answer');
                if (all.length > window.firsts.length && window.sentAt !== undefined) {
                    window.firsts.push(performance.now() - window.sentAt);
                }
            }).observe(document.getElementById('conversation'),
                {subtree: true, childList: true, characterData: true});
            document.getElementById('message').addEventListener('keydown', (e) => {
                if (e.key === 'Enter') window.sentAt = performance.now();
            }, {capture: true});
        }"""
    )
    for i in range(5):
        send(page, f"line {i}")
        expect(page.locator(".answer")).to_have_count(i + 1)
        expect(page.get_by_role("button", name="Stop")).to_be_hidden()
    return {"first_text_ms": page.evaluate("window.firsts")}


def definition(page, url):
    # Asked while the servers start, before any line.
    expect(page.get_by_role("status")).to_have_text("Starting the servers…")
    group = page.get_by_role("group", name="Approval: Offer the changed tool echo of everything to the model?")
    expect(group).to_be_visible()
    buttons = group.get_by_role("button").all_text_contents()
    details = group.locator(".input").text_content()
    group.get_by_role("button", name="Allow once").click()
    expect(page.get_by_role("status")).to_have_text("Ready")
    send(page, "hi")
    expect(page.locator(".answer")).to_have_text("done")
    return {"buttons": buttons, "details": details, "approvals": page.locator(".approval").all_text_contents()}


def stop(page, url):
    send(page, "take your time")
    call = page.get_by_role("article", name="Tool call slow (everything)")
    expect(call.locator("dd").nth(2)).to_have_text("running")
    page.get_by_role("button", name="Stop").click()
    expect(page.get_by_text("Stopped", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Stop")).to_be_hidden()
    fields = card_fields(call)
    # The next line runs.
    send(page, "and now?")
    expect(page.locator(".answer")).to_have_text("after the stop")
    return {"state_at_stop": fields["State"], "user": page.locator(".user").all_text_contents()}


def reload(page, url):
    send(page, "take your time")
    expect(page.locator(".answer")).to_have_text("done")
    before = page.locator("#conversation").inner_text()
    page.reload()
    expect(page.get_by_role("status")).to_have_text("Ready")
    call = page.get_by_role("article", name="Tool call slow (everything)")
    expect(call.locator("dd").nth(5)).to_have_text("success")
    return {
        "same": page.locator("#conversation").inner_text() == before,
        "user": page.locator(".user").all_text_contents(),
        "answers": answers(page),
        "cards": page.get_by_role("article").count(),
    }


def two_tabs(page, url):
    other = page.context.new_page()
    # The token is spent: the second tab opens the page with the cookie.
    other.goto(url.split("?")[0])
    expect(other.get_by_role("status")).to_have_text("Ready")
    send(page, "take your time")
    expect(other.get_by_role("article", name="Tool call slow (everything)")).to_be_visible()
    # A line runs: the other tab's Send is refused, visibly.
    send(other, "me too")
    alert = other.get_by_role("alert")
    expect(alert).to_be_visible()
    refused = alert.text_content()
    expect(other.locator(".answer")).to_have_text("done")
    expect(page.locator(".answer")).to_have_text("done")
    return {
        "refused": refused,
        "other_user": other.locator(".user").all_text_contents(),
        "other_answers": answers(other),
        "message_kept": other.get_by_role("textbox", name="Message").input_value(),
    }


SCENARIOS = {
    "streamed": streamed,
    "card": card,
    "allow_once": approve("Allow once"),
    "deny": approve("Deny"),
    "always_tool": always_tool,
    "definition": definition,
    "first_text": first_text,
    "stop_asked": stop_asked,
    "stop": stop,
    "reload": reload,
    "two_tabs": two_tabs,
}

# Scenarios that begin while the servers start.
STARTING = {"definition"}


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
            # The token left the address bar.
            assert "token" not in page.url, page.url
            if scenario not in STARTING:
                expect(page.get_by_role("status")).to_have_text("Ready")
            seen = SCENARIOS[scenario](page, url)
        finally:
            browser.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
