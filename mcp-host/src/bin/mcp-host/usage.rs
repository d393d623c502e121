//! The usage text of `--help` and of a usage error: every flag, and the
//! APIs with their variables and default models from the table
//! ([`APIS`]).

use crate::apis::{APIS, default_api};

/// The usage text, printed on `--help` and after a usage error; the APIs,
/// their variables and their default models come from [`APIS`].
pub(crate) fn usage() -> String {
    let names: Vec<&str> = APIS.iter().map(|api| api.name).collect();
    let variables: Vec<String> = APIS
        .iter()
        .map(|api| format!("{}, {}", api.key_variable, api.base_url_variable))
        .collect();
    let default = default_api();
    let other_models: Vec<String> = APIS
        .iter()
        .filter(|api| *api != default)
        .map(|api| format!("{}: {}", api.name, api.default_model))
        .collect();
    format!(
        "\
usage: mcp-host --config PATH [--provider {names}] [--model NAME] [--system TEXT]
                [--max-turns N] [--max-tokens N] [--tool-timeout SECONDS]
                [--line-timeout SECONDS] [--api-timeout SECONDS] [--approve all|read-only|ask] [--ask-read-only]
                [--max-result-bytes N] [--max-tool-tokens N]
                [--close-grace SECONDS] [--pins PATH] [--no-cache]
                [--json | --stream | --events]
                [--history all|last:N|tokens:N] [--on-overflow trim|summarize]
                [--start-timeout SECONDS] [--restarts N] [--quiet] [--log-level LEVEL]
                [--max-tools N] [--max-list-pages N] [--max-list-bytes N] [--max-list-memory N]
       mcp-host login SERVER --config PATH [--device] [--browser]
       mcp-host logout SERVER --config PATH
       mcp-host approvals list|revoke SERVER[/TOOL] [--pins PATH]
       mcp-host web --config PATH [the flags above] [--port N] [--bind ADDRESS]

Reads one user message per line from stdin and answers each with the model,
calling the tools of the MCP servers in PATH (an mcp.json). Keys and endpoints:
{variables}.
Defaults: --provider {default}, --model {model} ({others}),
--max-tokens 1024, --max-turns 10, --tool-timeout 60, --line-timeout 600,
--approve ask,
--max-result-bytes 100000 (text of one tool result sent to the model; of one
response's results together, four times that).
--line-timeout: the deadline of one line, its model requests and tool calls
included: past it the line is cut short as Ctrl-C cuts it (the calls under way
are cancelled), stderr says so, and with --json its line has stop_reason
\"timed_out\" and an error.
--api-timeout: the deadline of one model request, its retries included;
default: the time to write --max-tokens at 20 tokens/s, at least 60 s
(1024 -> 60 s, 8192 -> 410 s). A response whose body stops for 20 s is
retried within it.
--history: what of the conversation each request resends (default all).
  all: every message (within the API's 32 MB request limit);
  last:N: the first user message and the last N lines with their tool calls;
  tokens:N: at most N input tokens (system prompt and tools included,
  estimated from the last response's count plus 4 bytes a token for what
  came since); once over, the oldest lines are dropped down to 3/4 of N.
  The model forgets what is dropped. Lines are dropped whole: a tool call
  never loses its result.
--on-overflow: when a request does not fit the model's context window
  (\"prompt is too long\", context_length_exceeded), about half of the
  lines before the current one are dropped (trim, the default; the first
  user message kept) or replaced by a summary the model writes in one
  extra request (summarize), and the request is sent again, once; stderr
  and the --json line (\"trimmed\") say so.
A failed model request keeps the line's tool calls that ran, with their
results, in the history; its error line says how many (--json:
\"tool_calls_kept\").
--max-tool-tokens: a budget for the tool definitions of each request, in
tokens estimated as their JSON bytes / 4 (default: none). Past it, or past the
API's limit on tools per request (anthropic 10000, openai 128), tools are
offered on demand: anthropic's tool search with deferred loading, or a
`search_tools` tool the host answers from the same tools (openai).
In mcp.json, an entry's \"tools\": {{\"allow\": [...], \"deny\": [...]}} says which
of its tools are offered (MCP tool names, `*` for any characters; deny wins),
and \"disabled\": true leaves the server out.

--approve: all runs every call the model asks for; read-only runs what a
trusted server (mcp.json \"trusted\") marks readOnlyHint and declines the
rest; ask shows each call on the terminal (server, tool, a short form of its
input) and reads a line: y runs it once, t runs it and every later call of
that tool of that server, s runs it and every later call of any tool of that
server, n (or an empty line) declines it (the model is told the user
declined); any other line is not an answer and the question is asked again.
t and s are kept across runs, each for the definitions it approved, in
approvals.json beside the --pins file, else in $XDG_CONFIG_HOME/mcp-host
(else ~/.config/mcp-host); `mcp-host approvals list` shows them and
`mcp-host approvals revoke SERVER[/TOOL]` removes them (SERVER/* the one of
the whole server). Read-only tools of trusted servers run without
asking unless --ask-read-only. With no terminal, the calls that would be asked
are not run and the model is told no one could be asked.

Tool lists are live: a server that says its list changed (or whose ttlMs
passed) is listed again before the next model request; tools keep their names
and places. Each tool's definition is pinned by digest when first offered; a
changed definition, or a new tool of a server already pinned, is not offered
until approved: --approve ask shows the change on the terminal and asks; the
other modes leave it out with a warning. --pins PATH keeps the approved
definitions in a JSON file across runs (written atomically, owner-only), so a
change between runs is shown as one within a run; without it they last for
the run.

--no-cache: no prompt-caching breakpoints in Anthropic requests (by default
each carries `cache_control` on the last tool, the system prompt and the ends
of the previous and this request; cache reads cost 0.1x the input price,
writes 1.25x). OpenAI caches long prompts by itself whatever the flag says.
With --json, `usage` has `cache_creation_input_tokens` and
`cache_read_input_tokens` when the API reports them; `input_tokens` counts
the whole prompt, those included.

Commands, typed instead of a line (`//text` sends `/text` to the model):
/tools (every offered tool, by server), /servers (each server's state,
protocol version and counts), /resources (resources and templates, by
server), /prompt NAME key=value ... (a server's prompt as the next turn;
values quoted as in a shell; SERVER:NAME where two servers share NAME),
/skills (each server's skills), /skill NAME (a skill's SKILL.md, checked,
as the next turn), /help. @SERVER:URI in a line attaches that resource's contents (`@@` sends
`@`). A mistake is one stderr line; the conversation goes on. Listings go
to stdout (stderr with --json and --events). At a terminal (stdin and
stdout both) a line editor reads the lines: history, and Tab completes the
commands, prompt names, their arguments and values (the server's
completion/complete) and @SERVER: URIs, waiting at most 0.5 s for a
server; Ctrl-D ends the input, Ctrl-C at the prompt ends the program.

Ctrl-C (SIGINT) while a line is answered interrupts that line: the model
request and the tool calls under way are cancelled (their servers get
notifications/cancelled), the calls that ran stay in the history (a call cut
short with a result saying so), and the next line is read; with --json its
line has stop_reason \"interrupted\". A second Ctrl-C in the same line, or one
between lines, ends the program (status 130).

At the end of stdin (or on SIGINT/SIGTERM) each stdio server's stdin is
closed and it gets --close-grace seconds (default 2) to exit, then SIGTERM
and as long again, then SIGKILL, with the processes it started.

--start-timeout: how long each server may take to start and list its tools
(default 30). --restarts: how many times a server that dies is started again
(default 3): the first at once on its next call, each later one no sooner
than 1 s after the last start, then 2 s, 4 s, ... at most 30 s. An mcp.json
entry's \"startTimeout\" (seconds) and \"restarts\" override them for
that server.

The caps on one server's tool listing: --max-tools (default 1000) keeps its
first tools in list order and leaves the rest out with one warning;
--max-list-pages (default 100), --max-list-bytes (default 8388608) and
--max-list-memory (default 33554432, the parsed definitions' estimated memory)
leave out a server that passes one. An mcp.json entry's \"maxTools\",
\"maxListPages\", \"maxListBytes\" and \"maxListMemory\" override them for
that server.

Output: each answer's text on stdout, once it is whole, then a blank line
(at a terminal, stdin and stdout both, the default is --stream instead).
--json: one JSON object per answer instead. --stream: the text as the model
writes it (the responses are streamed), and each tool call on stderr as it
happens: `[server/tool {{input}}]` when the model asks for it (the input cut
to 80 bytes), `[tool: 12 ms]` or `[tool: failed after 12 ms]` when it
ends, `[tool: declined]` or `[tool: not run: why]`. --events: every event
of a line as one JSON object on stdout, tagged by \"event\" (text,
call_requested, call_approved, call_declined, call_not_run, call_started,
call_finished, usage), then the --json object tagged \"event\": \"answer\".
The three are exclusive; without any, nothing is streamed.

Logs go to stderr, by default at info (each tool call, each restart, each
server's stderr line; at a terminal, at warn). --quiet: warnings and errors only (--log-level warn);
--log-level off|error|warn|info|debug|trace. Without either, RUST_LOG is
read: level and target=level directives (RUST_LOG=mcpfn_host=debug,warn).

OAuth: an HTTP server without an `Authorization` header in PATH that answers
401 to its first request is authorized then: the stored token (refreshed when
need be), else a login whose URL is printed on stderr (the redirect comes
back to http://127.0.0.1:PORT/callback). The entry's \"oauth\": {{\"clientId\",
\"clientSecret\", \"scopes\", \"redirectPort\"}} sets the client; without
clientId the host registers itself. Registrations and tokens are kept, owner
only, in $XDG_CONFIG_HOME/mcp-host/oauth (else ~/.config/mcp-host/oauth).
login SERVER: log in now (--device: the device flow, printing a code and a
URL to open on any machine; --browser: also open the URL in a browser).
logout SERVER: forget the server's stored registrations and tokens.

web: the same agent (the same flags, history, pins, approvals and OAuth
store) with a page instead of stdin. Serves on 127.0.0.1 (--bind: another
address), --port N (default {port}; 0: any free port), and prints one line on
stdout: `mcp-host web: http://ADDRESS:PORT/?token=TOKEN` (64 hex digits).
The token is good once: opening the URL exchanges it for a session cookie
(HttpOnly, SameSite=Strict); every other request needs the cookie, a Host
that names this server (its address or localhost, with the port) and, when
it sends one, this page's Origin. The page: a Message box (Enter sends),
Send, Stop while a line runs (as Ctrl-C), the answer as it is written, each
tool call as a card (server, tool, input, progress, duration, outcome), and
with --approve ask the questions as buttons (Allow once, Always allow this
tool, Always allow this server, Deny: y, t, s and n). One line runs at a
time; every open page shows the same conversation, a reload included.",
        names = names.join("|"),
        variables = variables.join("; "),
        default = default.name,
        model = default.default_model,
        others = other_models.join(", "),
        port = crate::web_args::DEFAULT_PORT,
    )
}
