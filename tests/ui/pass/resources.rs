//! `#[resource]` on fixed URIs and templates of each supported form, with
//! State<T> and Context parameters; the list registers them.

use mcpfn_runtime::{Context, ResourceContents, State, resource, resources};

struct Root(&'static str);

/// The readme.
#[resource("test://readme", mime_type = "text/markdown", title = "Readme", size = 7, audience = "user", priority = 0.5, icon = "https://example.com/i.png")]
async fn readme() -> &'static str {
    "# Hello"
}

#[resource("file:///{+path}", name = "files")]
async fn file(path: String, root: State<Root>, _ctx: Context) -> Result<String, std::io::Error> {
    Ok(format!("{}/{path}", root.0))
}

mod nested {
    use mcpfn_runtime::resource;

    #[resource("repo://x{/branch}{?depth}")]
    pub async fn branch(branch: String, depth: Option<u8>) -> Vec<u8> {
        format!("{branch}{depth:?}").into_bytes()
    }
}

#[resource("multi://{id}")]
async fn multi(id: u64) -> Vec<ResourceContents> {
    vec![ResourceContents::Text { uri: format!("multi://{id}"), mime_type: None, text: id.to_string(), meta: None }]
}

fn main() {
    let list = resources![readme, file, nested::branch, multi];
    let uris: Vec<&str> = list.iter().map(|r| r.uri()).collect();
    assert_eq!(uris, ["test://readme", "file:///{+path}", "repo://x{/branch}{?depth}", "multi://{id}"]);
    assert_eq!(list[1].name(), "files");
    assert!(list[1].is_template());
}
