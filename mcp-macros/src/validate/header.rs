//! The rules of `header = "..."`: an argument mirrored into an HTTP header
//! has a valid header name, a type a header can carry, and a name of its
//! own in the tool.

use crate::ast::{Header, Param, Unfit};
use crate::ctxt::Ctxt;

/// RFC 9110 `tchar`: the characters of a header field name.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// `x-mcp-header` values are non-empty RFC 9110 tokens (no spaces, no
/// control characters, no separators).
pub(super) fn header_value(param: &Param) -> syn::Result<()> {
    let Some(header) = &param.header else {
        return Ok(());
    };
    let lit = &header.name;
    let value = lit.value();
    let rule = "a header name is one or more RFC 9110 token characters: letters, digits and !#$%&'*+-.^_`|~";
    if value.is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!("the header name is empty; {rule}"),
        ));
    }
    if let Some(bad) = value.chars().find(|c| c.is_control()) {
        return Err(syn::Error::new(
            lit.span(),
            format!("the header name contains the control character {bad:?}; {rule}"),
        ));
    }
    if let Some(bad) = value.chars().find(|c| !is_tchar(*c)) {
        return Err(syn::Error::new(
            lit.span(),
            format!("the header name contains {bad:?}; {rule}"),
        ));
    }
    Ok(())
}

/// Only string, integer and boolean arguments can be mirrored into a header
/// (`number` is banned: `1.0` and `1` would render differently).
pub(super) fn header_type_rule(param: &Param) -> syn::Result<()> {
    // A header on an injected parameter is `injected_without_arg`'s error.
    let unfit = match &param.header {
        Some(Header { ty: Err(unfit), .. }) if param.is_argument() => *unfit,
        _ => return Ok(()),
    };
    let why = match unfit {
        Unfit::Float => {
            "floating-point numbers cannot be mirrored into a header (the spec bans `number`); use an integer or a String"
        }
        Unfit::Other => {
            "a header can only mirror a String, an integer, a bool, or an Option of one"
        }
    };
    Err(syn::Error::new_spanned(
        &param.ty,
        format!("this argument has a header, but {why}"),
    ))
}

/// Two headers equal up to case would be the same HTTP header.
pub(super) fn unique_headers(cx: &Ctxt, params: &[Param]) {
    let mut seen: Vec<String> = Vec::new();
    for param in params {
        let Some(header) = &param.header else {
            continue;
        };
        let value = header.name.value();
        if seen.iter().any(|s| s.eq_ignore_ascii_case(&value)) {
            cx.error_at(
                header.name.span(),
                format!(
                    "the header `{value}` is used twice in this tool (header names are case-insensitive); give each argument its own"
                ),
            );
        }
        seen.push(value);
    }
}
