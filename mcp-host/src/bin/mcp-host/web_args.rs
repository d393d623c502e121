//! Where `mcp-host web` serves its page: the `--port` and `--bind` flags.

use std::net::{IpAddr, Ipv4Addr};

/// The port of `mcp-host web` when `--port` names none.
pub(crate) const DEFAULT_PORT: u16 = 8417;

/// Where the page is served (`--port`, `--bind`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WebArgs {
    /// `0`: any free port.
    pub(crate) port: u16,
    /// `127.0.0.1` unless `--bind` names another address.
    pub(crate) bind: IpAddr,
}

impl Default for WebArgs {
    fn default() -> WebArgs {
        WebArgs {
            port: DEFAULT_PORT,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
        }
    }
}

impl WebArgs {
    /// Reads `--port` or `--bind`.
    pub(crate) fn set(&mut self, flag: &str, value: &str) -> Result<(), String> {
        match flag {
            "--port" => {
                self.port = value.parse().map_err(|_| {
                    format!(
                        "--port takes a port number (0 to 65535; 0: any free port), not `{value}`"
                    )
                })?;
            }
            _ => {
                self.bind = value.parse().map_err(|_| {
                    format!(
                        "--bind takes an IP address (127.0.0.1, ::1, 0.0.0.0, …), not `{value}`"
                    )
                })?;
            }
        }
        Ok(())
    }
}
