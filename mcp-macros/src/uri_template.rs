//! The compile-time reading of a `#[resource]` URI template: its variables,
//! or what is wrong with it. The grammar is mcp-runtime's
//! (`resource::template`, which matches URIs at run time and checks the
//! template again when a resource is built by hand): `{var}`, `{+var}`,
//! `{/var}` and a last `{?a,b}`; names of letters, digits and `_`.

/// A template variable and whether it is a query one (`{?a}`: a URI may
/// leave it out).
pub(crate) struct Variable {
    pub(crate) name: String,
    pub(crate) query: bool,
}

/// The variables of `text`, in order, or what is wrong with it (a sentence
/// to report on the literal). A text without `{` or `}` is a fixed URI and
/// has none.
pub(crate) fn variables(text: &str) -> Result<Vec<Variable>, String> {
    let mut variables: Vec<Variable> = Vec::new();
    let mut rest = text;
    let mut query_seen = false;
    while let Some(open) = rest.find(['{', '}']) {
        let at = text.len() - rest.len() + open;
        if rest[open..].starts_with('}') {
            return Err(format!("`}}` at byte {at} closes no expression"));
        }
        let after = &rest[open + 1..];
        let Some(close) = after
            .find(['{', '}'])
            .filter(|&end| after[end..].starts_with('}'))
        else {
            return Err(format!(
                "the expression at byte {at} is not closed with `}}`"
            ));
        };
        let body = &after[..close];
        rest = &after[close + 1..];
        if query_seen {
            return Err("a `{?...}` expression must come last".to_owned());
        }
        let (query, names) = match body.chars().next() {
            Some('+' | '/') => (false, &body[1..]),
            Some('?') => (true, &body[1..]),
            Some(op @ ('#' | '.' | ';' | '&' | '=' | ',' | '!' | '@' | '|')) => {
                return Err(format!(
                    "the operator `{op}` in `{{{body}}}` is not supported; use {{var}}, {{+var}}, {{/var}} or {{?a,b}}"
                ));
            }
            _ => (false, body),
        };
        query_seen = query;
        let names: Vec<&str> = names.split(',').collect();
        if names.len() > 1 && !query {
            return Err(format!(
                "`{{{body}}}` names several variables; only {{?a,b}} may, else write one expression per variable"
            ));
        }
        for name in names {
            if name.is_empty() {
                return Err(format!("`{{{body}}}` has an empty variable name"));
            }
            if let Some(bad) = name
                .chars()
                .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
            {
                return Err(format!(
                    "the variable name `{name}` holds `{bad}`; names are letters, digits and `_` (modifiers such as `:3` or `*` are not supported)"
                ));
            }
            if variables.iter().any(|v| v.name == name) {
                return Err(format!(
                    "the variable `{name}` appears twice in the template"
                ));
            }
            variables.push(Variable {
                name: name.to_owned(),
                query,
            });
        }
    }
    Ok(variables)
}
