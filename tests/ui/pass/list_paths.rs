//! Every way `prompts![...]` and `resources![...]` reach their fns, as
//! `tools![...]` does: declared before or after the list, in the fn body, by
//! a relative, `crate::`, `self::` or `super::` path, through a glob
//! re-export, beside a module named like the fn.

use mcpfn_runtime::{prompt, prompts, resource, resources};

/// Declared after `main`'s list.
#[prompt]
async fn greet() -> String {
    "Say hello.".to_owned()
}

#[resource("test://before")]
async fn before() -> String {
    String::new()
}

mod outer {
    pub mod inner {
        #[mcpfn_runtime::prompt]
        pub async fn deep() -> String {
            "Go deep.".to_owned()
        }

        #[mcpfn_runtime::resource("test://deep")]
        pub async fn deep_file() -> String {
            String::new()
        }
    }

    /// Reaches its siblings through `super::` and `self::`.
    pub fn lists() -> (Vec<mcpfn_runtime::Prompt>, Vec<mcpfn_runtime::Resource>) {
        (
            mcpfn_runtime::prompts![super::greet, self::inner::deep],
            mcpfn_runtime::resources![super::after, self::inner::deep_file],
        )
    }
}

mod reexport {
    pub use crate::outer::inner::*;
}

/// A module named like the prompt in it does not get in the way.
mod review {
    #[mcpfn_runtime::prompt]
    pub async fn review() -> String {
        "Review.".to_owned()
    }
}

fn main() {
    let names = |list: Vec<mcpfn_runtime::Prompt>| list.iter().map(|p| p.name().to_owned()).collect::<Vec<_>>();
    let uris = |list: Vec<mcpfn_runtime::Resource>| list.iter().map(|r| r.uri().to_owned()).collect::<Vec<_>>();
    assert_eq!(names(prompts![greet, crate::outer::inner::deep, review::review]), ["greet", "deep", "review"]);
    assert_eq!(names(prompts![reexport::deep]), ["deep"]);
    assert_eq!(uris(resources![before, after, reexport::deep_file]), ["test://before", "test://after", "test://deep"]);
    let (p, r) = outer::lists();
    assert_eq!(names(p), ["greet", "deep"]);
    assert_eq!(uris(r), ["test://after", "test://deep"]);

    #[prompt]
    async fn local_before() -> String {
        String::new()
    }
    let listed = (prompts![local_before, local_after], resources![local_file]);
    assert_eq!(names(listed.0), ["local_before", "local_after"]);
    assert_eq!(uris(listed.1), ["test://local"]);
    #[prompt]
    async fn local_after() -> String {
        String::new()
    }
    #[resource("test://local")]
    async fn local_file() -> String {
        String::new()
    }
}

#[resource("test://after")]
async fn after() -> String {
    String::new()
}
