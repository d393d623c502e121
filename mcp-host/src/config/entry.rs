//! One server entry of an `mcp.json` read into a [`ServerConfig`]: its
//! transport, filter, OAuth settings and lifecycle, each field checked.

#[allow(clippy::wildcard_imports)]
use super::*;

/// "an array", "a string", … for messages.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn server(
    name: &str,
    entry: &Value,
    lookup: &dyn Fn(&str) -> Option<String>,
    warnings: &mut Vec<String>,
) -> Result<Entry, ConfigError> {
    let Value::Object(entry) = entry else {
        return Err(ConfigError::EntryNotObject {
            server: name.to_owned(),
            found: kind(entry),
        });
    };
    let fields = Fields {
        server: name,
        entry,
    };
    match entry.get("disabled") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => return Ok(Entry::Disabled),
        Some(_) => return Err(fields.invalid("disabled", "true or false")),
    }
    let filter = fields.tool_filter()?;
    let ty = fields.string("type")?;
    let has_command = entry.contains_key("command");
    let has_url = entry.contains_key("url");
    let stdio = match ty {
        Some("stdio") => {
            if !has_command {
                return Err(ConfigError::MissingField {
                    server: name.to_owned(),
                    ty: "stdio",
                    field: "command",
                });
            }
            true
        }
        Some(t @ ("http" | "sse")) => {
            if !has_url {
                return Err(ConfigError::MissingField {
                    server: name.to_owned(),
                    ty: if t == "http" { "http" } else { "sse" },
                    field: "url",
                });
            }
            false
        }
        Some(other) => {
            return Err(ConfigError::UnknownType {
                server: name.to_owned(),
                ty: other.to_owned(),
            });
        }
        None => match (has_command, has_url) {
            (true, false) => true,
            (false, true) => false,
            (true, true) => {
                return Err(ConfigError::CommandAndUrl {
                    server: name.to_owned(),
                });
            }
            (false, false) => {
                return Err(ConfigError::NoCommandOrUrl {
                    server: name.to_owned(),
                });
            }
        },
    };
    if has_command && has_url {
        let ignored = if stdio { "url" } else { "command" };
        warnings.push(format!(
            "server `{name}`: `{ignored}` is ignored (`type` is `{}`)",
            ty.unwrap_or_default()
        ));
    }
    let transport = if stdio {
        let command = fields.string("command")?.unwrap_or_default();
        if command.is_empty() {
            return Err(fields.invalid("command", "a non-empty string"));
        }
        if entry.contains_key("envFile") {
            warnings.push(format!(
                "server `{name}`: `envFile` is not supported and is ignored; put the variables in `env`"
            ));
        }
        let mut env = fields.string_map("env")?;
        for (key, value) in env.iter_mut() {
            *value = expand(value, lookup).map_err(|variable| ConfigError::UnsetVariable {
                server: name.to_owned(),
                field: format!("env.{key}"),
                variable,
            })?;
        }
        let inherit_env = match entry.get("inheritEnv") {
            None => false,
            Some(Value::Bool(inherit)) => *inherit,
            Some(_) => return Err(fields.invalid("inheritEnv", "true or false")),
        };
        Endpoint::Stdio {
            command: command.to_owned(),
            args: fields.strings("args")?,
            env,
            cwd: fields.string("cwd")?.map(str::to_owned),
            inherit_env,
        }
    } else {
        let url = fields.string("url")?.unwrap_or_default();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(fields.invalid("url", "an http:// or https:// URL"));
        }
        if entry.contains_key("inheritEnv") {
            warnings.push(format!(
                "server `{name}`: `inheritEnv` is ignored (the host does not start an HTTP server)"
            ));
        }
        Endpoint::Http {
            url: url.to_owned(),
            headers: fields.string_map("headers")?,
            declared_sse: ty == Some("sse"),
        }
    };
    if mentions_variable(entry, &transport) {
        warnings.push(format!(
            "server `{name}`: `${{…}}` variables other than `${{VAR}}` and `${{env:VAR}}` in `env` values are not substituted; values are used as written"
        ));
    }
    let trusted = match entry.get("trusted") {
        None => stdio,
        Some(Value::Bool(trusted)) => *trusted,
        Some(_) => return Err(fields.invalid("trusted", "true or false")),
    };
    Ok(Entry::Enabled(
        ServerConfig {
            name: name.to_owned(),
            transport,
            trusted,
        },
        filter,
    ))
}

