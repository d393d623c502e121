//! The Skills extension (SEP-2640) over stdio, in both eras: the
//! `conformance` example serves `examples/skills` (`Server::skills_dir`),
//! and each method's response is checked whole, with the digests, sizes
//! and contents computed here from the files (`resources/list` and
//! `resources/read` serve each file of a skill). A server without skills offers none of
//! it, and a folder that cannot be served stops the server at start-up
//! with the file and the reason.

use crate::common;

use common::{Peer, initialize, request};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const LEGACY: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/skills")
}

/// `{uri, digest, size}` of the fixture file at `path`, from its bytes.
fn file(path: &str) -> Value {
    let bytes = std::fs::read(folder().join(path)).unwrap();
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    json!({"uri": format!("skill://{path}"), "digest": format!("sha256:{digest}"),
        "size": bytes.len()})
}

fn pdf_processing() -> Value {
    json!({
        "uri": "skill://pdf-processing/SKILL.md",
        "frontmatter": {
            "name": "pdf-processing",
            "description": "Extract text from PDF documents and fill in PDF forms",
            "license": "MIT",
            "metadata": {"version": "1.2"},
        },
        "resources": [
            file("pdf-processing/SKILL.md"),
            file("pdf-processing/references/FORMS.md"),
            file("pdf-processing/scripts/fill_form.py"),
        ],
    })
}

fn refunds() -> Value {
    json!({
        "uri": "skill://acme/billing/refunds/SKILL.md",
        "frontmatter": {
            "name": "refunds",
            "description": "Process a customer's refund request as the billing team's policy says",
        },
        "resources": [
            file("acme/billing/refunds/SKILL.md"),
            file("acme/billing/refunds/examples/email.md"),
            file("acme/billing/refunds/examples/stamp.png"),
        ],
    })
}

/// A legacy session with the conformance example, handshake done: its
/// capabilities declare the extension, with `directoryRead`.
fn legacy() -> Peer {
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = LEGACY.into();
    let response = peer.request(initialize(0, LEGACY));
    assert_eq!(
        response["result"]["capabilities"]["extensions"],
        json!({"io.modelcontextprotocol/skills": {"directoryRead": true}}),
        "{response}"
    );
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    peer
}

/// The result of a 2026-07-28 response, with its `_meta` checked and left out.
fn modern_result(response: &Value) -> Value {
    let mut result = response["result"].clone();
    let meta = result
        .as_object_mut()
        .and_then(|r| r.remove("_meta"))
        .unwrap_or_else(|| panic!("no _meta: {response}"));
    assert_eq!(
        meta["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-runtime-conformance"
    );
    result
}

fn error(response: &Value) -> (i64, String, Value) {
    let error = &response["error"];
    (
        error["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("not an error: {response}")),
        error["message"].as_str().unwrap_or_default().to_owned(),
        error["data"].clone(),
    )
}

#[test]
fn skills_list_and_get_answer_with_complete_manifests_in_both_eras() {
    let mut peer = legacy();
    let list = peer.request(request(1, "skills/list", json!({}), false));
    assert_eq!(
        list,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"skills": [refunds(), pdf_processing()]}})
    );
    let get = peer.request(request(
        2,
        "skills/get",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
        false,
    ));
    assert_eq!(
        get,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"skill": pdf_processing()}})
    );

    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let discover = peer.request(request(0, "server/discover", json!({}), true));
    assert_eq!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true}),
        "{discover}"
    );
    let list = peer.request(request(1, "skills/list", json!({}), true));
    assert_eq!(
        modern_result(&list),
        json!({"skills": [refunds(), pdf_processing()], "ttlMs": 300000,
            "cacheScope": "public", "resultType": "complete"})
    );
    let get = peer.request(request(
        2,
        "skills/get",
        json!({"uri": "skill://acme/billing/refunds/SKILL.md"}),
        true,
    ));
    assert_eq!(
        modern_result(&get),
        json!({"skill": refunds(), "ttlMs": 300000, "cacheScope": "public",
            "resultType": "complete"})
    );
}

