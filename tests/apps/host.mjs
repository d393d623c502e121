// A host's side of the MCP Apps bridge, for tests: runs the <script> of an
// app's HTML (argv[2]) against a minimal DOM, prints each message the app
// posts to its parent as a JSON line ({"sent": ...}), and reads commands
// from stdin, one JSON line each:
//   {"deliver": message}  post `message` to the app, as the host would
//   {"click": "id"}       click the element `id`
//   {"dom": true}         print {"dom": {id: {text, disabled, bars}}}
// After each command, once the app is idle, it prints {"idle": n}.
import { readFileSync } from 'node:fs';
import readline from 'node:readline';
import vm from 'node:vm';

const out = (value) => process.stdout.write(JSON.stringify(value) + '\n');
const html = readFileSync(process.argv[2], 'utf8');
const script = html.slice(html.indexOf('<script>') + '<script>'.length, html.lastIndexOf('</script>'));

const elements = new Map();
function element(id) {
  return {
    id, textContent: '', className: '', title: '', disabled: false, style: {}, children: [], listeners: {},
    replaceChildren(...children) { this.children = children; },
    appendChild(child) { this.children.push(child); },
    addEventListener(type, listener) { this.listeners[type] = listener; },
  };
}
const document = {
  getElementById(id) {
    if (!elements.has(id)) elements.set(id, element(id));
    return elements.get(id);
  },
  createElement: (tag) => element(tag),
  body: element('body'),
  documentElement: { scrollWidth: 400, scrollHeight: 240 },
};
const parent = { postMessage: (data, origin) => out({ sent: data, origin }) };
const listeners = [];
const window = {
  parent,
  addEventListener(type, listener) {
    if (type === 'message') listeners.push(listener);
  },
};
class ResizeObserver {
  constructor(callback) { this.callback = callback; }
  observe() { this.callback(); }
}
vm.runInContext(script, vm.createContext({ window, document, ResizeObserver }));

let commands = 0;
const idle = () => setImmediate(() => out({ idle: commands++ }));
idle();
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line);
  if (command.deliver) {
    for (const listener of listeners) listener({ source: parent, data: command.deliver });
  } else if (command.click) {
    document.getElementById(command.click).listeners.click();
  } else if (command.dom) {
    const dom = {};
    for (const [id, e] of elements) {
      dom[id] = { text: e.textContent, disabled: e.disabled, bars: e.children.map((c) => c.title) };
    }
    out({ dom });
  }
  idle();
});
