//! Which tool arguments a 2026-07-28 HTTP request mirrors into
//! `Mcp-Param-*` headers: the input schema's `x-mcp-header` annotations.
//!
//! The rules (all MUST): the value is a non-empty RFC 9110 token without
//! control characters, unique in the schema case-insensitively, on a
//! property typed `integer`, `string` or `boolean` (one type, not a list),
//! reachable from the root through `properties` alone (never through
//! `items`, composition, conditionals or `$ref`), at most
//! [`MAX_HEADER_PARAMS`] of them. One annotation anywhere else makes the
//! whole tool invalid: a client drops it ([`HeaderParams::valid`]). A
//! server checks the arguments of its own tools that it can read as
//! mirrored ([`HeaderParams::params`]), whatever a client would make of
//! the schema.

use super::PARAM_PREFIX;
use super::value::encode_value;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// The schema keyword that mirrors a property into a header.
pub const KEYWORD: &str = "x-mcp-header";

/// The most header parameters one tool may declare: each becomes a request
/// header, and HTTP servers refuse requests past about 100 headers (hyper's
/// default), so a tool past this could never be called.
pub const MAX_HEADER_PARAMS: usize = 64;

/// What a mirrored argument is, which says how its header compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderKind {
    /// A string, compared as text.
    String,
    /// An integer, compared numerically (`42` and `42.0` are equal).
    Integer,
    /// `true` or `false`.
    Boolean,
}

/// One mirrored argument: where it is in the arguments and its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderParam {
    /// Property names from the arguments' root.
    pub path: Vec<String>,
    /// The `x-mcp-header` value: the header's name after `Mcp-Param-`.
    pub name: String,
    /// The property's type.
    pub kind: HeaderKind,
}

impl HeaderParam {
    /// The header's name, `mcp-param-{name}`.
    pub fn header_name(&self) -> String {
        format!("{PARAM_PREFIX}{}", self.name)
    }

    /// The argument's value in `arguments`; `None` when it is absent or
    /// `null` (then no header is sent, and none may be).
    pub fn value<'a>(&self, arguments: &'a Map<String, Value>) -> Option<&'a Value> {
        let (first, rest) = self.path.split_first()?;
        let mut at = arguments.get(first)?;
        for key in rest {
            at = at.as_object()?.get(key)?;
        }
        (!at.is_null()).then_some(at)
    }

    /// The header a client sends for `arguments`, `(name, encoded value)`;
    /// `None` when the argument has no value, or one that no header
    /// carries (an object or array: the server reports the wrong type).
    pub fn header(&self, arguments: &Map<String, Value>) -> Option<(String, String)> {
        let text = match self.value(arguments)? {
            Value::String(s) => encode_value(s),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            _ => return None,
        };
        Some((self.header_name(), text))
    }
}

/// A tool's mirrored arguments, read from its input schema, and the first
/// rule the schema breaks, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderParams {
    params: Vec<HeaderParam>,
    broken: Option<String>,
}

impl HeaderParams {
    /// Reads the `x-mcp-header` annotations of `input_schema`.
    pub fn read(input_schema: &Map<String, Value>) -> HeaderParams {
        let mut read = HeaderParams::default();
        read.walk(input_schema, true, &mut Vec::new());
        let mut seen = HashSet::with_capacity(read.params.len());
        for param in &read.params {
            if !seen.insert(param.name.to_ascii_lowercase()) {
                let duplicate = format!(
                    "x-mcp-header `{}` is given twice (case-insensitively)",
                    param.name
                );
                read.broken.get_or_insert(duplicate);
                break;
            }
        }
        read
    }

    /// Every annotation that names a header on a reachable property of a
    /// readable type (a nullable `["integer", "null"]` reads as an
    /// integer), rules broken or not: what a server checks on its own
    /// tool's calls.
    pub fn params(&self) -> &[HeaderParam] {
        &self.params
    }

    /// The mirrored arguments, or the first rule the schema breaks (a
    /// sentence naming the annotation): what a client keeps, or why it
    /// drops the tool.
    pub fn valid(self) -> Result<Vec<HeaderParam>, String> {
        match self.broken {
            None => Ok(self.params),
            Some(why) => Err(why),
        }
    }

    fn breaks(&mut self, why: String) {
        self.broken.get_or_insert(why);
    }

    fn walk(&mut self, schema: &Map<String, Value>, reachable: bool, path: &mut Vec<String>) {
        if let Some(value) = schema.get(KEYWORD) {
            self.annotation(schema, value, reachable, path);
        }
        for (key, value) in schema {
            if key == "properties"
                && let Value::Object(properties) = value
            {
                for (property, sub) in properties {
                    if let Value::Object(sub) = sub {
                        path.push(property.clone());
                        self.walk(sub, reachable, path);
                        path.pop();
                    }
                }
                continue;
            }
            // Every other keyword's subschemas are not statically reachable.
            self.walk_value(value, path);
        }
    }

    fn walk_value(&mut self, value: &Value, path: &mut Vec<String>) {
        match value {
            Value::Object(map) => self.walk(map, false, path),
            Value::Array(items) => items.iter().for_each(|v| self.walk_value(v, path)),
            _ => {}
        }
    }