#[test]
fn unknown_skills_directories_and_cursors_are_invalid_params() {
    let mut peer = legacy();
    for (id, uri) in [
        (
            1,
            "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md",
        ),
        // A file of a skill is not a skill.
        (2, "skill://pdf-processing/references/FORMS.md"),
        (3, "skill://pdf-processing"),
    ] {
        let response = peer.request(request(id, "skills/get", json!({"uri": uri}), false));
        assert_eq!(
            error(&response),
            (
                -32602,
                format!("No skill is served at {uri}"),
                json!({"uri": uri})
            ),
            "{uri}"
        );
    }
    let long = format!("skill://{}/SKILL.md", "a".repeat(100_000));
    let response = peer.request(request(4, "skills/get", json!({"uri": long}), false));
    let (code, message, _) = error(&response);
    assert_eq!(code, -32602);
    assert!(
        message.ends_with("… (100017 bytes)") && message.len() < 300,
        "{message}"
    );
    for (id, uri) in [
        (5, "skill://pdf-processing/SKILL.md"),
        (6, "skill://pdf-processing/"),
        (7, "skill://nowhere"),
    ] {
        let response = peer.request(request(
            id,
            "resources/directory/read",
            json!({"uri": uri}),
            false,
        ));
        assert_eq!(
            error(&response),
            (
                -32602,
                format!("{uri} is not a directory resource of this server"),
                json!({"uri": uri})
            ),
            "{uri}"
        );
    }
    for (id, method, params) in [
        (8, "skills/list", json!({"cursor": "1"})),
        (
            9,
            "resources/directory/read",
            json!({"uri": "skill://acme", "cursor": "x"}),
        ),
    ] {
        let response = peer.request(request(id, method, params, false));
        let (code, message, _) = error(&response);
        assert_eq!(code, -32602, "{response}");
        assert_eq!(
            message,
            format!(
                "Invalid cursor: use a nextCursor value from an earlier {method} result, or no cursor"
            )
        );
    }
    let response = peer.request(request(10, "skills/get", json!({}), false));
    assert_eq!(
        error(&response).1,
        "Invalid params for skills/get: missing field `uri`"
    );
}

#[test]
fn directory_reads_list_direct_children_in_both_eras() {
    let directory =
        |uri: &str, name: &str| json!({"uri": uri, "name": name, "mimeType": "inode/directory"});
    let markdown = |path: &str, name: &str| {
        json!({"uri": format!("skill://{path}"), "name": name, "mimeType": "text/markdown",
            "size": file(path)["size"]})
    };
    let root = json!([
        markdown("pdf-processing/SKILL.md", "SKILL.md"),
        directory("skill://pdf-processing/references", "references"),
        directory("skill://pdf-processing/scripts", "scripts"),
    ]);
    let scripts = json!([{"uri": "skill://pdf-processing/scripts/fill_form.py",
        "name": "fill_form.py", "mimeType": "text/x-python",
        "size": file("pdf-processing/scripts/fill_form.py")["size"]}]);
    let mut peer = legacy();
    for (id, uri, children) in [
        (1, "skill://pdf-processing", root.clone()),
        (2, "skill://pdf-processing/scripts", scripts),
        // The prefix above a skill is a directory too.
        (
            3,
            "skill://acme",
            json!([directory("skill://acme/billing", "billing")]),
        ),
    ] {
        let response = peer.request(request(
            id,
            "resources/directory/read",
            json!({"uri": uri}),
            false,
        ));
        assert_eq!(
            response,
            json!({"jsonrpc": "2.0", "id": id, "result": {"resources": children}}),
            "{uri}"
        );
    }
    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let response = peer.request(request(
        1,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing"}),
        true,
    ));
    assert_eq!(
        modern_result(&response),
        json!({"resources": root, "resultType": "complete"})
    );
}

#[test]
fn a_server_without_skills_offers_none_of_the_extension() {
    for modern in [false, true] {
        let mut peer = if modern {
            Peer::modern()
        } else {
            Peer::legacy(LEGACY)
        };
        if modern {
            let discover = peer.request(request(1, "server/discover", json!({}), true));
            let extensions = &discover["result"]["capabilities"]["extensions"];
            assert!(
                extensions.get("io.modelcontextprotocol/tasks").is_some(),
                "{discover}"
            );
            assert!(
                extensions.get("io.modelcontextprotocol/skills").is_none(),
                "{discover}"
            );
        }
        for (id, method) in [
            (2, "skills/list"),
            (3, "skills/get"),
            (4, "resources/directory/read"),
        ] {
            let response = peer.request(request(
                id,
                method,
                json!({"uri": "skill://a/SKILL.md"}),
                modern,
            ));
            assert_eq!(
                error(&response),
                (
                    -32601,
                    format!("Method not found: {method}"),
                    json!({"method": method})
                ),
                "{method}"
            );
        }
    }
}

