//! `mcp-host approvals list` and `mcp-host approvals revoke SERVER[/TOOL]`:
//! the "always" answers `--approve ask` keeps across runs
//! ([`KeptApprovals`]), in `approvals.json` beside the `--pins` file, else
//! in the user's config directory (`$XDG_CONFIG_HOME/mcp-host`, else
//! `~/.config/mcp-host`), beside the OAuth store.

use mcpfn_host::agent::kept::{FILE_NAME, KeptApprovals};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `approvals` is told to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ApprovalsCommand {
    /// One line per approval.
    List,
    /// Removes those of a server, or of one of its tools (`*`: the whole
    /// server's approval).
    Revoke(String),
}

/// `approvals list|revoke SERVER[/TOOL] [--pins PATH]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ApprovalsArgs {
    pub(crate) command: ApprovalsCommand,
    /// The pins file the approvals are kept beside.
    pub(crate) pins: Option<PathBuf>,
}

/// Parses the words after `approvals`: `None` when they ask for help.
pub(crate) fn parse(args: impl Iterator<Item = String>) -> Result<Option<ApprovalsArgs>, String> {
    let mut args = args;
    let mut words = Vec::new();
    let mut pins = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => return Ok(None),
            "--pins" => pins = Some(PathBuf::from(args.next().ok_or("--pins needs a value")?)),
            _ if arg.starts_with("--pins=") => pins = Some(PathBuf::from(&arg["--pins=".len()..])),
            _ if arg.starts_with('-') => {
                return Err(format!("`{arg}` is not a flag of `mcp-host approvals`"));
            }
            _ => words.push(arg),
        }
    }
    let command = match words.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["list"] => ApprovalsCommand::List,
        ["revoke", target] if !target.is_empty() && !target.starts_with('/') => {
            ApprovalsCommand::Revoke(target.to_owned())
        }
        ["revoke", ..] => {
            return Err("`mcp-host approvals revoke` takes one SERVER or SERVER/TOOL".into());
        }
        _ => {
            return Err(
                "`mcp-host approvals` is followed by `list` or `revoke SERVER[/TOOL]`".into(),
            );
        }
    };
    Ok(Some(ApprovalsArgs { command, pins }))
}

/// The approvals file: `approvals.json` beside `pins`, else in the user's
/// config directory; `None` when there is neither.
pub(crate) fn path(pins: Option<&Path>) -> Option<PathBuf> {
    match pins {
        Some(pins) => Some(
            pins.parent()
                .unwrap_or_else(|| Path::new(""))
                .join(FILE_NAME),
        ),
        None => config_dir().map(|dir| dir.join(FILE_NAME)),
    }
}

/// `$XDG_CONFIG_HOME/mcp-host`, else `~/.config/mcp-host`: where the OAuth
/// store keeps its directory.
fn config_dir() -> Option<PathBuf> {
    #[cfg(feature = "oauth")]
    {
        mcpfn_client::auth::FileStore::default_dir("mcp-host")
            .and_then(|oauth| oauth.parent().map(Path::to_path_buf))
    }
    #[cfg(not(feature = "oauth"))]
    {
        None
    }
}

/// The approvals `--approve ask` starts with: the file's, or (no file
/// can be named) the run's only, said on stderr.
pub(crate) fn open(pins: Option<&Path>) -> Result<KeptApprovals, String> {
    match path(pins) {
        Some(path) => KeptApprovals::open(path).map_err(|e| e.to_string()),
        None => {
            eprintln!(
                "mcp-host: no directory for the approvals (neither XDG_CONFIG_HOME nor HOME is set, and no --pins): \"always\" answers hold for this run only"
            );
            Ok(KeptApprovals::in_memory())
        }
    }
}

/// Runs `approvals list` or `approvals revoke`.
pub(crate) fn run(args: ApprovalsArgs) -> ExitCode {
    let Some(path) = path(args.pins.as_deref()) else {
        eprintln!(
            "mcp-host: no directory for the approvals: neither XDG_CONFIG_HOME nor HOME is set (give --pins PATH)"
        );
        return ExitCode::from(2);
    };
    let mut kept = match KeptApprovals::open(&path) {
        Ok(kept) => kept,
        Err(e) => {
            eprintln!("mcp-host: {e}");
            return ExitCode::from(2);
        }
    };
    match args.command {
        ApprovalsCommand::List => {
            if kept.list().is_empty() {
                println!("no approvals kept in {}", path.display());
            }
            for approval in kept.list() {
                println!(
                    "{}/{} approved {}",
                    approval.server, approval.tool, approval.approved_at
                );
            }
            ExitCode::SUCCESS
        }
        ApprovalsCommand::Revoke(target) => {
            let removed = kept.revoke(&target);
            if removed.is_empty() {
                eprintln!(
                    "mcp-host: no approval matches `{target}` in {}",
                    path.display()
                );
                return ExitCode::FAILURE;
            }
            if let Err(e) = kept.save() {
                eprintln!("mcp-host: {e}");
                return ExitCode::FAILURE;
            }
            for approval in removed {
                println!(
                    "revoked {}/{} (approved {})",
                    approval.server, approval.tool, approval.approved_at
                );
            }
            ExitCode::SUCCESS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Parsed;

    fn parsed(words: &[&str]) -> Result<Parsed, String> {
        crate::cli::parse(words.iter().map(|w| (*w).to_owned()))
    }

    #[test]
    fn approvals_takes_list_or_revoke_and_a_pins_file() {
        assert_eq!(
            parsed(&["approvals", "list"]),
            Ok(Parsed::Approvals(ApprovalsArgs {
                command: ApprovalsCommand::List,
                pins: None
            }))
        );
        assert_eq!(
            parsed(&["approvals", "revoke", "files/*", "--pins=p/pins.json"]),
            Ok(Parsed::Approvals(ApprovalsArgs {
                command: ApprovalsCommand::Revoke("files/*".into()),
                pins: Some(PathBuf::from("p/pins.json"))
            }))
        );
        assert_eq!(
            parsed(&["approvals", "revoke"]),
            Err("`mcp-host approvals revoke` takes one SERVER or SERVER/TOOL".into())
        );
        assert_eq!(
            parsed(&["approvals"]),
            Err("`mcp-host approvals` is followed by `list` or `revoke SERVER[/TOOL]`".into())
        );
        assert_eq!(
            path(Some(Path::new("p/pins.json"))),
            Some(PathBuf::from("p/approvals.json"))
        );
    }
}
