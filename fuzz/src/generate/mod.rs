//! Input of the `decode` target: one arbitrary line after a fixed prelude,
//! or a structure-aware session built from a grammar of MCP messages.
//!
//! Lines are assembled as text (not through `serde_json::Value`), so raw
//! forms survive: duplicate keys, escaped ids (`"\u0061"`), integers too big
//! for `i64`, `"jsonrpc"` of the wrong type.

mod text;

use arbitrary::{Result, Unstructured};
use text::{Obj, number, pick, string, value};

const LEGACY_PRELUDE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":"level","method":"logging/setLevel","params":{"level":"debug"}}"#,
    "\n",
);

const VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "1999-01-01",
    "",
];
const TOOLS: &[&str] = &[
    "add",
    "split_words",
    "typed",
    "progress",
    "ask",
    "boom",
    "toggle",
    "nope",
    "added_1",
];
const METHODS: &[&str] = &[
    "initialize",
    "notifications/initialized",
    "ping",
    "tools/list",
    "tools/call",
    "tools/call",
    "tools/call",
    "server/discover",
    "subscriptions/listen",
    "logging/setLevel",
    "notifications/cancelled",
    "notifications/cancelled",
    "elicitation/create",
    "resources/list",
    "",
];
const LEVELS: &[&str] = &[
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
    "loud",
    "DEBUG",
];
const STRINGS: &[&str] = &[
    "",
    "a",
    "b",
    "mcp-server-1",
    "mcp-server-2",
    "\\u0061",
    "\\ud83d\\ude00",
    "\\ud800",
    "é",
    "\\n\\r\\t",
    "\\\"quoted\\\"",
    "\\u0000",
    "has space",
    "x.y",
];

/// The bytes of a session for `data`.
pub fn decode_input(data: &[u8]) -> Vec<u8> {
    let Some((&mode, rest)) = data.split_first() else {
        return Vec::new();
    };
    let one_line = |prelude: &str, terminate: bool| {
        let mut out = prelude.as_bytes().to_vec();
        out.extend(rest.iter().map(|&b| if b == b'\n' { b' ' } else { b }));
        if terminate {
            out.push(b'\n');
        }
        out
    };
    match mode % 4 {
        0 => one_line(LEGACY_PRELUDE, true),
        1 => one_line("", true),
        2 => one_line(LEGACY_PRELUDE, false),
        _ => {
            let mut u = Unstructured::new(rest);
            let mut out = String::new();
            let _ = session(&mut u, &mut out);
            out.into_bytes()
        }
    }
}

fn session(u: &mut Unstructured<'_>, out: &mut String) -> Result<()> {
    if u.ratio(1, 2)? {
        out.push_str(LEGACY_PRELUDE);
    }
    let count = u.int_in_range(1..=12)?;
    for _ in 0..count {
        message(u, out)?;
        out.push('\n');
        for _ in 0..u.int_in_range(0..=2)? {
            out.push('\n'); // a blank line: virtual time passes
        }
    }
    Ok(())
}

fn id(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=9)? {
        0..=3 => u.int_in_range(1u8..=6)?.to_string(),
        4 => format!("\"{}\"", pick(u, &["a", "b", "\\u0061", "mcp-server-1"])?),
        5 => pick(
            u,
            &[
                "-1",
                "0",
                "-0",
                "100000000000000000000000",
                "100000000000000000000001",
                "18446744073709551616",
            ],
        )?
        .to_owned(),
        6 => pick(u, &["null", "1.5", "1e3", "true", "[]", "{}"])?.to_owned(),
        _ => value(u, 1)?,
    })
}