/// The conformance example serving the folder `dir` (`SKILLS_DIR`): it
/// must not start. Returns its stderr.
fn refused_at_start(dir: &Path) -> String {
    let output = Command::new(common::example_binary("conformance"))
        .env("SKILLS_DIR", dir)
        .stdin(Stdio::null())
        .output()
        .expect("the example runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn a_folder_that_cannot_be_served_stops_the_server_with_the_file_and_reason() {
    let dir = std::env::temp_dir().join(format!("skills-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    std::fs::write(dir.join("notes/SKILL.md"), "# Notes without frontmatter\n").unwrap();
    let stderr = refused_at_start(&dir);
    assert!(
        stderr.contains(&format!(
            "error: skills: {}: SKILL.md does not begin with a YAML frontmatter block between --- lines",
            dir.join("notes/SKILL.md").display()
        )),
        "{stderr}"
    );
    #[cfg(unix)]
    {
        std::fs::write(
            dir.join("notes/SKILL.md"),
            "---\nname: notes\ndescription: Notes\n---\n",
        )
        .unwrap();
        std::os::unix::fs::symlink("/etc", dir.join("notes/etc")).unwrap();
        let stderr = refused_at_start(&dir);
        assert!(
            stderr.contains(&format!(
                "error: skills: {}: a symbolic link; skills are served from regular files inside the folder only",
                dir.join("notes/etc").display()
            )),
            "{stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `skill://` resources of a `resources/list` result (the example may
/// serve other resources besides).
fn skill_resources(result: &Value) -> Vec<Value> {
    result["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("no resources: {result}"))
        .iter()
        .filter(|r| r["uri"].as_str().is_some_and(|u| u.starts_with("skill://")))
        .cloned()
        .collect()
}

#[test]
fn each_file_of_a_skill_is_a_resource_listed_and_read_in_both_eras() {
    let size = |path: &str| file(path)["size"].clone();
    let listed = json!([
        {"uri": "skill://acme/billing/refunds/SKILL.md", "name": "refunds",
         "description": "Process a customer's refund request as the billing team's policy says",
         "mimeType": "text/markdown", "size": size("acme/billing/refunds/SKILL.md")},
        {"uri": "skill://acme/billing/refunds/examples/email.md", "name": "email.md",
         "mimeType": "text/markdown", "size": size("acme/billing/refunds/examples/email.md")},
        {"uri": "skill://acme/billing/refunds/examples/stamp.png", "name": "stamp.png",
         "mimeType": "image/png", "size": size("acme/billing/refunds/examples/stamp.png")},
        {"uri": "skill://pdf-processing/SKILL.md", "name": "pdf-processing",
         "description": "Extract text from PDF documents and fill in PDF forms",
         "mimeType": "text/markdown", "size": size("pdf-processing/SKILL.md")},
        {"uri": "skill://pdf-processing/references/FORMS.md", "name": "FORMS.md",
         "mimeType": "text/markdown", "size": size("pdf-processing/references/FORMS.md")},
        {"uri": "skill://pdf-processing/scripts/fill_form.py", "name": "fill_form.py",
         "mimeType": "text/x-python", "size": size("pdf-processing/scripts/fill_form.py")},
    ]);
    let text = |path: &str| std::fs::read_to_string(folder().join(path)).unwrap();
    let manifest = json!({"contents": [{"uri": "skill://pdf-processing/SKILL.md",
        "mimeType": "text/markdown", "text": text("pdf-processing/SKILL.md")}]});
    let stamp = std::fs::read(folder().join("acme/billing/refunds/examples/stamp.png")).unwrap();
    // The PNG's base64, as the conformance example's fixture spells it.
    assert_eq!(stamp.len(), 70);
    let png = json!({"contents": [{"uri": "skill://acme/billing/refunds/examples/stamp.png",
        "mimeType": "image/png",
        "blob": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}]});
    let unknown = "skill://pdf-processing/references/MISSING.md";

    let mut peer = legacy();
    let list = peer.request(request(1, "resources/list", json!({}), false));
    assert_eq!(Value::Array(skill_resources(&list["result"])), listed);
    let read = peer.request(request(
        2,
        "resources/read",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
        false,
    ));
    assert_eq!(read["result"], manifest);
    let read = peer.request(request(
        3,
        "resources/read",
        json!({"uri": "skill://acme/billing/refunds/examples/stamp.png"}),
        false,
    ));
    assert_eq!(read["result"], png);
    let missing = peer.request(request(4, "resources/read", json!({"uri": unknown}), false));
    assert_eq!(
        (error(&missing).0, error(&missing).2),
        (-32002, json!({"uri": unknown}))
    );

    let mut peer = Peer::spawn("conformance", &[]);
    peer.version = MODERN.into();
    let list = peer.request(request(1, "resources/list", json!({}), true));
    assert_eq!(Value::Array(skill_resources(&list["result"])), listed);
    let read = peer.request(request(
        2,
        "resources/read",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
        true,
    ));
    let mut result = modern_result(&read);
    assert_eq!(result["resultType"], "complete");
    result
        .as_object_mut()
        .unwrap()
        .retain(|k, _| k == "contents");
    assert_eq!(result, manifest);
    let missing = peer.request(request(3, "resources/read", json!({"uri": unknown}), true));
    assert_eq!(
        (error(&missing).0, error(&missing).2),
        (-32602, json!({"uri": unknown}))
    );
}