/// The entry's `"oauth"` object, if it has one.
pub(super) fn oauth_settings(
    name: &str,
    entry: &Value,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<OAuthSettings>, ConfigError> {
    let Some(oauth) = entry.get("oauth") else {
        return Ok(None);
    };
    let Value::Object(oauth) = oauth else {
        return Err(ConfigError::InvalidField {
            server: name.to_owned(),
            field: "oauth".into(),
            expected: "an object",
        });
    };
    let fields = Fields {
        server: name,
        entry: oauth,
    };
    let client_secret = match fields.string("clientSecret")? {
        Some(secret) => {
            Some(
                expand(secret, lookup).map_err(|variable| ConfigError::UnsetVariable {
                    server: name.to_owned(),
                    field: "oauth.clientSecret".into(),
                    variable,
                })?,
            )
        }
        None => None,
    };
    let redirect_port = match oauth.get("redirectPort") {
        None => None,
        Some(port) => Some(
            port.as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p > 0)
                .ok_or_else(|| {
                    fields.invalid("oauth.redirectPort", "a port number (1 to 65535)")
                })?,
        ),
    };
    Ok(Some(OAuthSettings {
        client_id: fields.string("clientId")?.map(str::to_owned),
        client_secret,
        scopes: fields.strings("scopes")?,
        redirect_port,
    }))
}

/// Typed access to one entry's fields, with errors that name the server.
pub(super) struct Fields<'a> {
    server: &'a str,
    entry: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn invalid(&self, field: &str, expected: &'static str) -> ConfigError {
        ConfigError::InvalidField {
            server: self.server.to_owned(),
            field: field.to_owned(),
            expected,
        }
    }

    fn string(&self, field: &str) -> Result<Option<&'a str>, ConfigError> {
        match self.entry.get(field) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(self.invalid(field, "a string")),
        }
    }

    fn strings(&self, field: &str) -> Result<Vec<String>, ConfigError> {
        match self.entry.get(field) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| self.invalid(field, "an array of strings")),
            Some(_) => Err(self.invalid(field, "an array of strings")),
        }
    }

    /// `tools`: `{"allow": [names], "deny": [names]}`, each optional, each
    /// entry a non-empty string.
    fn tool_filter(&self) -> Result<ToolFilter, ConfigError> {
        let tools = match self.entry.get("tools") {
            None => return Ok(ToolFilter::default()),
            Some(Value::Object(tools)) => tools,
            Some(_) => {
                return Err(self.invalid(
                    "tools",
                    "an object with `allow` and/or `deny` (arrays of tool names)",
                ));
            }
        };
        if let Some(key) = tools.keys().find(|k| *k != "allow" && *k != "deny") {
            return Err(ConfigError::UnknownFilter {
                server: self.server.to_owned(),
                key: key.clone(),
            });
        }
        let entries = |key: &str| -> Result<Option<Vec<String>>, ConfigError> {
            let field = format!("tools.{key}");
            let expected = "an array of tool names (non-empty strings, `*` for any characters)";
            match tools.get(key) {
                None => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| match item {
                        Value::String(name) if !name.is_empty() => Ok(name.clone()),
                        _ => Err(self.invalid(&field, expected)),
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(_) => Err(self.invalid(&field, expected)),
            }
        };
        Ok(ToolFilter::new(
            entries("allow")?,
            entries("deny")?.unwrap_or_default(),
        ))
    }

    fn string_map(&self, field: &str) -> Result<BTreeMap<String, String>, ConfigError> {
        match self.entry.get(field) {
            None => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(key, value)| match value {
                    Value::String(value) => Ok((key.clone(), value.clone())),
                    _ => Err(self.invalid(&format!("{field}.{key}"), "a string")),
                })
                .collect(),
            Some(_) => Err(self.invalid(field, "an object of strings")),
        }
    }
}
