//! The one error collector every phase reports into (serde_derive's `Ctxt`).
//!
//! Phases push errors and keep going, so independent mistakes are reported
//! together; the caller checks once at the end. A `Ctxt` dropped unchecked
//! panics, so no phase can lose an error by forgetting to look.

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Errors collected while reading and checking one macro input.
pub(crate) struct Ctxt {
    /// `None` once checked: an error pushed after that is a bug.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Ctxt {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// Records `message` on the tokens of `tokens` (their first to last span).
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records `message` at `span`.
    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    /// Records an error syn made (a parse error, usually).
    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(err);
    }

    /// Records the error of `result`, if any, and gives back its value.
    pub(crate) fn ok<T>(&self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(err) => {
                self.syn_error(err);
                None
            }
        }
    }

    /// Ends collection: every error recorded, in order, or `Ok` if none.
    pub(crate) fn check(self) -> Result<(), Vec<syn::Error>> {
        let errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a Ctxt was dropped without `check()`: its errors would be lost");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Ctxt;
    use proc_macro2::Span;

    #[test]
    fn check_gives_every_error_in_order() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "first");
        assert_eq!(
            cx.ok::<()>(Err(syn::Error::new(Span::call_site(), "second"))),
            None
        );
        assert_eq!(cx.ok(Ok(7)), Some(7));
        let errors = cx.check().unwrap_err();
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    fn no_error_checks_ok() {
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "without `check()`")]
    fn dropping_unchecked_panics() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "lost");
    }
}
