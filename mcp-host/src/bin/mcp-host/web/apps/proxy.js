// The sandbox proxy of an MCP App (served on the apps' own origin): it
// frames the app's document (/view/ID, sent with the app's CSP) in a frame
// sandboxed to an opaque origin, and relays JSON-RPC between the app and
// the page that framed this one, as the extension's "Sandbox proxy" says:
// `ui/notifications/sandbox-proxy-ready` up, `sandbox-resource-ready`
// down (the frame's sandbox and permissions), everything else relayed
// unchanged, never a message of its own.
"use strict";
(() => {
  const page = document.querySelector('meta[name="mcp-host-page"]').content;
  const id = location.pathname.split("/").pop();
  let frame = null;

  if (window.parent === window) return;

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source === window.parent && event.origin === page) {
      if (data && data.method === "ui/notifications/sandbox-resource-ready") {
        if (frame) return;
        const params = data.params || {};
        frame = document.createElement("iframe");
        // Never `allow-same-origin`: the app gets an opaque origin, not
        // this proxy's.
        frame.setAttribute("sandbox", "allow-scripts allow-forms");
        if (params.allow) frame.setAttribute("allow", params.allow);
        frame.setAttribute("title", "App");
        frame.src = `/view/${encodeURIComponent(id)}`;
        document.body.append(frame);
        return;
      }
      if (frame && frame.contentWindow) frame.contentWindow.postMessage(data, "*");
      return;
    }
    if (frame && event.source === frame.contentWindow) {
      const method = data && typeof data.method === "string" ? data.method : "";
      if (method.startsWith("ui/notifications/sandbox-")) return;
      window.parent.postMessage(data, page);
    }
  });

  window.parent.postMessage(
    { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} },
    page,
  );
})();
