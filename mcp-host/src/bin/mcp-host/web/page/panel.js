// The servers panel of `mcp-host web` (web/panel.rs): each server with its
// state and tools, a switch to offer it to the model or not, and "Log in"
// for a server that waits for a login. Drawn from GET /api/panel/servers
// again on each `servers` event, so every open page follows. Drawn with
// textContent only: a server's words are never markup.
"use strict";
(() => {
  const host = window.mcpHost;
  if (!host) return;
  const side = document.getElementById("side");
  const panel = document.createElement("section");
  panel.id = "servers";
  panel.setAttribute("aria-label", "Servers");
  const heading = document.createElement("h2");
  heading.textContent = "Servers";
  const list = document.createElement("ul");
  list.className = "servers";
  const problem = document.createElement("p");
  problem.className = "failed";
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  panel.append(heading, problem, list);
  side.append(panel);

  const STATES = {
    connected: "connected",
    failed: "failed",
    needs_login: "needs a login",
    disabled: "disabled in the config",
  };
  // The servers this page asked to log in to: only it opens their URL.
  const asked = new Set();

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function say(text) {
    problem.textContent = text;
    problem.hidden = !text;
  }

  function toolList(server) {
    const tools = element("ul", "tools");
    tools.setAttribute("aria-label", `Tools of ${server.name}`);
    for (const tool of server.tools) {
      const item = element("li");
      item.append(element("code", "", tool.model_name));
      if (tool.summary) item.append(` ${tool.summary}`);
      tools.append(item);
    }
    return tools;
  }

  function toggle(server) {
    const label = element("label", "switch");
    const box = element("input");
    box.type = "checkbox";
    box.setAttribute("role", "switch");
    box.setAttribute("aria-label", `Offer ${server.name}`);
    box.checked = server.offered;
    box.addEventListener("change", async () => {
      box.disabled = true;
      try {
        await host.post("/api/panel/offer", { server: server.name, offered: box.checked });
        say("");
      } catch (e) {
        box.checked = !box.checked;
        say(`Not switched: ${e.message}`);
      } finally {
        box.disabled = false;
      }
    });
    label.append(box, server.offered ? " offered to the model" : " not offered");
    return label;
  }

  function loginButton(server) {
    const button = element("button", "", server.logging_in ? "Logging in…" : "Log in");
    button.type = "button";
    button.disabled = server.logging_in;
    if (server.logging_in) button.setAttribute("aria-label", "Log in");
    button.addEventListener("click", async () => {
      button.disabled = true;
      asked.add(server.name);
      try {
        await host.post("/api/panel/login", { server: server.name });
        say("");
      } catch (e) {
        asked.delete(server.name);
        button.disabled = false;
        say(`No login: ${e.message}`);
      }
    });
    return button;
  }

  function draw(servers) {
    list.replaceChildren();
    for (const server of servers) {
      const item = element("li", `server ${server.state}`);
      item.setAttribute("aria-label", server.name);
      const head = element("h3", "", server.name);
      const state = element("p", "state", STATES[server.state] ?? server.state);
      item.append(head, state);
      if (server.reason) item.append(element("p", "reason", server.reason));
      if (server.state === "connected") {
        item.append(toggle(server), toolList(server));
      } else if (server.state === "needs_login") {
        item.append(loginButton(server));
      }
      list.append(item);
    }
  }

  let drawing = Promise.resolve();
  function refresh() {
    // One fetch after another: the last event's state is the one drawn.
    drawing = drawing.then(async () => {
      try {
        const reply = await fetch("/api/panel/servers", { credentials: "same-origin" });
        const data = await reply.json();
        if (!reply.ok) throw new Error(data.error || `${reply.status}`);
        if (data.starting) {
          list.replaceChildren(element("li", "note", "Starting the servers…"));
        } else {
          draw(data.servers);
        }
      } catch (e) {
        say(`The servers could not be listed: ${e.message}`);
      }
    });
  }

  host.on("reset", refresh);
  host.on("ready", refresh);
  host.on("servers", refresh);
  host.on("login_open", (event) => {
    if (!asked.has(event.server)) return;
    asked.delete(event.server);
    if (!/^https?:\/\//.test(event.url)) return;
    // Opened from the click's activation; a link stays in case it is blocked.
    window.open(event.url, "_blank", "noopener");
    const link = element("a", "", `Open the login page of ${event.server}`);
    link.href = event.url;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    problem.replaceChildren(link);
    if (event.code) problem.append(` and enter the code ${event.code}`);
    problem.hidden = false;
  });
  host.on("login_failed", (event) => say(`Login to ${event.server} failed: ${event.error}`));
  refresh();
  commands(host, element, say);
})();

// The Message box's `/` commands (the servers' prompts, their arguments
// completed by the server as the user types) and the resources attached
// to a line (web/panel/commands.rs).
function commands(host, element, say) {
  const message = document.getElementById("message");
  const composer = document.getElementById("composer");
  if (!message || !composer) return;
  let listed = { prompts: [], resources: [] };
  let attached = []; // {server, uri}

  async function load() {
    try {
      const reply = await fetch("/api/panel/commands", { credentials: "same-origin" });
      if (reply.ok) listed = await reply.json();
    } catch {
      // Listed again on the next `servers` event.
    }
  }
  host.on("ready", load);
  host.on("servers", load);

  // The list of commands under the Message box while a `/NAME` is typed.
  const choices = element("ul", "choices");
  choices.setAttribute("role", "listbox");
  choices.setAttribute("aria-label", "Commands");
  choices.hidden = true;
  message.after(choices);

  const form = element("form", "prompt");
  form.hidden = true;
  composer.after(form);

  function matching() {
    const typed = message.value;
    if (!typed.startsWith("/") || /\s/.test(typed)) return [];
    const word = typed.slice(1).toLowerCase();
    return listed.prompts.filter((p) => p.name.toLowerCase().startsWith(word));
  }

  function showChoices() {
    const found = matching();
    choices.replaceChildren();
    for (const prompt of found) {
      const option = element("li", "", `/${prompt.name}`);
      option.setAttribute("role", "option");
      option.setAttribute("aria-label", `/${prompt.name}`);
      const about = prompt.title || prompt.description;
      if (about) option.append(element("span", "about", ` ${about} (${prompt.server})`));
      option.addEventListener("mousedown", (e) => e.preventDefault());
      option.addEventListener("click", () => choose(prompt));
      choices.append(option);
    }
    choices.hidden = found.length === 0;
  }

  function suggestionsFor(prompt, field, list, values) {
    let asked = 0;
    field.addEventListener("input", async () => {
      const mine = ++asked;
      try {
        const reply = await host.post("/api/panel/complete", {
          server: prompt.server,
          prompt: prompt.name,
          argument: field.name,
          value: field.value,
          arguments: values(),
        });
        if (mine !== asked) return;
        list.replaceChildren();
        for (const value of reply.values) {
          const option = element("li", "", value);
          option.setAttribute("role", "option");
          option.addEventListener("mousedown", (e) => e.preventDefault());
          option.addEventListener("click", () => {
            field.value = value;
            list.replaceChildren();
            list.hidden = true;
          });
          list.append(option);
        }
        list.hidden = reply.values.length === 0;
      } catch (e) {
        say(`No suggestions: ${e.message}`);
      }
    });
  }

  // The chosen prompt's arguments, each with the server's suggestions.
  function choose(prompt) {
    choices.hidden = true;
    form.replaceChildren();
    form.setAttribute("aria-label", `Prompt ${prompt.name}`);
    form.append(element("h2", "", `/${prompt.name} (${prompt.server})`));
    const fields = [];
    const values = () => Object.fromEntries(fields.filter((f) => f.value).map((f) => [f.name, f.value]));
    for (const argument of prompt.arguments) {
      const id = `argument-${prompt.name}-${argument.name}`;
      const label = element("label", "", argument.required ? `${argument.name} (required)` : argument.name);
      label.htmlFor = id;
      const field = element("input");
      field.id = id;
      field.name = argument.name;
      field.autocomplete = "off";
      field.required = argument.required;
      if (argument.description) field.title = argument.description;
      const list = element("ul", "choices");
      list.setAttribute("role", "listbox");
      list.setAttribute("aria-label", `Suggestions for ${argument.name}`);
      list.hidden = true;
      suggestionsFor(prompt, field, list, values);
      fields.push(field);
      form.append(label, field, list);
    }
    const run = element("button", "", "Run prompt");
    run.type = "submit";
    const cancel = element("button", "", "Cancel");
    cancel.type = "button";
    cancel.addEventListener("click", close);
    form.append(run, cancel);
    form.onsubmit = async (e) => {
      e.preventDefault();
      run.disabled = true;
      try {
        await host.post("/api/panel/run", { server: prompt.server, prompt: prompt.name, arguments: values() });
        close();
        say("");
      } catch (err) {
        say(`Not run: ${err.message}`);
      } finally {
        run.disabled = false;
      }
    };
    form.hidden = false;
    (fields[0] ?? run).focus();
  }

  function close() {
    form.hidden = true;
    form.replaceChildren();
    message.value = "";
    message.focus();
  }

  message.addEventListener("input", showChoices);

  // Attachments: a picker of the servers' resources, and the list of
  // those attached to the next line.
  const attach = element("button", "", "Attach a resource");
  attach.type = "button";
  const picker = element("ul", "choices");
  picker.setAttribute("role", "listbox");
  picker.setAttribute("aria-label", "Resources");
  picker.hidden = true;
  const chosen = element("ul", "attached");
  chosen.setAttribute("aria-label", "Attached");
  composer.querySelector(".buttons")?.append(attach);
  composer.append(picker, chosen);

  function drawAttached() {
    chosen.replaceChildren();
    for (const item of attached) {
      const entry = element("li", "", `${item.server}:${item.uri} `);
      const remove = element("button", "", "Remove");
      remove.type = "button";
      remove.setAttribute("aria-label", `Remove ${item.uri}`);
      remove.addEventListener("click", () => {
        attached = attached.filter((a) => a !== item);
        drawAttached();
      });
      entry.append(remove);
      chosen.append(entry);
    }
  }

  attach.addEventListener("click", () => {
    picker.replaceChildren();
    for (const resource of listed.resources) {
      const option = element("li", "", `${resource.name} (${resource.server}: ${resource.uri})`);
      option.setAttribute("role", "option");
      option.addEventListener("click", () => {
        if (!attached.some((a) => a.server === resource.server && a.uri === resource.uri)) {
          attached.push({ server: resource.server, uri: resource.uri });
        }
        picker.hidden = true;
        drawAttached();
        message.focus();
      });
      picker.append(option);
    }
    if (!listed.resources.length) picker.append(element("li", "note", "No server lists resources"));
    picker.hidden = !picker.hidden;
  });

  // Before the page's own Send: a `/NAME` of a prompt opens its arguments,
  // and a line with attachments goes with their contents.
  async function sendAttached() {
    const text = message.value;
    if (!text.trim()) return;
    try {
      await host.post("/api/panel/send", { text, attach: attached });
      message.value = "";
      attached = [];
      drawAttached();
      say("");
    } catch (e) {
      say(`Not sent: ${e.message}`);
    }
  }

  function intercept(e) {
    const typed = message.value.trim();
    const prompt = typed.startsWith("/") && listed.prompts.find((p) => `/${p.name}` === typed);
    if (prompt) {
      e.preventDefault();
      e.stopImmediatePropagation();
      choose(prompt);
    } else if (attached.length) {
      e.preventDefault();
      e.stopImmediatePropagation();
      sendAttached();
    }
  }
  window.addEventListener(
    "keydown",
    (e) => {
      if (e.target === message && e.key === "Enter" && !e.shiftKey && !e.isComposing) intercept(e);
    },
    true,
  );
  window.addEventListener(
    "submit",
    (e) => {
      if (e.target === composer) intercept(e);
    },
    true,
  );
}
