// MCP Apps on the page: a call whose tool names a `ui://` resource gets
// its app in the call's card, in a frame of the apps' own origin (the
// sandbox proxy, which frames the app in turn), and this script is the
// host's end of the app's JSON-RPC over postMessage (the extension's
// 2026-01-26 revision): it answers `ui/initialize`, sends the tool's input
// and result (or `tool-cancelled`), relays the app's `tools/call`,
// `resources/read`, `ui/message` and `ui/update-model-context` to the host
// (which checks each against the app, and asks the person before a call
// as it does for the model's), asks the person before `ui/open-link`,
// follows `size-changed`, shows the app inline or over the whole window
// (`ui/request-display-mode`), tells it when the theme, its display mode
// or its container's size change (`host-context-changed`), and sends
// `ui/resource-teardown` before the app goes.
// Whatever an app sends is bounded: past MAX_MESSAGES in WINDOW_MS it is
// cut off and named; a message over MAX_BYTES is refused.
"use strict";
(() => {
  const host = window.mcpHost;
  if (!host) return;

  const MAX_MESSAGES = 40;
  const WINDOW_MS = 2000;
  const MAX_BYTES = 256 * 1024;
  const MIN_HEIGHT = 40;
  const MAX_HEIGHT = 1600;
  const TEARDOWN_WAIT_MS = 1000;
  const INNER_SANDBOX = "allow-scripts allow-forms";
  // The display modes this page can give an app ("pip" it cannot).
  const DISPLAY_MODES = ["inline", "fullscreen"];
  const dark = window.matchMedia?.("(prefers-color-scheme: dark)");

  const apps = new Map(); // call id -> App

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  class App {
    constructor(call, server, tool, input, card) {
      this.call = call;
      this.server = server;
      this.toolName = tool;
      this.input = input;
      this.card = card;
      this.info = null;
      this.frame = null;
      this.section = null;
      this.initialized = false;
      this.sent = { input: false, result: false, cancelled: false };
      this.result = undefined;
      this.cancelled = null;
      this.times = [];
      this.closed = false;
      this.pending = new Map(); // our request id -> resolve
      // Aborts the app's requests to the host still waiting (an approval
      // asked for its call is withdrawn) when it goes.
      this.requests = new AbortController();
      this.nextId = 1;
      this.asking = false;
      this.displayMode = "inline";
      this.appModes = null; // what the app said it supports, if it did
    }

    get label() {
      return `${this.toolName} (${this.server})`;
    }

    async open() {
      let info;
      try {
        info = await host.post("/api/apps/open", {
          call: this.call,
          server: this.server,
          tool: this.toolName,
        });
      } catch (e) {
        info = { app: null, error: e.message };
      }
      if (this.closed) return;
      if (!info.app) {
        if (info.error) this.card?.append(element("p", "note", `App not shown: ${info.error}`));
        apps.delete(this.call);
        return;
      }
      this.info = info;
      const section = element("section", "app");
      section.setAttribute("aria-label", `App of ${this.label}`);
      // The page's policy takes no inline style sheets: styled here.
      section.style.marginTop = "0.5rem";
      if (info.prefersBorder !== false) {
        section.style.border = "1px solid #8884";
        section.style.borderRadius = "0.4rem";
        section.style.padding = "0.25rem";
      }
      const bar = element("div", "app-bar");
      bar.style.display = "flex";
      bar.style.justifyContent = "space-between";
      bar.style.alignItems = "center";
      bar.style.fontSize = "0.85rem";
      bar.append(element("span", "", `App: ${info.uri}`));
      const exit = element("button", "", "Exit full screen");
      exit.type = "button";
      exit.hidden = true;
      exit.addEventListener("click", () => this.setDisplayMode("inline"));
      this.exit = exit;
      const close = element("button", "", "Close app");
      close.type = "button";
      close.addEventListener("click", () => this.close("the person closed it"));
      bar.append(exit, close);
      section.append(bar);
      if (info.refused?.length) {
        const names = info.refused.map((r) => `${r.field} ${r.value}: ${r.reason}`).join("; ");
        section.append(element("p", "note", `Origins refused for this app: ${names}`));
      }
      const frame = document.createElement("iframe");
      frame.title = `App of ${this.label}`;
      // The proxy has its own origin; `allow-same-origin` lets it be
      // that origin (never the page's), as the extension requires.
      frame.setAttribute("sandbox", "allow-scripts allow-same-origin");
      if (info.allow) frame.setAttribute("allow", info.allow);
      frame.style.height = "320px";
      frame.style.width = "100%";
      frame.style.border = "0";
      frame.style.display = "block";
      frame.src = info.proxy;
      section.append(frame);
      this.frame = frame;
      this.section = section;
      (this.card || document.getElementById("conversation")).append(section);
    }

    post(message) {
      if (this.closed || !this.frame?.contentWindow) return;
      this.frame.contentWindow.postMessage(message, this.info.proxyOrigin);
    }

    notify(method, params) {
      this.post({ jsonrpc: "2.0", method, params });
    }

    answer(id, result) {
      this.post({ jsonrpc: "2.0", id, result });
    }

    fail(id, code, message) {
      this.post({ jsonrpc: "2.0", id, error: { code, message } });
    }

    // What the host knows of the call, once the app said it is ready.
    flush() {
      if (!this.initialized || this.closed) return;
      if (this.input !== undefined && !this.sent.input) {
        this.sent.input = true;
        const args = this.input && typeof this.input === "object" ? this.input : {};
        this.notify("ui/notifications/tool-input", { arguments: args });
      }
      if (this.result !== undefined && !this.sent.result) {
        this.sent.result = true;
        this.notify("ui/notifications/tool-result", this.result);
      } else if (this.cancelled !== null && this.result === undefined && !this.sent.cancelled) {
        this.sent.cancelled = true;
        this.notify("ui/notifications/tool-cancelled", { reason: this.cancelled });
      }
    }

    admit(data) {
      const now = Date.now();
      this.times.push(now);
      while (this.times.length && now - this.times[0] >= WINDOW_MS) this.times.shift();
      if (this.times.length > MAX_MESSAGES) {
        this.cutOff(`it sent more than ${MAX_MESSAGES} messages in ${WINDOW_MS / 1000} seconds`);
        return false;
      }
      let bytes;
      try {
        bytes = JSON.stringify(data).length;
      } catch {
        bytes = Infinity;
      }
      if (bytes > MAX_BYTES) {
        if (data && data.id !== undefined && data.method) {
          this.fail(data.id, -32000, `a message of ${bytes} bytes, more than the ${MAX_BYTES} an app may send`);
        }
        return false;
      }
      return true;
    }

    receive(data) {
      if (this.closed || !this.admit(data)) return;
      if (!data || typeof data !== "object" || data.jsonrpc !== "2.0") return;
      const method = typeof data.method === "string" ? data.method : null;
      if (method === "ui/notifications/sandbox-proxy-ready") {
        this.notify("ui/notifications/sandbox-resource-ready", {
          sandbox: INNER_SANDBOX,
          allow: this.info.allow,
          csp: this.info.sandbox.csp,
          permissions: this.info.sandbox.permissions,
        });
        return;
      }
      if (method && data.id !== undefined && data.id !== null) {
        this.request(data.id, method, data.params || {});
      } else if (method) {
        this.notification(method, data.params || {});
      } else if (data.id !== undefined && this.pending.has(data.id)) {
        const resolve = this.pending.get(data.id);
        this.pending.delete(data.id);
        resolve(data);
      }
    }

    async request(id, method, params) {
      const relay = async (path, body, result) => {
        try {
          const reply = await host.post(path, { app: this.info.app, ...body }, this.requests.signal);
          this.answer(id, result(reply));
        } catch (e) {
          this.fail(id, -32000, e.message);
        }
      };
      switch (method) {
        case "ui/initialize": {
          const modes = params.appCapabilities?.availableDisplayModes;
          if (Array.isArray(modes)) this.appModes = modes.filter((m) => typeof m === "string");
          this.answer(id, this.initializeResult());
          return;
        }
        case "ping":
          this.answer(id, {});
          return;
        case "tools/call":
          if (typeof params.name !== "string") {
            this.fail(id, -32602, "tools/call needs a tool `name`");
            return;
          }
          await relay("/api/apps/call", { name: params.name, arguments: params.arguments ?? null }, (r) => r.result);
          return;
        case "resources/read":
          if (typeof params.uri !== "string") {
            this.fail(id, -32602, "resources/read needs a resource `uri`");
            return;
          }
          await relay("/api/apps/read", { uri: params.uri }, (r) => r.result);
          return;
        case "ui/message":
          await relay("/api/apps/message", { content: params.content }, () => ({}));
          return;
        case "ui/update-model-context":
          await relay(
            "/api/apps/context",
            { content: params.content ?? null, structuredContent: params.structuredContent ?? null },
            () => ({}),
          );
          return;
        case "ui/open-link":
          this.openLink(id, params.url);
          return;
        case "ui/request-display-mode":
          // The mode set: the one asked for when both sides have it, else
          // the current one.
          if (DISPLAY_MODES.includes(params.mode) && (!this.appModes || this.appModes.includes(params.mode))) {
            this.setDisplayMode(params.mode);
          }
          this.answer(id, { mode: this.displayMode });
          return;
        default:
          this.fail(id, -32601, `Method not found: ${String(method).slice(0, 100)}`);
      }
    }

    notification(method, params) {
      switch (method) {
        case "ui/notifications/initialized":
          this.initialized = true;
          this.flush();
          return;
        case "ui/notifications/size-changed": {
          const height = Number(params.height);
          // Over the window the app has the window's size.
          if (Number.isFinite(height) && this.frame && this.displayMode === "inline") {
            this.frame.style.height = `${Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(height)))}px`;
          }
          return;
        }
        case "ui/notifications/request-teardown":
          this.close("the app asked to close");
          return;
        case "notifications/message":
          console.debug(`app ${this.label}:`, JSON.stringify(params.data ?? params).slice(0, 500));
          return;
        default:
      }
    }

    // Inline the app sets its height (up to MAX_HEIGHT); over the window
    // it has the window.
    dimensions() {
      if (this.displayMode === "fullscreen") {
        return { height: window.innerHeight, width: window.innerWidth };
      }
      return { maxHeight: MAX_HEIGHT };
    }

    // What changed of the host context, once the app may hear it.
    contextChanged(changes) {
      if (this.initialized && !this.closed) this.notify("ui/notifications/host-context-changed", changes);
    }

    setDisplayMode(mode) {
      if (mode === this.displayMode || !this.section || !this.frame) return;
      this.displayMode = mode;
      const full = mode === "fullscreen";
      const style = this.section.style;
      style.position = full ? "fixed" : "";
      style.inset = full ? "0" : "";
      style.zIndex = full ? "1000" : "";
      style.margin = full ? "0" : "";
      style.background = full ? "Canvas" : "";
      style.display = full ? "flex" : "";
      style.flexDirection = full ? "column" : "";
      this.frame.style.flex = full ? "1" : "";
      if (full) {
        this.inlineHeight = this.frame.style.height;
        this.frame.style.height = "auto";
      } else if (this.inlineHeight) {
        this.frame.style.height = this.inlineHeight;
      }
      this.exit.hidden = !full;
      this.section.setAttribute("aria-label", `App of ${this.label}${full ? " (full screen)" : ""}`);
      if (full) this.exit.focus();
      this.contextChanged({ displayMode: mode, containerDimensions: this.dimensions() });
    }

    initializeResult() {
      return {
        protocolVersion: this.info.protocolVersion,
        hostInfo: { name: "mcp-host", version: "web" },
        hostCapabilities: {
          openLinks: {},
          serverTools: {},
          serverResources: {},
          logging: {},
          message: { text: {} },
          updateModelContext: { text: {}, structuredContent: {} },
          sandbox: this.info.sandbox,
        },
        hostContext: {
          toolInfo: { id: this.call, tool: this.info.tool },
          theme: theme(),
          displayMode: this.displayMode,
          availableDisplayModes: DISPLAY_MODES,
          containerDimensions: this.dimensions(),
          locale: navigator.language,
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          userAgent: "mcp-host",
          platform: "web",
        },
      };
    }

    // The person decides: nothing opens without their click.
    openLink(id, url) {
      let parsed;
      try {
        parsed = new URL(url);
      } catch {
        this.fail(id, -32000, "Invalid URL");
        return;
      }
      if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
        this.fail(id, -32000, "Invalid URL: only http and https links are opened");
        return;
      }
      if (this.asking) {
        this.fail(id, -32000, "Another link is being asked about");
        return;
      }
      this.asking = true;
      const box = element("div", "approval");
      box.setAttribute("role", "group");
      const what = `The app of ${this.label} asks to open ${parsed.href}`;
      box.setAttribute("aria-label", what);
      box.append(element("p", "", what));
      const done = (open) => {
        this.asking = false;
        box.remove();
        if (open) {
          window.open(parsed.href, "_blank", "noopener,noreferrer");
          this.answer(id, {});
        } else {
          this.fail(id, -32000, "Link opening denied by user");
        }
      };
      for (const [label, open] of [["Open link", true], ["Don't open", false]]) {
        const button = element("button", "", label);
        button.type = "button";
        button.addEventListener("click", () => done(open));
        box.append(button);
      }
      this.section.insertBefore(box, this.frame);
      box.querySelector("button").focus();
    }

    cancel(reason) {
      if (this.result !== undefined || this.cancelled !== null) return;
      this.cancelled = reason;
      this.flush();
    }

    // Teardown: the app is told and given a moment to answer, then goes.
    async close(reason) {
      if (this.closed) return;
      if (this.initialized && this.frame?.isConnected) {
        const id = `teardown-${this.nextId++}`;
        const answered = new Promise((resolve) => this.pending.set(id, resolve));
        this.post({ jsonrpc: "2.0", id, method: "ui/resource-teardown", params: { reason } });
        await Promise.race([answered, new Promise((r) => setTimeout(r, TEARDOWN_WAIT_MS))]);
      }
      this.end(reason);
      this.section?.replaceChildren(element("p", "note", `App of ${this.label} closed: ${reason}`));
    }

    cutOff(reason) {
      if (this.closed) return;
      this.end(reason);
      const said = element("p", "failed", `The app of ${this.label} was cut off: ${reason}`);
      said.setAttribute("role", "alert");
      this.section?.replaceChildren(said);
    }

    end(reason) {
      this.closed = true;
      this.requests.abort();
      // The window back to the page (the app, closed, is not told).
      this.setDisplayMode("inline");
      this.frame?.remove();
      this.frame = null;
      apps.delete(this.call);
      if (this.info?.app) host.post("/api/apps/close", { app: this.info.app, reason }).catch(() => {});
    }
  }

  function theme() {
    return dark?.matches ? "dark" : "light";
  }

  // The person's theme changes every app's.
  dark?.addEventListener("change", () => {
    for (const app of apps.values()) app.contextChanged({ theme: theme() });
  });
  // An app over the window has the window's size.
  window.addEventListener("resize", () => {
    for (const app of apps.values()) {
      if (app.displayMode === "fullscreen") app.contextChanged({ containerDimensions: app.dimensions() });
    }
  });
  // Escape gives the window back.
  window.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const app of apps.values()) if (app.displayMode === "fullscreen") app.setDisplayMode("inline");
  });

  window.addEventListener("message", (event) => {
    for (const app of apps.values()) {
      if (app.frame && event.source === app.frame.contentWindow) {
        if (event.origin === app.info.proxyOrigin) app.receive(event.data);
        return;
      }
    }
  });

  host.on("call_requested", (event) => {
    if (!event.server || apps.has(event.id)) return;
    const last = document.getElementById("conversation").lastElementChild;
    const card = last && last.matches("article.call") ? last : null;
    const app = new App(event.id, event.server, event.tool, event.input, card);
    apps.set(event.id, app);
    app.open();
  });
  host.on("app_result", (event) => {
    const app = apps.get(event.id);
    if (!app) return;
    app.result = event.result;
    app.flush();
  });
  host.on("call_declined", (event) => apps.get(event.id)?.cancel("The person declined the call"));
  host.on("call_not_run", (event) => apps.get(event.id)?.cancel(event.reason || "The call was not run"));
  for (const type of ["line_stopped", "line_failed", "line_done"]) {
    host.on(type, (event) => {
      const reason = type === "line_stopped" ? "Stopped by the person" : "The line ended before the call did";
      for (const app of apps.values()) app.cancel(reason);
    });
  }
  // A reload's replay starts over: the old frames are already gone.
  host.on("reset", () => {
    for (const app of [...apps.values()]) app.end("the page was drawn again");
  });
  window.addEventListener("pagehide", () => {
    for (const app of apps.values()) {
      if (app.initialized) app.post({ jsonrpc: "2.0", id: "teardown-unload", method: "ui/resource-teardown", params: { reason: "the page is closing" } });
    }
  });
})();
