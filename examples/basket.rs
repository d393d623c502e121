//! Run with: cargo run --release --example basket
//!
//! That build serves stdio only; over HTTP with Redis and authorization:
//! `cargo run --release --example basket --features http,redis,auth -- --http 127.0.0.1:8931`.
//!
//! A shopping basket kept between calls behind an opaque handle: the
//! stateful-tool pattern of the MCP specification (unguessable ids, bounded
//! lifetime, a check of the caller on every use, and expiry reported as an
//! error the model can recover from by creating a new basket).
//!
//! `--http 127.0.0.1:8931` (feature `http`) serves Streamable HTTP at `/mcp`
//! instead of stdio. `REDIS_URL=redis://…` (feature `redis`) keeps the baskets (and spent 2026-07-28
//! request states) in that Redis, so replicas behind one load balancer share
//! them; `MCP_SEAL_KEY` (at least 32 bytes) is the key sealing `requestState`
//! (give replicas the same one); `MCP_REPLICA` this replica's tag in legacy
//! session ids (for routing them behind a load balancer; see `deploy/`);
//! `MCP_AUTH_*` (feature `auth`) as for `everything` (each basket then belongs to the token's
//! subject: another user's basket id reads as unknown);
//! `BASKET_TTL_MS=N` how long an unused basket
//! lives (an hour by default).

use mcpfn_runtime::{Context, Handles, Server, State, ToolError, tool, tools};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// Prices in cents; a real server would ask a catalogue.
const PRICES: [(&str, u64); 4] = [
    ("apple", 40),
    ("bread", 250),
    ("cheese", 480),
    ("milk", 120),
];

/// A basket's lines: item -> quantity.
type Basket = BTreeMap<String, u32>;

/// A basket as the model sees it.
#[derive(Serialize, JsonSchema)]
struct BasketView {
    /// The basket's handle, to pass to the other basket tools
    basket_id: String,
    /// Items and quantities
    items: BTreeMap<String, u32>,
    /// Total price in cents
    total_cents: u64,
}

fn view(id: &str, basket: &Basket) -> BasketView {
    let total_cents = basket
        .iter()
        .map(|(item, qty)| price(item).unwrap_or(0) * u64::from(*qty))
        .sum();
    BasketView {
        basket_id: id.to_owned(),
        items: basket.clone(),
        total_cents,
    }
}

fn price(item: &str) -> Option<u64> {
    PRICES
        .iter()
        .find(|(name, _)| *name == item)
        .map(|(_, cents)| *cents)
}

/// An item on sale.
#[derive(Serialize, JsonSchema)]
struct Item {
    /// Its name, for add_item
    name: String,
    /// Price in cents
    price_cents: u64,
}

/// The items on sale and their prices.
#[derive(Serialize, JsonSchema)]
struct Catalogue {
    /// Every item that add_item takes
    items: Vec<Item>,
}

/// List the items on sale and their prices.
#[tool(read_only, idempotent, open_world = false)]
async fn list_items() -> Catalogue {
    Catalogue {
        items: PRICES
            .iter()
            .map(|(name, cents)| Item {
                name: (*name).to_owned(),
                price_cents: *cents,
            })
            .collect(),
    }
}

/// Create an empty basket; returns its handle (valid for an hour after last use).
///
/// Baskets belong to their creator: over HTTP with authorization, another
/// user's basket is "unknown" (Handles binds each to the caller's principal).
#[tool(open_world = false)]
async fn create_basket(
    ctx: Context,
    baskets: State<Handles<Basket>>,
) -> Result<BasketView, ToolError> {
    let id = baskets.create(&ctx, Basket::new()).await?;
    Ok(view(&id, &Basket::new()))
}

/// Add an item to a basket.
#[tool(open_world = false)]
async fn add_item(
    ctx: Context,
    baskets: State<Handles<Basket>>,
    /// The handle from create_basket
    basket_id: String,
    /// One of: apple, bread, cheese, milk
    item: String,
    /// How many, 1 to 99; 1 when absent
    quantity: Option<u32>,
) -> Result<BasketView, ToolError> {
    if price(&item).is_none() {
        return Err(ToolError::new(format!(
            "no item {item:?}; choose one of apple, bread, cheese, milk"
        )));
    }
    let quantity = quantity.unwrap_or(1);
    if !(1..=99).contains(&quantity) {
        return Err(ToolError::new("quantity must be between 1 and 99"));
    }
    baskets
        .update(&ctx, &basket_id, |basket| {
            *basket.entry(item.clone()).or_default() += quantity;
            view(&basket_id, basket)
        })
        .await
}

/// Show a basket's contents and total.
#[tool(read_only, open_world = false)]
async fn view_basket(
    ctx: Context,
    baskets: State<Handles<Basket>>,
    /// The handle from create_basket
    basket_id: String,
) -> Result<BasketView, ToolError> {
    let basket = baskets.get(&ctx, &basket_id).await?;
    Ok(view(&basket_id, &basket))
}

/// Check out: returns the final basket and closes it.
#[tool(destructive, open_world = false)]
async fn checkout(
    ctx: Context,
    baskets: State<Handles<Basket>>,
    /// The handle from create_basket
    basket_id: String,
) -> Result<BasketView, ToolError> {
    let basket = baskets.remove(&ctx, &basket_id).await?;
    if basket.is_empty() {
        return Err(ToolError::new(
            "the basket is empty; add items before checking out",
        ));
    }
    Ok(view(&basket_id, &basket))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let ttl = std::env::var("BASKET_TTL_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(Duration::from_secs(3600), Duration::from_millis);
    let baskets: Handles<Basket> = Handles::new("basket", "create_basket", ttl);
    let server = Server::new("basket", env!("CARGO_PKG_VERSION"))
        .instructions(
            "List the items, create a basket, add items (apple, bread, cheese, milk), view it, \
             check out.",
        )
        .state(baskets)
        .tools(tools![
            list_items,
            create_basket,
            add_item,
            view_basket,
            checkout
        ]);
    // MCP_SEAL_KEY, MCP_REPLICA, REDIS_URL, MCP_AUTH_*: running as one of
    // several replicas, possibly OAuth-protected (docs/deployment.md); with
    // authorization, each basket belongs to the token's subject.
    let (server, _auth) = examples::deployment(server, "basket", "Basket (mcp-runtime example)");
    // Serves stdio, Streamable HTTP with `--http ADDR`, or prints the tools
    // for `--dump-tools`.
    mcpfn_runtime::cli::run(server).await
}
