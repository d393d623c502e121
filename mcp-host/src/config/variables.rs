//! `${VAR}` in an entry: expanded from the environment, and the VS Code
//! variables this host does not expand, found.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Whether a string value anywhere in the entry still holds `${…}` (in a
/// stdio entry's `env`, after [`expand`]).
pub(super) fn mentions_variable(entry: &Map<String, Value>, transport: &Endpoint) -> bool {
    fn walk(value: &Value) -> bool {
        match value {
            Value::String(text) => text.contains("${"),
            Value::Array(items) => items.iter().any(walk),
            Value::Object(map) => map.values().any(walk),
            _ => false,
        }
    }
    let env_left = match transport {
        Endpoint::Stdio { env, .. } => env.values().any(|v| v.contains("${")),
        Endpoint::Http { .. } => false,
    };
    env_left
        || entry.iter().any(|(key, value)| {
            !(key == "env" && matches!(transport, Endpoint::Stdio { .. })) && walk(value)
        })
}

/// VS Code's predefined variables: kept as written (and warned about), not
/// looked up in the environment.
pub(super) const VS_CODE_VARIABLES: &[&str] = &[
    "cwd",
    "defaultBuildTask",
    "execPath",
    "file",
    "fileBasename",
    "fileBasenameNoExtension",
    "fileDirname",
    "fileDirnameBasename",
    "fileExtname",
    "fileWorkspaceFolder",
    "lineNumber",
    "pathSeparator",
    "relativeFile",
    "relativeFileDirname",
    "selectedText",
    "userHome",
    "workspaceFolder",
    "workspaceFolderBasename",
];

/// `text` with `${VAR}`, `${env:VAR}` and `${VAR:-default}` replaced from
/// `lookup`; other `${…}` forms (VS Code's `${input:…}`,
/// `${workspaceFolder}`) are kept as written. The error is the name of a
/// variable that is unset and has no default.
pub(super) fn expand(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let name = name.strip_prefix("env:").unwrap_or(name);
        let is_name = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && (!VS_CODE_VARIABLES.contains(&name) || inner.starts_with("env:"));
        if !is_name {
            out.push_str(&rest[start..start + 2 + end + 1]);
        } else {
            match (
                lookup(name).filter(|v| !v.is_empty() || default.is_none()),
                default,
            ) {
                (Some(value), _) => out.push_str(&value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(name.to_owned()),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
