//! Skills for the model, the minimal way the Skills extension (SEP-2640)
//! describes it: the host lists each skill's name and description with
//! its origin ([`skills_listing`], for the user and the model alike) and
//! reads nothing further; a skill is loaded only when asked for
//! ([`load_skill`]): its `SKILL.md` read then, checked against the entry
//! (size and SHA-256 digest by the client, the frontmatter here, field by
//! field), and put into the conversation as a [`Turn`] tagged with the
//! server it came from. Its other files are read the same way, one at a
//! time, when a later step asks for them
//! ([`McpClient::read_skill_file`]).
//!
//! What is deliberately not done: no skill is loaded by the model on its
//! own (there is no model-callable skill tool, so no cross-server read and
//! no approval to bind), and no frontmatter field (`allowed-tools`, hooks)
//! is acted on. A skill is identified by its server's config name and its
//! URI, never its name alone.

use super::turn::Turn;
use mcpfn_client::{McpClient, McpError};
use mcpfn_protocol::model::{JsonObject, Skill};
use serde_json::Value;

/// The most bytes of a `SKILL.md` frontmatter parsed (it is a few lines of
/// metadata; YAML is parsed whole).
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The skills of each server, one line each: name, description, origin
/// and URI, for a front end's list or the model's context.
pub fn skills_listing<'a>(skills: impl IntoIterator<Item = (&'a str, &'a Skill)>) -> String {
    let mut listing = String::new();
    for (server, skill) in skills {
        let field = |key: &str| {
            skill
                .frontmatter
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        listing.push_str(&format!(
            "- {} (server `{server}`, <{}>): {}\n",
            field("name"),
            skill.uri,
            field("description")
        ));
    }
    listing
}

/// Loads `skill` of the server `client` speaks to: its `SKILL.md` read
/// now and verified (size, digest, frontmatter), as the user's next turn
/// naming the server and the URI it came from.
pub async fn load_skill(client: &McpClient, skill: &Skill) -> Result<Turn, McpError> {
    let refused = |reason: String| McpError::Skill {
        server: client.name().to_owned(),
        skill: skill
            .frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or(&skill.uri)
            .to_owned(),
        reason,
    };
    let file = client.read_skill_file(skill, &skill.uri).await?;
    let text = file
        .text()
        .ok_or_else(|| refused("its SKILL.md is not UTF-8 text".into()))?;
    let frontmatter = frontmatter(text).map_err(&refused)?;
    if frontmatter != skill.frontmatter {
        return Err(refused(
            "its SKILL.md frontmatter differs from its entry's; it was not loaded".into(),
        ));
    }
    Ok(Turn::line(format!(
        "[Skill loaded from server `{}` (<{}>). It is that server's text, not the host's.]\n\n{text}",
        client.name(),
        skill.uri
    )))
}

/// The YAML frontmatter of `text` (a whole `SKILL.md`) as a JSON object.
fn frontmatter(text: &str) -> Result<JsonObject, String> {
    let missing = || "its SKILL.md has no frontmatter between --- lines".to_owned();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or_else(missing)?;
    let mut end = None;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if at > MAX_FRONTMATTER_BYTES {
            return Err(format!(
                "its SKILL.md frontmatter is longer than {MAX_FRONTMATTER_BYTES} bytes"
            ));
        }
        if line.trim_end_matches(['\n', '\r']).trim_end() == "---" {
            end = Some(at);
            break;
        }
        at += line.len();
    }
    let block = &rest[..end.ok_or_else(missing)?];
    match serde_yaml_ng::from_str::<Value>(block) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err("its SKILL.md frontmatter is not a mapping".into()),
        Err(e) => Err(format!("its SKILL.md frontmatter is not YAML: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpfn_protocol::model::SkillFiles;
    use serde_json::json;

    #[test]
    fn the_frontmatter_is_read_as_its_entry_gives_it() {
        let text = "---\nname: refunds\ndescription: Refund requests\nmetadata:\n  version: 2\n---\n\n# Refunds\n";
        assert_eq!(
            Value::Object(frontmatter(text).unwrap()),
            json!({"name": "refunds", "description": "Refund requests", "metadata": {"version": 2}})
        );
        assert!(
            frontmatter("# no frontmatter")
                .unwrap_err()
                .contains("no frontmatter")
        );
        assert!(
            frontmatter("---\nname: x\n")
                .unwrap_err()
                .contains("no frontmatter")
        );
        assert!(
            frontmatter("---\n- a\n---\n")
                .unwrap_err()
                .contains("not a mapping")
        );
    }

    #[test]
    fn a_listing_names_each_skill_and_its_server() {
        let skill = Skill {
            uri: "skill://acme/billing/refunds/SKILL.md".into(),
            frontmatter: json!({"name": "refunds", "description": "Refund requests"})
                .as_object()
                .cloned()
                .unwrap(),
            resources: SkillFiles::Dynamic,
        };
        assert_eq!(
            skills_listing([("docs", &skill)]),
            "- refunds (server `docs`, <skill://acme/billing/refunds/SKILL.md>): Refund requests\n"
        );
    }
}
