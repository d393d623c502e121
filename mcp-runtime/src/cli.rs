//! The command line of a server binary, handled only when `main` asks for it:
//! [`run`] reads the process arguments, serves stdio or prints the tools
//! (`--dump-tools`), and reports startup mistakes with an exit status. The
//! rest of the library never reads arguments, prints or exits.
//!
//! ```no_run
//! use mcpfn_runtime::{Server, tool, tools};
//!
//! /// Say hello.
//! #[tool]
//! async fn hello(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> std::io::Result<()> {
//!     let server = Server::new("hello", env!("CARGO_PKG_VERSION")).tools(tools![hello]);
//!     mcpfn_runtime::cli::run(server).await
//! }
//! ```

use crate::dump::{DumpFormat, UnknownDumpFormat};
use crate::server::Server;
use std::io::{self, Write};

/// Runs `server` as the whole program, as its command line asks:
///
/// - no `--dump-tools` flag: serves stdin/stdout with
///   [`Server::serve_stdio`]; other arguments are left to the program;
/// - `--http ADDR` or `--http=ADDR` (with the `http` feature): serves
///   Streamable HTTP at path `/mcp` on `ADDR` (e.g. `127.0.0.1:8931`) with
///   `Server::serve_http` until SIGTERM or SIGINT; without the
///   feature the flag is an error (exit status 2);
/// - `--dump-tools [FORMAT]` or `--dump-tools=FORMAT`: serves nothing, prints
///   the tools in `FORMAT` (see [`DumpFormat`]; `mcp` by default) on stdout,
///   their sizes and warnings (tools and arguments without a description,
///   tool names a model API format had to map) on stderr, and returns.
///
/// Mistakes end the process with `error: …` on stderr (the error's `Display`
/// form, as a command-line parser reports a bad flag; returned from `main`,
/// it would be printed with `Debug`) and nothing on stdout:
///
/// - an unknown format: exit status 2;
/// - tools that cannot be dumped in the format (see
///   [`DumpFormat::OpenAiStrict`]), or two tools whose names a model API
///   format maps to one ([`Error::ModelNameCollision`](crate::Error::ModelNameCollision)): exit status 1;
/// - a registration mistake (two tools with one name, an invalid name, a
///   `State<T>` never registered; see [`Error`](crate::Error)), when dumping
///   or before serving: exit status 1, e.g.
///   `error: two tools are named "lookup"`.
///
/// Errors while serving are returned, as [`Server::serve_stdio`] returns them.
pub async fn run(server: Server) -> io::Result<()> {
    match dump_flag(std::env::args().skip(1)) {
        Ok(Some(format)) => print_dump(&server, format),
        Ok(None) => {
            if let Err(err) = server.check_registration() {
                exit_with_error(1, &err.to_string());
            }
            match value_flag("--http", std::env::args().skip(1)) {
                Ok(None) => server.serve_stdio().await,
                Ok(Some(addr)) => serve_http(server, &addr).await,
                Err(message) => exit_with_error(2, &message),
            }
        }
        Err(message) => exit_with_error(2, &message),
    }
}

#[cfg(feature = "http")]
async fn serve_http(server: Server, addr: &str) -> io::Result<()> {
    server.serve_http(addr).await
}

#[cfg(not(feature = "http"))]
async fn serve_http(_server: Server, _addr: &str) -> io::Result<()> {
    exit_with_error(
        2,
        "--http needs mcp-runtime's `http` feature; this program was built without it",
    )
}

/// The value of `--flag VALUE` or `--flag=VALUE`, if the flag is present;
/// a flag without a value is an error.
fn value_flag(flag: &str, args: impl Iterator<Item = String>) -> Result<Option<String>, String> {
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let value = match arg.strip_prefix(flag) {
            Some("") => args.next_if(|next| !next.starts_with('-')),
            Some(rest) => match rest.strip_prefix('=') {
                Some(value) => Some(value.to_owned()),
                None => continue,
            },
            None => continue,
        };
        return match value {
            Some(value) if !value.is_empty() => Ok(Some(value)),
            _ => Err(format!(
                "{flag} needs an address, e.g. {flag} 127.0.0.1:8931"
            )),
        };
    }
    Ok(None)
}