    /// The annotation `value` on `schema`, at `path`.
    fn annotation(
        &mut self,
        schema: &Map<String, Value>,
        value: &Value,
        reachable: bool,
        path: &[String],
    ) {
        let at = if path.is_empty() {
            "the schema's root".to_owned()
        } else {
            format!("property `{}`", path.join("."))
        };
        if !reachable || path.is_empty() {
            return self.breaks(format!(
                "x-mcp-header on {at} is not reachable from the root through `properties` alone"
            ));
        }
        let Some(name) = value.as_str() else {
            return self.breaks(format!("x-mcp-header on {at} is not a string"));
        };
        if let Err(why) = check_token(name) {
            self.breaks(format!("x-mcp-header `{name}` on {at} {why}"));
        }
        let kind = match schema.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => {
                self.breaks(format!(
                    "x-mcp-header `{name}` on {at} needs one `type` of string, integer or boolean"
                ));
                // A nullable union (`["integer", "null"]`) still reads as
                // its one other type.
                match types
                    .iter()
                    .filter_map(Value::as_str)
                    .find(|t| *t != "null")
                {
                    Some(t) => t,
                    None => return,
                }
            }
            _ => {
                return self.breaks(format!(
                    "x-mcp-header `{name}` on {at} needs one `type` of string, integer or boolean"
                ));
            }
        };
        let kind = match kind {
            "string" => HeaderKind::String,
            "integer" => HeaderKind::Integer,
            "boolean" => HeaderKind::Boolean,
            other => {
                return self.breaks(format!(
                    "x-mcp-header `{name}` on {at} is on a property of type `{other}` (only string, integer or boolean)"
                ));
            }
        };
        if self.params.len() == MAX_HEADER_PARAMS {
            self.breaks(format!(
                "more than {MAX_HEADER_PARAMS} x-mcp-header parameters (one request header each)"
            ));
        }
        self.params.push(HeaderParam {
            path: path.to_vec(),
            name: name.to_owned(),
            kind,
        });
    }
}

/// An RFC 9110 token: `1*tchar` (which excludes control characters).
fn check_token(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.bytes().any(|b| b.is_ascii_control()) {
        return Err("holds control characters");
    }
    if !name.bytes().all(tchar) {
        return Err("is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn headers(params: &[HeaderParam], arguments: &Value) -> Vec<(String, String)> {
        let mut headers: Vec<_> = params
            .iter()
            .filter_map(|p| p.header(arguments.as_object().unwrap()))
            .collect();
        headers.sort();
        headers
    }

    #[test]
    fn nested_properties_are_found() {
        let s = schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"shard": {"type": "integer", "x-mcp-header": "Shard"}}}
        }}));
        let params = HeaderParams::read(&s).valid().unwrap();
        assert_eq!(params.len(), 2);
        assert_eq!(
            headers(&params, &json!({"region": "eu", "opts": {"shard": 3}})),
            vec![
                ("mcp-param-Region".to_owned(), "eu".to_owned()),
                ("mcp-param-Shard".to_owned(), "3".to_owned())
            ]
        );
        assert!(headers(&params, &json!({"region": null})).is_empty());
    }

    #[test]
    fn every_rule_is_enforced() {
        let bad = [
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": ["string", "null"], "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A\r\n"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "R"}, "b": {"type": "string", "x-mcp-header": "r"}}}),
            json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
            json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
            json!({"$defs": {"x": {"type": "string", "x-mcp-header": "A"}}}),
            json!({"x-mcp-header": "A", "type": "string"}),
            json!({"properties": (0..=MAX_HEADER_PARAMS)
                .map(|i| (format!("p{i}"), json!({"type": "string", "x-mcp-header": format!("P{i}")})))
                .collect::<Map<String, Value>>()}),
        ];
        for s in bad {
            assert!(
                HeaderParams::read(&schema(s.clone())).valid().is_err(),
                "{s}"
            );
        }
    }

    #[test]
    fn the_first_broken_rule_is_the_reason() {
        let s = schema(json!({"properties": {
            "a": {"type": "number", "x-mcp-header": "A"},
            "b": {"type": "string", "x-mcp-header": "a"},
        }}));
        assert_eq!(
            HeaderParams::read(&s).valid(),
            Err(
                "x-mcp-header `A` on property `a` is on a property of type `number` (only string, integer or boolean)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn a_server_reads_what_it_can_check() {
        let s = schema(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "shard": {"type": ["integer", "null"], "x-mcp-header": "Shard"},
            "ratio": {"type": "number", "x-mcp-header": "Ratio"},
            "plain": {"type": "string"}
        }}));
        let read = HeaderParams::read(&s);
        let params = read.params();
        assert_eq!(params.len(), 2);
        assert_eq!(
            params[0],
            HeaderParam {
                path: vec!["region".into()],
                name: "Region".into(),
                kind: HeaderKind::String
            }
        );
        assert_eq!(params[1].kind, HeaderKind::Integer);
        assert!(read.valid().is_err(), "a client drops the tool");
    }

    #[test]
    fn a_value_is_found_by_its_path_and_null_is_none() {
        let param = HeaderParam {
            path: vec!["opts".into(), "shard".into()],
            name: "Shard".into(),
            kind: HeaderKind::Integer,
        };
        let args = json!({"opts": {"shard": 3}});
        assert_eq!(param.value(args.as_object().unwrap()), Some(&json!(3)));
        for args in [
            json!({}),
            json!({"opts": 1}),
            json!({"opts": {"shard": null}}),
        ] {
            assert_eq!(param.value(args.as_object().unwrap()), None, "{args}");
        }
        assert_eq!(
            param.header(json!({"opts": {"shard": [1]}}).as_object().unwrap()),
            None
        );
    }
}
