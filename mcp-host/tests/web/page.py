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
    "stop": stop,
    "reload": reload,
    "two_tabs": two_tabs,
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
            # The token left the address bar.
            assert "token" not in page.url, page.url
            expect(page.get_by_role("status")).to_have_text("Ready")
            seen = SCENARIOS[scenario](page, url)
        finally:
            browser.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