fn meta(u: &mut Unstructured<'_>) -> Result<String> {
    let mut m = Obj::new();
    m.maybe(u, "io.modelcontextprotocol/protocolVersion", |u| {
        Ok(if u.ratio(7, 8)? {
            format!("\"{}\"", pick(u, VERSIONS)?)
        } else {
            value(u, 0)?
        })
    })?;
    m.maybe(u, "io.modelcontextprotocol/clientCapabilities", |u| {
        Ok(pick(
            u,
            &[
                "{}",
                "{\"elicitation\":{}}",
                "{\"elicitation\":{\"form\":{}}}",
                "[]",
                "null",
            ],
        )?
        .to_owned())
    })?;
    if u.ratio(1, 3)? {
        m.field(
            "io.modelcontextprotocol/logLevel",
            format!("\"{}\"", pick(u, LEVELS)?),
        );
    }
    if u.ratio(1, 3)? {
        m.field(
            "progressToken",
            pick(u, &["1", "\"t\"", "1.5", "null", "{}"])?.to_owned(),
        );
    }
    if u.ratio(1, 4)? {
        m.field(
            "io.modelcontextprotocol/clientInfo",
            "{\"name\":\"fuzz\",\"version\":\"0\"}".to_owned(),
        );
    }
    m.finish(u)
}

fn arguments(u: &mut Unstructured<'_>, tool: &str) -> Result<String> {
    if u.ratio(1, 8)? {
        return value(u, 2);
    }
    let mut a = Obj::new();
    match tool {
        "add" => {
            a.maybe(u, "a", number)?;
            a.maybe(u, "b", |u| {
                Ok(if u.ratio(1, 4)? {
                    "null".to_owned()
                } else {
                    number(u)?
                })
            })?;
            a.maybe(u, "unit", |u| {
                Ok(format!("\"{}\"", pick(u, &["metre", "foot", "mile"])?))
            })?;
        }
        "split_words" => a.maybe(u, "text", string)?,
        "typed" => {
            a.maybe(u, "name", string)?;
            a.maybe(u, "count", |u| {
                Ok(if u.ratio(1, 4)? {
                    "null".to_owned()
                } else {
                    number(u)?
                })
            })?;
            a.maybe(u, "nested", |u| nested(u, 4))?;
            a.maybe(u, "mode", |u| {
                let mut m = Obj::new();
                m.maybe(u, "kind", |u| {
                    Ok(format!(
                        "\"{}\"",
                        pick(u, &["fast", "slow", "blocks", "other"])?
                    ))
                })?;
                m.maybe(u, "ms", |u| {
                    Ok(pick(u, &["0", "5", "100", "4000", "-1"])?.to_owned())
                })?;
                m.maybe(u, "times", |u| Ok(u.int_in_range(0u16..=300)?.to_string()))?;
                m.finish(u)
            })?;
            a.maybe(u, "tags", |u| value(u, 1))?;
            a.maybe(u, "extra", |u| value(u, 1))?;
        }
        "progress" => {
            a.maybe(u, "steps", |u| Ok(u.int_in_range(0u16..=300)?.to_string()))?;
            a.maybe(u, "ms", |u| {
                Ok(pick(u, &["0", "10", "100", "2000"])?.to_owned())
            })?;
            a.maybe(u, "total", number)?;
        }
        "ask" => a.maybe(u, "twice", |u| {
            Ok(pick(u, &["true", "false", "1"])?.to_owned())
        })?,
        "boom" => a.maybe(u, "how", |u| Ok(u.int_in_range(0u8..=7)?.to_string()))?,
        "toggle" => {
            a.maybe(u, "op", |u| {
                Ok(format!(
                    "\"{}\"",
                    pick(u, &["disable", "enable", "remove", "add", "x"])?
                ))
            })?;
            a.maybe(u, "name", |u| Ok(format!("\"{}\"", pick(u, TOOLS)?)))?;
        }
        _ => {}
    }
    a.finish(u)
}

fn nested(u: &mut Unstructured<'_>, depth: u32) -> Result<String> {
    let mut n = Obj::new();
    n.maybe(u, "depth", |u| {
        Ok(pick(u, &["0", "255", "256", "-1", "\"1\""])?.to_owned())
    })?;
    n.maybe(u, "label", string)?;
    if depth > 0 {
        n.maybe(u, "child", |u| nested(u, depth - 1))?;
    }
    n.finish(u)
}

