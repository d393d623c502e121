"""The servers panel of `mcp-host web` (web/panel.js) driven in Debian's
chromium by Playwright: page.py's harness with the panel's scenarios.

Usage: panel.py SCENARIO URL (as page.py).
"""

import page
from page import expect, send


def servers(p):
    return p.get_by_role("region", name="Servers")


def tools_of(p, name):
    return servers(p).get_by_role("list", name=f"Tools of {name}").get_by_role("listitem").all_text_contents()


def second_page(p, url):
    """Another page with the same session cookie (the token is spent)."""
    context = p.context.browser.new_context()
    context.add_cookies(p.context.cookies())
    other = context.new_page()
    other.goto(url.split("?")[0])
    expect(other.get_by_role("status")).to_have_text("Ready")
    return other


def switch(p, url):
    panel = servers(p)
    alpha = panel.get_by_role("switch", name="Offer alpha")
    beta = panel.get_by_role("switch", name="Offer beta")
    expect(alpha).to_be_checked()
    expect(beta).to_be_checked()
    shown = {
        "alpha_tools": tools_of(p, "alpha"),
        "beta_tools": tools_of(p, "beta"),
        "states": panel.locator(".state").all_text_contents(),
    }
    send(p, "first")
    expect(p.locator(".answer")).to_have_text("one")
    beta.click()
    expect(panel.get_by_role("switch", name="Offer beta")).not_to_be_checked()
    expect(panel.get_by_text("not offered")).to_be_visible()
    send(p, "second")
    expect(p.locator(".answer").nth(1)).to_have_text("two")
    # Another page sees the switch as it is.
    other = second_page(p, url)
    expect(servers(other).get_by_role("switch", name="Offer beta")).not_to_be_checked()
    panel.get_by_role("switch", name="Offer beta").click()
    expect(servers(other).get_by_role("switch", name="Offer beta")).to_be_checked()
    send(p, "third")
    expect(p.locator(".answer").nth(2)).to_have_text("three")
    shown["beta_tools_off"] = tools_of(p, "beta")
    return shown


def login(p, url):
    panel = servers(p)
    remote = panel.get_by_role("listitem", name="remote")
    expect(remote.locator(".state")).to_have_text("needs a login")
    before = {
        "reason": remote.locator(".reason").text_content(),
        "switches": panel.get_by_role("switch").count(),
    }
    with p.context.expect_page() as opened:
        remote.get_by_role("button", name="Log in").click()
    popup = opened.value
    popup.set_default_timeout(page.WAIT_MS)
    popup.wait_for_load_state()
    pages = []
    # The provider's own pages: the login (any account, any password),
    # then the consent; the last one redirects to the loopback callback.
    for _ in range(6):
        if "/callback" in popup.url:
            break
        pages.append(popup.title())
        if popup.locator("input[name=login]").count():
            popup.locator("input[name=login]").fill("ada")
            popup.locator("input[name=password]").fill("secret")
        with popup.expect_navigation():
            popup.locator("button[type=submit]").first.click()
    expect(panel.get_by_role("switch", name="Offer remote")).to_be_checked()
    tools = tools_of(p, "remote")
    send(p, "who am I?")
    expect(p.locator(".answer")).to_have_text("done")
    return {
        "before": before,
        "provider_pages": len(pages),
        "callback": popup.url.split("?")[0].rsplit("/", 1)[-1],
        "state": panel.get_by_role("listitem", name="remote").locator(".state").text_content(),
        "tools": [t.split(" ")[0] for t in tools],
    }


def options(listbox):
    return listbox.get_by_role("option").all_text_contents()


def prompt(p, url):
    box = p.get_by_role("textbox", name="Message")
    box.press_sequentially("/tr")
    commands = p.get_by_role("listbox", name="Commands")
    expect(commands.get_by_role("option", name="/translate")).to_be_visible()
    listed = options(commands)
    commands.get_by_role("option", name="/translate").click()
    form = p.get_by_role("form", name="Prompt translate")
    form.get_by_role("textbox", name="text (required)").fill("the cat sleeps")
    language = form.get_by_role("textbox", name="language (required)")
    suggestions = form.get_by_role("listbox", name="Suggestions for language")
    language.press_sequentially("S")
    expect(suggestions.get_by_role("option").first).to_be_visible()
    after_s = options(suggestions)
    language.press_sequentially("w")
    expect(suggestions.get_by_role("option")).to_have_count(1)
    suggestions.get_by_role("option", name="Swedish").click()
    chosen = language.input_value()
    form.get_by_role("button", name="Run prompt").click()
    expect(p.locator(".answer")).to_have_text("done")
    return {
        "listed": listed,
        "after_s": after_s,
        "chosen": chosen,
        "user": p.locator(".user").all_text_contents(),
        "form_left": p.get_by_role("form", name="Prompt translate").count(),
    }


def attach(p, url):
    p.get_by_role("button", name="Attach a resource").click()
    resources = p.get_by_role("listbox", name="Resources")
    about = resources.get_by_role("option", name="About everything (everything: everything://about)")
    expect(about).to_be_visible()
    about.click()
    attached = p.get_by_role("list", name="Attached")
    expect(attached.get_by_role("button", name="Remove everything://about")).to_be_visible()
    shown = attached.get_by_role("listitem").all_text_contents()
    send(p, "what is this?")
    expect(p.locator(".answer")).to_have_text("done")
    return {
        "attached": shown,
        "user": p.locator(".user").all_text_contents(),
        "attached_after": attached.get_by_role("listitem").count(),
    }


page.SCENARIOS.update({"switch": switch, "login": login, "prompt": prompt, "attach": attach})

if __name__ == "__main__":
    page.main()