/// `--dump-tools`: the dump on stdout, the size report on stderr.
fn print_dump(server: &Server, format: DumpFormat) -> io::Result<()> {
    let dump = match server.dump(format) {
        Ok(dump) => dump,
        Err(err) => exit_with_error(1, &err.to_string()),
    };
    let mut text = serde_json::to_string_pretty(&dump.to_json()).map_err(io::Error::other)?;
    text.push('\n');
    let mut stdout = io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    eprint!("{}", dump.size_report());
    Ok(())
}

/// Ends a run that cannot start: a plain message, not the `Debug` form of an
/// error that `main` returning `Err` would print.
fn exit_with_error(code: i32, message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(code)
}

/// The format asked for by `--dump-tools FORMAT`, `--dump-tools=FORMAT` or
/// a bare `--dump-tools` (`mcp`), if the flag is present; an unknown format
/// is an error, not a silent default.
fn dump_flag(args: impl Iterator<Item = String>) -> Result<Option<DumpFormat>, String> {
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let format = match arg.strip_prefix("--dump-tools") {
            Some("") => args
                .next_if(|next| !next.starts_with('-'))
                .unwrap_or_else(|| "mcp".to_owned()),
            Some(rest) => match rest.strip_prefix('=') {
                Some(format) => format.to_owned(),
                None => continue,
            },
            None => continue,
        };
        return format
            .parse()
            .map(Some)
            .map_err(|unknown: UnknownDumpFormat| unknown.to_string());
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProtocolVersion;

    fn flag(args: &[&str]) -> Result<Option<DumpFormat>, String> {
        dump_flag(args.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn without_the_flag_the_server_serves() {
        assert_eq!(flag(&[]).unwrap(), None);
        assert_eq!(flag(&["--verbose"]).unwrap(), None);
        assert_eq!(flag(&["--dump-toolsx"]).unwrap(), None);
        assert_eq!(flag(&["dump-tools"]).unwrap(), None);
    }

    #[test]
    fn a_bare_flag_dumps_mcp() {
        let mcp = Some(DumpFormat::Mcp(ProtocolVersion::V2025_11_25));
        assert_eq!(flag(&["--dump-tools"]).unwrap(), mcp);
        assert_eq!(flag(&["--dump-tools", "--verbose"]).unwrap(), mcp);
    }

    #[test]
    fn the_format_is_the_next_argument_or_after_equals() {
        assert_eq!(
            flag(&["x", "--dump-tools=openai"]).unwrap(),
            Some(DumpFormat::OpenAi)
        );
        assert_eq!(
            flag(&["--dump-tools", "anthropic"]).unwrap(),
            Some(DumpFormat::Anthropic)
        );
        assert_eq!(
            flag(&["--dump-tools", "openai-strict", "--dump-tools=mcp"]).unwrap(),
            Some(DumpFormat::OpenAiStrict),
            "the first flag wins"
        );
    }

    #[test]
    fn the_http_flag_takes_an_address() {
        let http = |args: &[&str]| value_flag("--http", args.iter().map(|s| (*s).to_owned()));
        assert_eq!(http(&[]).unwrap(), None);
        assert_eq!(
            http(&["--http", "127.0.0.1:1"]).unwrap().as_deref(),
            Some("127.0.0.1:1")
        );
        assert_eq!(
            http(&["--http=[::1]:2"]).unwrap().as_deref(),
            Some("[::1]:2")
        );
        assert!(http(&["--http"]).is_err());
        assert!(http(&["--http", "--verbose"]).is_err());
        assert_eq!(http(&["--https"]).unwrap(), None);
    }

    #[test]
    fn an_unknown_or_empty_format_is_an_error() {
        assert!(flag(&["--dump-tools=yaml"]).is_err());
        assert!(
            flag(&["--dump-tools", "yaml"])
                .unwrap_err()
                .contains("unknown dump format `yaml`")
        );
        assert!(flag(&["--dump-tools="]).is_err());
    }
}
