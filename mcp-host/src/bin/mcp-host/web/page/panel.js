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
})();
