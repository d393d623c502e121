//! MCP Apps' rules in the library, over real servers on stdio: the
//! extension declared, tools for apps only never offered to the model,
//! an app's calls only to its own server's tools visible to apps.

use crate::common::{example, run, text};
use mcpfn_host::catalog::{AppCallRefused, Catalog, CatalogOptions};
use mcpfn_host::config::McpConfig;
use mcpfn_host::mcpfn_client::CallOptions;
use serde_json::json;

/// A catalog of the app fixture (whose app is `html`) and everything, with
/// the extension declared or not.
async fn catalog(apps: bool) -> (Catalog, std::path::PathBuf) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("mcp-host-apps-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("app.html");
    std::fs::write(&html, "<!DOCTYPE html><p>fixture</p>").unwrap();
    let config = McpConfig::parse(
        &json!({"mcpServers": {
            "fixture": {"command": example("app_fixture"), "env": {"APP_HTML": html}},
            "everything": {"command": example("everything")},
        }})
        .to_string(),
    )
    .unwrap();
    let mut options = CatalogOptions::default();
    options.client.apps = apps;
    let catalog = Catalog::build(&config, Vec::new(), options).await.unwrap();
    assert!(catalog.failures().is_empty(), "{:?}", catalog.failures());
    (catalog, dir)
}

#[test]
fn tools_for_apps_only_are_never_offered_to_the_model() {
    run(async {
        let (catalog, dir) = catalog(true).await;
        let offered: Vec<&str> = catalog
            .tools()
            .iter()
            .map(|t| t.model_name.as_str())
            .collect();
        assert!(
            offered.contains(&"show") && offered.contains(&"model_only"),
            "{offered:?}"
        );
        assert!(offered.contains(&"stats"), "{offered:?}");
        for hidden in ["app_only", "stats_sort"] {
            assert!(
                !offered.iter().any(|n| n.contains(hidden)),
                "{hidden}: {offered:?}"
            );
            assert!(catalog.names().model_name("fixture", hidden).is_none());
        }
        let anthropic = mcpfn_host::provider::anthropic::tools(&catalog.offers());
        assert!(!json!(anthropic).to_string().contains("app_only"));
        // The model calling the hidden name is refused as never offered.
        let result = catalog.call("app_only", json!({"text": "x"})).await;
        assert!(
            result.is_error && text(&result).contains("app_only"),
            "{}",
            text(&result)
        );
        // The listing still holds it, for the app.
        assert!(catalog.listed_tool("fixture", "app_only").is_some());
        catalog.close().await;
        let _ = std::fs::remove_dir_all(dir);
    });
}

#[test]
fn an_app_calls_only_its_own_servers_tools_visible_to_apps() {
    run(async {
        let (catalog, dir) = catalog(true).await;
        let call = |server: &'static str, tool: &'static str| {
            catalog.call_from_app(server, tool, json!({"text": "hi"}), CallOptions::default())
        };
        let result = call("fixture", "app_only").await.unwrap();
        assert_eq!(text(&result), "app_only: hi");
        let result = call("fixture", "show").await.unwrap();
        assert_eq!(text(&result), "shown: hi (host renders apps: true)");
        assert_eq!(
            call("fixture", "model_only").await.unwrap_err(),
            AppCallRefused::NotForApps {
                server: "fixture".into(),
                tool: "model_only".into()
            }
        );
        assert_eq!(
            call("fixture", "model_only").await.unwrap_err().to_string(),
            "the tool `model_only` of server `fixture` is not visible to apps (its `_meta.ui.visibility` leaves out \"app\")"
        );
        // Another server's tool, by the fixture's app: not listed there.
        assert_eq!(
            call("fixture", "stats_sort").await.unwrap_err().to_string(),
            "server `fixture` offers no tool `stats_sort`"
        );
        assert_eq!(
            call("nowhere", "show").await.unwrap_err().to_string(),
            "the app's server `nowhere` is not running"
        );
        let sorted = catalog
            .call_from_app(
                "everything",
                "stats_sort",
                json!({"numbers": [3, 1, 2]}),
                CallOptions::default(),
            )
            .await
            .unwrap();
        assert!(text(&sorted).contains("[1.0,2.0,3.0]"), "{}", text(&sorted));
        catalog.close().await;
        let _ = std::fs::remove_dir_all(dir);
    });
}

#[test]
fn the_extension_is_declared_only_when_asked() {
    run(async {
        let (catalog, dir) = catalog(false).await;
        let result = catalog.call("show", json!({"text": "x"})).await;
        assert_eq!(text(&result), "shown: x (host renders apps: false)");
        catalog.close().await;
        let _ = std::fs::remove_dir_all(dir);
    });
}
