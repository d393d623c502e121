//! What `tools![…]`, `prompts![…]` and `resources![…]` name: the key each of
//! `#[tool]`, `#[prompt]` and `#[resource]` puts beside its fn, and how a
//! list reads it.
//!
//! `tools![f]` finds the tool of a fn through `__mcp_tool_f` (`prompts!`
//! through `__mcp_prompt_f`, `resources!` through `__mcp_resource_f`), a
//! const that the attribute emits beside `f` with the type `ListKey<ID>`
//! (an `ID` of its own). The list names it as a pattern, `match loop {} {
//! __mcp_tool_f => __mcp_tool_f }`, in a closure that is never called: where
//! the const is in scope the pattern is that const and the closure returns a
//! `ListKey<ID>`; where it is not (a plain fn) the identifier is a fresh
//! binding, and the closure's type falls back to `!` (or `()` before edition
//! 2024). The impls below then give the item, or say that there is none,
//! without a name that fails to resolve: rustc's "cannot find function"
//! would be the only error, with nothing of ours. A free const is the one
//! item that works here: a fn name would be shadowed by the binding, and a
//! type cannot be declared in an `impl` block, where `#[tool]` must fail
//! with one error of its own.

/// The type of the key const beside a `#[tool]`, `#[prompt]` or
/// `#[resource]` fn: its `ID` is unique to the fn, so the impls the
/// attribute writes for it are the only ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListKey<const ID: u128>;

/// What a list finds when a path names no fn of its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotListed;

/// The item's name (a resource's URI), and whether there is an item:
/// implemented by the attribute for its `ListKey<ID>`, with a type of its
/// own for `L` (so the impl may be written in the user's crate), and here
/// for what a plain fn gives.
pub trait KeyInfo<L> {
    /// The tool's or the prompt's name, the resource's URI; `""` where
    /// there is no item (or its expansion failed).
    const NAME: &'static str;
    /// `false` for a plain fn.
    const DECLARED: bool;
}

/// Builds the `Item` (a `Tool`, `Prompt` or `Resource`) from the fn `F`
/// (whose future is `Fut`, or `()` where the expansion does not need it):
/// implemented by the attribute for its `ListKey<ID>`, with its bounds on
/// `F`.
pub trait BuildListed<L, Item, F, Fut> {
    /// The item, calling `f`.
    fn build(f: F) -> Item;
}

/// `!`, which cannot be named on stable: a plain fn's probe falls back to it
/// in edition 2024.
pub type Never = <fn() -> ! as FnOutput>::Output;

/// The output of a fn pointer type, to name [`Never`].
pub trait FnOutput {
    /// What the fn returns.
    type Output;
}

impl<T> FnOutput for fn() -> T {
    type Output = T;
}

macro_rules! not_listed {
    ($($ty:ty),*) => {$(
        impl KeyInfo<NotListed> for $ty {
            const NAME: &'static str = "";
            const DECLARED: bool = false;
        }
        impl<Item, F> BuildListed<NotListed, Item, F, ()> for $ty {
            fn build(_: F) -> Item {
                // The list's constant check fails to compile first.
                ::core::unreachable!("a list named a fn without its attribute")
            }
        }
    )*};
}

// `!` (edition 2024), `()` (earlier editions), `NotListed` (a path `m::f`
// or `Type::f`).
not_listed!(Never, (), NotListed);

/// The `Item` of the fn `f`, found by the probe (see [`ListKey`]).
pub fn build<Item, T, L, F, Fut, P>(probe: P, f: F) -> Item
where
    P: FnOnce() -> T,
    T: BuildListed<L, Item, F, Fut>,
{
    // Never called: only its type matters.
    let _ = probe;
    T::build(f)
}

/// The name (or URI) of the item the probe finds (see [`ListKey`]), `""`
/// if none.
pub const fn listed_name<T: KeyInfo<L>, L, P: FnOnce() -> T + Copy>(_probe: P) -> &'static str {
    T::NAME
}

/// Whether the probe finds an item (see [`ListKey`]).
pub const fn is_declared<T: KeyInfo<L>, L, P: FnOnce() -> T + Copy>(_probe: P) -> bool {
    T::DECLARED
}

/// Whether two listed items clash: the same non-empty name (or URI). An
/// empty one is a plain fn's or a failed expansion's, which has its own
/// error.
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.is_empty() || a.len() != b.len() {
        return false;
    }
    let mut at = 0;
    while at < a.len() {
        if a[at] != b[at] {
            return false;
        }
        at += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::same_name;

    #[test]
    fn same_name_needs_equal_non_empty_names() {
        const { assert!(same_name("a/b", "a/b")) };
        assert!(!same_name("", ""));
        assert!(!same_name("a", "ab"));
        assert!(!same_name("ab", "ac"));
    }
}
