//! What `#[resource]`'s expansion names (through `__private`): the
//! conversion of a template variable into a parameter, of the fn's return
//! value into contents, and the `State<T>` a read takes. Each trait
//! carries the note rustc shows when a user's type does not fit.

use super::{Resource, ResourceBuilder, ResourceError, ResourceRead};
use crate::protocol::model::ResourceContents;
use crate::state::State;
use std::fmt::Display;
use std::str::FromStr;

/// What a `#[resource]` parameter named after a template variable must be.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a #[resource] template variable",
    label = "this type must implement FromStr",
    note = "use String, a number, or a type that implements FromStr (with an error that implements Display); wrap it in Option for a {{?query}} variable"
)]
pub trait Variable: Sized {
    /// The value from its percent-decoded text, or why not.
    fn parse_variable(text: &str) -> Result<Self, String>;
}

#[diagnostic::do_not_recommend]
impl<T: FromStr> Variable for T
where
    T::Err: Display,
{
    fn parse_variable(text: &str) -> Result<T, String> {
        text.parse().map_err(|e: T::Err| e.to_string())
    }
}

/// The value of template variable `name`, converted; a URI without it or
/// with a value that does not convert is the client's error (`-32602`).
pub fn variable<T: Variable>(read: &ResourceRead, name: &str) -> Result<T, ResourceError> {
    let Some(text) = read.variable(name) else {
        return Err(ResourceError::InvalidUri(format!(
            "the URI gives no value for `{name}`"
        )));
    };
    T::parse_variable(text).map_err(|reason| {
        ResourceError::InvalidUri(format!("the value of `{name}` is not valid: {reason}"))
    })
}

/// [`variable`] for a parameter of type `Option<T>`: `None` when the URI
/// leaves the (query) variable out.
pub fn optional_variable<T: Variable>(
    read: &ResourceRead,
    name: &str,
) -> Result<Option<T>, ResourceError> {
    match read.variable(name) {
        None => Ok(None),
        Some(_) => variable(read, name).map(Some),
    }
}

/// The `State<T>` a read takes.
pub fn resource_state<T: 'static>(read: &ResourceRead) -> Result<State<T>, ResourceError> {
    read.state::<T>().ok_or_else(|| {
        ResourceError::Failed(format!(
            "this server has no State<{}> registered",
            core::any::type_name::<T>()
        ))
    })
}

/// What a `#[resource]` fn may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[resource]",
    label = "return contents",
    note = "return String (text), Vec<u8> (bytes, sent base64), ResourceContents, Vec<ResourceContents>, or a Result of one of them"
)]
pub trait IntoContents {
    /// The contents, for the URI `read` asked for.
    fn into_contents(self, read: &ResourceRead) -> Vec<ResourceContents>;
}

impl IntoContents for String {
    fn into_contents(self, read: &ResourceRead) -> Vec<ResourceContents> {
        vec![read.text(self)]
    }
}

impl IntoContents for &'static str {
    fn into_contents(self, read: &ResourceRead) -> Vec<ResourceContents> {
        vec![read.text(self)]
    }
}

impl IntoContents for Vec<u8> {
    fn into_contents(self, read: &ResourceRead) -> Vec<ResourceContents> {
        vec![read.blob(&self)]
    }
}

impl IntoContents for ResourceContents {
    fn into_contents(self, _: &ResourceRead) -> Vec<ResourceContents> {
        vec![self]
    }
}

impl IntoContents for Vec<ResourceContents> {
    fn into_contents(self, _: &ResourceRead) -> Vec<ResourceContents> {
        self
    }
}

/// A `#[resource]` fn's return value as the read's result: contents, or a
/// `Result` whose error becomes a failed read.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a #[resource]",
    label = "return contents",
    note = "return String (text), Vec<u8> (bytes, sent base64), ResourceContents, Vec<ResourceContents>, or a Result of one of them whose error implements Display"
)]
pub trait IntoReadResult {
    /// The read's result.
    fn into_read_result(self, read: &ResourceRead) -> Result<Vec<ResourceContents>, ResourceError>;
}

#[diagnostic::do_not_recommend]
impl<T: IntoContents> IntoReadResult for T {
    fn into_read_result(self, read: &ResourceRead) -> Result<Vec<ResourceContents>, ResourceError> {
        Ok(self.into_contents(read))
    }
}

#[diagnostic::do_not_recommend]
impl<T: IntoContents, E: Display> IntoReadResult for Result<T, E> {
    fn into_read_result(self, read: &ResourceRead) -> Result<Vec<ResourceContents>, ResourceError> {
        match self {
            Ok(value) => Ok(value.into_contents(read)),
            Err(error) => Err(ResourceError::Failed(error.to_string())),
        }
    }
}

/// The resource `#[resource]` declared: its URI, name and priority were
/// checked at compile time, so building cannot fail.
pub fn built(builder: ResourceBuilder) -> Resource {
    match builder.build() {
        Ok(resource) => resource,
        Err(error) => unreachable!("#[resource] checks its declaration: {error}"),
    }
}
