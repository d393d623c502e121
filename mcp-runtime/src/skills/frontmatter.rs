//! A `SKILL.md`'s YAML frontmatter as the JSON object its entry carries,
//! checked against the Agent Skills rules the extension requires (a
//! `name` and a `description`; the name's spelling) and its reservation
//! (`metadata` keys under `io.modelcontextprotocol/`).

use crate::protocol::model::JsonObject;
use serde_json::Value;

/// The most bytes of frontmatter read: YAML is parsed whole, and a
/// frontmatter is a few lines of metadata.
pub(super) const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The longest `description` the Agent Skills specification allows, in
/// characters.
const MAX_DESCRIPTION_CHARS: usize = 1024;

/// The longest skill name, in characters.
const MAX_NAME_CHARS: usize = 64;

/// The `metadata` key prefix reserved for MCP extensions.
const RESERVED_PREFIX: &str = "io.modelcontextprotocol/";

/// The frontmatter of `text` (a whole `SKILL.md`) as a JSON object with a
/// valid `name` and a `description`, or what is wrong with it.
pub(super) fn parse(text: &str) -> Result<JsonObject, String> {
    let block = block(text)?;
    let value: Value = serde_yaml_ng::from_str(block)
        .map_err(|err| format!("the frontmatter is not YAML this server can read: {err}"))?;
    let Value::Object(object) = value else {
        return Err("the frontmatter is not a YAML mapping of fields".to_owned());
    };
    let name = required_text(&object, "name")?;
    check_name(name)?;
    let description = required_text(&object, "description")?;
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(format!(
            "the description is longer than {MAX_DESCRIPTION_CHARS} characters"
        ));
    }
    if let Some(Value::Object(metadata)) = object.get("metadata")
        && let Some(key) = metadata.keys().find(|k| k.starts_with(RESERVED_PREFIX))
    {
        return Err(format!(
            "metadata key {key:?} is under {RESERVED_PREFIX}, which is reserved for MCP extensions"
        ));
    }
    Ok(object)
}

/// The YAML between the opening `---` line and the next `---` line.
fn block(text: &str) -> Result<&str, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let missing =
        || "SKILL.md does not begin with a YAML frontmatter block between --- lines".to_owned();
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(missing)?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if at > MAX_FRONTMATTER_BYTES {
            break;
        }
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare
            .strip_prefix("---")
            .is_some_and(|tail| tail.trim_matches([' ', '\t']).is_empty())
        {
            return Ok(&rest[..at]);
        }
        at += line.len();
    }
    if at > MAX_FRONTMATTER_BYTES {
        return Err(format!(
            "the frontmatter is longer than {MAX_FRONTMATTER_BYTES} bytes"
        ));
    }
    Err(missing())
}

fn required_text<'a>(object: &'a JsonObject, field: &str) -> Result<&'a str, String> {
    match object.get(field) {
        Some(Value::String(text)) if !text.is_empty() => Ok(text),
        Some(Value::String(_)) => Err(format!("the frontmatter's {field} is empty")),
        Some(_) => Err(format!("the frontmatter's {field} is not a string")),
        None => Err(format!("the frontmatter has no {field}")),
    }
}

/// The Agent Skills naming rules: 1 to 64 lowercase letters, digits and
/// hyphens, no hyphen first, last or twice in a row.
pub(super) fn check_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if valid {
        Ok(())
    } else {
        Err(format!(
            "the skill name {name:?} breaks the Agent Skills naming rules: 1 to {MAX_NAME_CHARS} lowercase letters, digits and hyphens, no hyphen first, last or twice in a row"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_frontmatter_is_the_yaml_as_json() {
        let text = "---\nname: pdf-processing\ndescription: Fill PDF forms\nlicense: MIT\nmetadata:\n  version: \"2.1\"\n  pages: 3\n---\n\n# Body\n";
        assert_eq!(
            Value::Object(parse(text).unwrap()),
            json!({"name": "pdf-processing", "description": "Fill PDF forms", "license": "MIT",
                "metadata": {"version": "2.1", "pages": 3}})
        );
        // A BOM, CRLF lines and spaces after the closing line are read too.
        let crlf = "\u{feff}---\r\nname: a\r\ndescription: b\r\n--- \r\nbody";
        assert_eq!(
            Value::Object(parse(crlf).unwrap()),
            json!({"name": "a", "description": "b"})
        );
        // The block ends at the first closing line, at the end of the file too.
        let end = "---\nname: a\ndescription: b\n---";
        assert_eq!(parse(end).unwrap().len(), 2);
    }

    #[test]
    fn a_frontmatter_without_what_the_extension_needs_is_refused() {
        let cases = [
            (
                "# No frontmatter\n",
                "does not begin with a YAML frontmatter",
            ),
            (
                "---\nname: a\ndescription: b\n",
                "does not begin with a YAML frontmatter",
            ),
            ("---\n- a\n- b\n---\n", "not a YAML mapping"),
            ("---\nname: [a\n---\n", "not YAML"),
            ("---\ndescription: b\n---\n", "has no name"),
            ("---\nname: a\n---\n", "has no description"),
            (
                "---\nname: a\ndescription: \"\"\n---\n",
                "description is empty",
            ),
            (
                "---\nname: 7\ndescription: b\n---\n",
                "name is not a string",
            ),
            ("---\nname: Bad_Name\ndescription: b\n---\n", "naming rules"),
            (
                "---\nname: a\ndescription: b\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n",
                "reserved",
            ),
        ];
        for (text, reason) in cases {
            let err = parse(text).unwrap_err();
            assert!(err.contains(reason), "{text:?}: {err}");
        }
        let long = format!("---\nname: a\ndescription: {}\n---\n", "x".repeat(1025));
        assert!(parse(&long).unwrap_err().contains("longer than 1024"));
        let huge = format!("---\nname: a\n{}---\n", "k: v\n".repeat(20_000));
        assert!(
            parse(&huge)
                .unwrap_err()
                .contains("longer than 65536 bytes")
        );
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["a", "pdf-processing", "v2", &"a".repeat(64)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"a".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }
}
