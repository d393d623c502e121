// The page of `mcp-host web`: the conversation drawn from the server's
// events (GET /api/events, server-sent; each a JSON object tagged by
// `event`), lines and answers posted to /api/*. Everything is drawn with
// textContent: a model's or a server's words are never markup.
//
// For the page's other parts (their scripts load after this one):
//   window.mcpHost.on(type, fn)  fn(event) for each event of `type`
//                                ("*": every event), replayed ones too
//   window.mcpHost.post(path, body, signal) -> Promise of the reply's
//                                JSON; a refusal rejects with its `error`
//                                (`signal`, optional, aborts it)
"use strict";
(() => {
  const listeners = new Map();
  const mcpHost = {
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, []);
      listeners.get(type).push(fn);
    },
    async post(path, body, signal) {
      const reply = await fetch(path, {
        signal,
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body ?? {}),
        credentials: "same-origin",
      });
      const data = await reply.json().catch(() => ({}));
      if (!reply.ok) throw new Error(data.error || `${reply.status} ${reply.statusText}`);
      return data;
    },
  };
  window.mcpHost = mcpHost;

  const SHORT_INPUT = 200;
  const BUTTONS = {
    once: "Allow once",
    tool: "Always allow this tool",
    server: "Always allow this server",
    deny: "Deny",
  };
  const ANSWERED = {
    once: "Allowed once",
    tool: "Always allowed: this tool",
    server: "Always allowed: this server",
    deny: "Denied",
  };

  const $ = (id) => document.getElementById(id);
  const conversation = $("conversation");
  const message = $("message");
  const send = $("send");
  const stop = $("stop");
  const notice = $("notice");
  const status = $("status");

  // What the drawing needs between events.
  let cards = new Map(); // call id -> {card, fields}
  let asks = new Map(); // ask number -> element
  let answer = null; // the answer's text element being written
  let running = false;
  let ready = false;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function say(text) {
    notice.textContent = text;
    notice.hidden = !text;
  }

  function setRunning(now) {
    running = now;
    stop.hidden = !now;
    showStatus();
  }

  function showStatus() {
    status.textContent = !ready
      ? "Starting the servers…"
      : running
        ? "Answering…"
        : "Ready";
  }

  function short(value) {
    const text = JSON.stringify(value) ?? "null";
    return text.length <= SHORT_INPUT
      ? text
      : `${text.slice(0, SHORT_INPUT)}… (${text.length - SHORT_INPUT} more characters)`;
  }

  function field(list, name) {
    list.append(element("dt", "", name));
    const value = element("dd");
    list.append(value);
    return value;
  }

  function card(event) {
    const node = element("article", "call");
    const title = event.server ? `${event.tool} (${event.server})` : event.tool;
    node.setAttribute("aria-label", `Tool call ${title}`);
    node.append(element("h2", "", title));
    node.append(element("p", "input", short(event.input)));
    const list = element("dl");
    const fields = {
      server: field(list, "Server"),
      tool: field(list, "Tool"),
      state: field(list, "State"),
      progress: field(list, "Progress"),
      duration: field(list, "Duration"),
      outcome: field(list, "Outcome"),
    };
    fields.server.textContent = event.server || "(none)";
    fields.tool.textContent = event.tool;
    fields.state.textContent = "requested";
    fields.progress.textContent = "–";
    fields.duration.textContent = "–";
    fields.outcome.textContent = "–";
    node.append(list);
    conversation.append(node);
    cards.set(event.id, { node, fields });
    // Text after a call is a new paragraph of the answer.
    answer = null;
  }

  function progress(event, fields) {
    fields.progress.textContent = "";
    const bar = element("progress");
    bar.value = event.progress;
    if (event.total !== undefined) bar.max = event.total;
    else bar.removeAttribute("max");
    const label = event.total !== undefined ? `${event.progress} of ${event.total}` : `${event.progress}`;
    bar.setAttribute("aria-label", `Progress ${label}`);
    fields.progress.append(bar, ` ${label}${event.message ? `: ${event.message}` : ""}`);
  }

  function approval(event) {
    const box = element("div", "approval");
    box.setAttribute("role", "group");
    const readOnly = event.read_only ? " (read-only)" : "";
    const what =
      event.kind === "definition"
        ? `Offer the changed tool ${event.tool} of ${event.server} to the model?`
        : event.caller === "app"
          ? `The app of ${event.server} asks to run ${event.tool}${readOnly}. Run it?`
          : `Run ${event.tool} of ${event.server}${readOnly}?`;
    box.setAttribute("aria-label", `Approval: ${what}`);
    box.append(element("p", "", what));
    if (event.details) box.append(element("p", "input", event.details));
    for (const word of event.answers) {
      const button = element("button", "", BUTTONS[word]);
      button.type = "button";
      button.addEventListener("click", () => {
        for (const b of box.querySelectorAll("button")) b.disabled = true;
        mcpHost.post("/api/approve", { ask: event.ask, answer: word }).catch((e) => {
          say(e.message);
          for (const b of box.querySelectorAll("button")) b.disabled = false;
        });
      });
      box.append(button);
    }
    const home = cards.get(event.call);
    (home ? home.node : conversation).append(box);
    asks.set(event.ask, box);
    box.querySelector("button")?.focus();
  }

  function closeAsk(ask, text) {
    const box = asks.get(ask);
    if (!box) return;
    asks.delete(ask);
    box.replaceChildren(element("p", "", text));
  }

  function note(text, className = "note") {
    conversation.append(element("p", className, text));
    answer = null;
  }

  const draw = {
    reset(event) {
      conversation.replaceChildren();
      cards = new Map();
      asks = new Map();
      answer = null;
      setRunning(false);
      if (event.dropped) note(`(${event.dropped} earlier events are no longer kept)`);
    },
    ready() {
      ready = true;
      showStatus();
    },
    line(event) {
      conversation.append(element("p", "user", event.text));
      answer = null;
      setRunning(true);
    },
    text(event) {
      if (!answer) {
        answer = element("p", "answer");
        conversation.append(answer);
      }
      answer.textContent += event.text;
    },
    call_requested: card,
    call_approved(event, c) {
      c.fields.state.textContent = "approved";
    },
    call_declined(event, c) {
      c.fields.state.textContent = "declined";
      c.fields.outcome.textContent = "declined: not run";
    },
    call_not_run(event, c) {
      c.fields.state.textContent = "not run";
      c.fields.outcome.textContent = event.reason;
      c.node.classList.add("error");
    },
    call_started(event, c) {
      c.fields.state.textContent = "running";
    },
    call_progress: (event, c) => progress(event, c.fields),
    call_finished(event, c) {
      c.fields.state.textContent = "finished";
      c.fields.duration.textContent = `${event.duration_ms} ms`;
      c.fields.outcome.textContent = event.is_error ? "error" : "success";
      if (event.is_error) c.node.classList.add("error");
    },
    approval_asked: approval,
    approval_answered: (event) => closeAsk(event.ask, ANSWERED[event.answer] ?? event.answer),
    approval_closed: (event) => closeAsk(event.ask, `No longer asked: ${event.reason ?? "the line ended"}`),
    line_done() {
      setRunning(false);
    },
    line_stopped(event) {
      note(event.stop_reason === "timed_out" ? "Timed out (--line-timeout)" : "Stopped");
      setRunning(false);
    },
    line_failed(event) {
      note(`The line failed: ${event.error}`, "failed");
      setRunning(false);
    },
  };

  function dispatch(event) {
    const drawer = draw[event.event];
    if (drawer) {
      if (event.event.startsWith("call_") && event.event !== "call_requested") {
        const c = cards.get(event.id);
        if (c) drawer(event, c);
      } else {
        drawer(event);
      }
    }
    for (const fn of listeners.get(event.event) ?? []) fn(event);
    for (const fn of listeners.get("*") ?? []) fn(event);
  }

  function connect() {
    const source = new EventSource("/api/events");
    source.onopen = () => say("");
    source.onmessage = (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      dispatch(event);
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        say("The connection to mcp-host was lost: reload the page once it runs again.");
      }
    };
  }

  async function submit() {
    const text = message.value;
    if (!text.trim()) return;
    try {
      await mcpHost.post("/api/send", { text });
      message.value = "";
      say("");
    } catch (e) {
      say(`Not sent: ${e.message}`);
    }
  }

  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    submit();
  });
  message.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  stop.addEventListener("click", () => {
    mcpHost.post("/api/stop").catch((e) => say(e.message));
  });

  connect();
  message.focus();
})();
