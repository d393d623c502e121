//! Run with: cargo run --release --example basket
//!
//! A shopping basket kept between calls behind an opaque handle: the
//! stateful-tool pattern of the MCP specification (unguessable ids, bounded
//! lifetime, a check of the caller on every use, and expiry reported as an
//! error the model can recover from by creating a new basket).

use mcp_runtime::{Context, Handles, Server, State, ToolError, tool, tools};
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

/// Who is calling. Over stdio one process serves one client, so the client's
/// self-reported name is enough to keep baskets apart in this example; behind
/// an authenticated transport, use the authenticated principal instead.
fn caller(ctx: &Context) -> String {
    ctx.client_info()
        .and_then(|info| info["name"].as_str())
        .unwrap_or("anonymous")
        .to_owned()
}

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

/// Create an empty basket; returns its handle (valid for an hour after last use).
#[tool(open_world = false)]
async fn create_basket(ctx: Context, baskets: State<Handles<Basket>>) -> BasketView {
    let id = baskets.create_for(&caller(&ctx), Basket::new());
    view(&id, &Basket::new())
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
    baskets.with_for(&caller(&ctx), &basket_id, |basket| {
        *basket.entry(item).or_default() += quantity;
        view(&basket_id, basket)
    })
}

/// Show a basket's contents and total.
#[tool(read_only, open_world = false)]
async fn view_basket(
    ctx: Context,
    baskets: State<Handles<Basket>>,
    /// The handle from create_basket
    basket_id: String,
) -> Result<BasketView, ToolError> {
    baskets.with_for(&caller(&ctx), &basket_id, |basket| view(&basket_id, basket))
}

/// Check out: returns the final basket and closes it.
#[tool(destructive, open_world = false)]
async fn checkout(
    ctx: Context,
    baskets: State<Handles<Basket>>,
    /// The handle from create_basket
    basket_id: String,
) -> Result<BasketView, ToolError> {
    let basket = baskets.remove_for(&caller(&ctx), &basket_id)?;
    if basket.is_empty() {
        return Err(ToolError::new(
            "the basket is empty; add items before checking out",
        ));
    }
    Ok(view(&basket_id, &basket))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let baskets: Handles<Basket> =
        Handles::new("basket", "create_basket", Duration::from_secs(3600));
    let server = Server::new("basket", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Create a basket, add items (apple, bread, cheese, milk), view it, check out.",
        )
        .state(baskets)
        .tools(tools![create_basket, add_item, view_basket, checkout]);
    // Serves stdio, or prints the tools for `--dump-tools`.
    mcp_runtime::cli::run(server).await
}