fn params(u: &mut Unstructured<'_>, method: &str) -> Result<Option<String>> {
    match u.int_in_range(0..=15)? {
        0 => return Ok(None),
        1 => return Ok(Some(value(u, 2)?)),
        _ => {}
    }
    let mut p = Obj::new();
    match method {
        "initialize" => {
            p.maybe(u, "protocolVersion", |u| {
                Ok(format!("\"{}\"", pick(u, VERSIONS)?))
            })?;
            p.maybe(u, "capabilities", |u| {
                Ok(pick(u, &["{}", "{\"elicitation\":{}}", "[]", "null"])?.to_owned())
            })?;
            p.maybe(u, "clientInfo", |u| value(u, 1))?;
        }
        "tools/call" => {
            let tool = pick(u, TOOLS)?;
            p.field("name", format!("\"{tool}\""));
            p.maybe(u, "arguments", |u| arguments(u, tool))?;
            if u.ratio(1, 4)? {
                p.field(
                    "inputResponses",
                    format!(
                        "{{\"{}\":{{\"action\":\"{}\",\"content\":{{\"name\":{}}}}}}}",
                        pick(u, &["name", "again", "other"])?,
                        pick(u, &["accept", "decline", "cancel", "maybe"])?,
                        string(u)?
                    ),
                );
            }
            if u.ratio(1, 6)? {
                p.field("requestState", string(u)?);
            }
        }
        "tools/list" => p.maybe(u, "cursor", |u| {
            Ok(if u.ratio(1, 2)? {
                format!("\"{}\"", pick(u, &["", "0", "ffffffffffffffff1", "zz"])?)
            } else {
                value(u, 0)?
            })
        })?,
        "logging/setLevel" => p.maybe(u, "level", |u| Ok(format!("\"{}\"", pick(u, LEVELS)?)))?,
        "subscriptions/listen" => p.maybe(u, "notifications", |u| {
            Ok(pick(
                u,
                &[
                    "{\"toolsListChanged\":true}",
                    "{\"toolsListChanged\":false}",
                    "{}",
                    "[]",
                ],
            )?
            .to_owned())
        })?,
        "notifications/cancelled" => {
            p.maybe(u, "requestId", id)?;
            p.maybe(u, "reason", string)?;
        }
        _ => {}
    }
    if u.ratio(1, 2)? {
        p.field("_meta", meta(u)?);
    }
    Ok(Some(p.finish(u)?))
}

fn message(u: &mut Unstructured<'_>, out: &mut String) -> Result<()> {
    let mut m = Obj::new();
    match u.int_in_range(0..=19)? {
        0 => m.field(
            "jsonrpc",
            pick(u, &["\"1.0\"", "2.0", "null", "\"2.0 \""])?.to_owned(),
        ),
        1 => {}
        _ => m.field("jsonrpc", "\"2.0\"".to_owned()),
    }
    if u.ratio(1, 10)? {
        // A reply to a request of ours (legacy elicitation).
        m.field("id", format!("\"mcp-server-{}\"", u.int_in_range(1u8..=3)?));
        if u.ratio(3, 4)? {
            let action = pick(u, &["accept", "decline", "cancel", "other"])?;
            m.field(
                "result",
                format!(
                    "{{\"action\":\"{action}\",\"content\":{{\"name\":{}}}}}",
                    string(u)?
                ),
            );
        } else {
            m.field("error", "{\"code\":-1,\"message\":\"no\"}".to_owned());
        }
        out.push_str(&m.finish(u)?);
        return Ok(());
    }
    let method = pick(u, METHODS)?;
    let is_notification = method.starts_with("notifications/");
    if u.ratio(if is_notification { 1 } else { 9 }, 10)? {
        m.field("id", id(u)?);
    }
    m.field("method", format!("\"{method}\""));
    if let Some(p) = params(u, method)? {
        m.field("params", p);
    }
    out.push_str(&m.finish(u)?);
    Ok(())
}
