//! The command line: parsed by hand (ten flags do not need a parser
//! crate's build time), both `--flag value` and `--flag=value`; its usage
//! text is `usage`'s.

use crate::apis::{APIS, Api, default_api, named};
use crate::logging::LEVELS;
use mcpfn_host::agent::Overflow;
use std::path::PathBuf;
use std::time::Duration;
use tracing_subscriber::filter::LevelFilter;

/// `a`, `a or b`, `a, b or c`: the choices in an error message.
fn choices(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// Which approval policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ApproveKind {
    All,
    ReadOnly,
    /// `ask`; `read_only`: `--ask-read-only`, ask about the read-only tools
    /// of trusted servers too.
    Ask {
        read_only: bool,
    },
}

/// How answers are written (`--json`, `--stream`, `--events`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// Each answer's text once it is whole.
    Text,
    /// One JSON object per answer.
    Json,
    /// The text as it is written, the tool calls on stderr.
    Stream,
    /// Every event as a JSON line, then the answer's.
    Events,
}

/// What of the conversation each request resends (`--history`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HistoryKind {
    /// `all`.
    All,
    /// `last:N`.
    LastTurns(usize),
    /// `tokens:N`.
    Tokens(u64),
}

/// `--history`'s value.
fn history_kind(value: &str) -> Result<HistoryKind, String> {
    let wrong = || {
        format!("--history is all, last:N or tokens:N (N a positive whole number), not `{value}`")
    };
    let number = |n: &str| n.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(wrong);
    match value.split_once(':') {
        None if value == "all" => Ok(HistoryKind::All),
        Some(("last", n)) => Ok(HistoryKind::LastTurns(
            usize::try_from(number(n)?).map_err(|_| wrong())?,
        )),
        Some(("tokens", n)) => Ok(HistoryKind::Tokens(number(n)?)),
        _ => Err(wrong()),
    }
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Args {
    pub(crate) config: PathBuf,
    pub(crate) provider: &'static Api,
    pub(crate) model: Option<String>,
    pub(crate) system: Option<String>,
    pub(crate) max_turns: u32,
    pub(crate) line_timeout: Duration,
    pub(crate) max_tokens: u32,
    pub(crate) tool_timeout: Duration,
    pub(crate) api_timeout: Option<Duration>,
    pub(crate) approve: ApproveKind,
    pub(crate) close_grace: Duration,
    pub(crate) max_result_bytes: usize,
    pub(crate) max_tool_tokens: Option<usize>,
    pub(crate) pins: Option<PathBuf>,
    pub(crate) cache: bool,
    pub(crate) output: Output,
    pub(crate) history: HistoryKind,
    pub(crate) on_overflow: Overflow,
    pub(crate) start_timeout: Duration,
    pub(crate) restarts: u32,
    /// The caps on one server's tool listing (`--max-tools`, …).
    pub(crate) list_limits: mcpfn_client::ListLimits,
    /// `--log-level` or `--quiet`, the last given; `None`: `RUST_LOG`.
    pub(crate) log_level: Option<LevelFilter>,
}

/// The deadline of one line when `--line-timeout` says none: longer than
/// any answer a person waits for, short enough that a model API or a server
/// that stalls cannot hold a line for `--max-turns` × (60 s + 60 s).
const DEFAULT_LINE_TIMEOUT: Duration = Duration::from_secs(600);

impl Args {
    /// What a person at a terminal (stdin and stdout both) wants where the
    /// flags do not say: the answers streamed and the calls shown as
    /// `--stream` shows them; returns the log level then used unless
    /// `--log-level`, `--quiet` or `RUST_LOG` says otherwise (warn: no info
    /// lines between the answers).
    pub(crate) fn at_terminal(&mut self) -> LevelFilter {
        // No flag chooses `Text`: it is the default for pipes and files.
        if self.output == Output::Text {
            self.output = Output::Stream;
        }
        LevelFilter::WARN
    }
}

/// What `login` and `logout` are given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AuthArgs {
    pub(crate) config: PathBuf,
    pub(crate) server: String,
    /// `--device`: the device authorization grant.
    pub(crate) device: bool,
    /// `--browser`: the URL opened in a browser too.
    pub(crate) browser: bool,
}

/// A run, `--help`, or a login or logout.
#[derive(Debug, PartialEq)]
pub(crate) enum Parsed {
    Run(Box<Args>),
    Help,
    Login(AuthArgs),
    Logout(AuthArgs),
    Approvals(crate::approvals::ApprovalsArgs),
    /// `mcp-host web`: the run's flags and where the page is served.
    Web(Box<Args>, crate::web_args::WebArgs),
}

/// `login SERVER [--device] [--browser] --config PATH` and
/// `logout SERVER --config PATH` (`command` is the first word).
fn parse_auth(command: &str, args: impl Iterator<Item = String>) -> Result<Parsed, String> {
    let login = command == "login";
    let mut config = None;
    let mut server = None;
    let mut device = false;
    let mut browser = false;
    let mut args = args;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => return Ok(Parsed::Help),
            "--device" if login => device = true,
            "--browser" if login => browser = true,
            "--config" => {
                config = Some(PathBuf::from(args.next().ok_or("--config needs a value")?));
            }
            _ if arg.starts_with("--config=") => {
                config = Some(PathBuf::from(&arg["--config=".len()..]));
            }
            _ if arg.starts_with('-') => {
                return Err(format!("`{arg}` is not a flag of `mcp-host {command}`"));
            }
            _ if server.is_none() => server = Some(arg),
            _ => return Err(format!("`mcp-host {command}` takes one server name")),
        }
    }
    let args = AuthArgs {
        config: config.ok_or_else(|| format!("`mcp-host {command}` needs --config PATH"))?,
        server: server.ok_or_else(|| format!("`mcp-host {command}` needs a server name"))?,
        device,
        browser,
    };
    Ok(if login {
        Parsed::Login(args)
    } else {
        Parsed::Logout(args)
    })
}

fn positive(flag: &str, value: &str) -> Result<u32, String> {
    match value.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "{flag} takes a positive whole number, not `{value}`"
        )),
    }
}

fn seconds(flag: &str, value: &str) -> Result<Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{flag} takes a positive number of seconds, not `{value}`"))
}

/// A cap's value: a positive whole number.
fn cap(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{flag} takes a positive whole number, not `{value}`"))
}

/// Parses the arguments after the program name.
pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut args = args.into_iter().peekable();
    if let Some(command) = args.next_if(|a| a == "login" || a == "logout") {
        return parse_auth(&command, args);
    }
    if args.next_if(|a| a == "approvals").is_some() {
        return crate::approvals::parse(args).map(|a| a.map_or(Parsed::Help, Parsed::Approvals));
    }
    // `web`: the same flags, plus where the page is served.
    let mut web = args
        .next_if(|a| a == "web")
        .map(|_| crate::web_args::WebArgs::default());
    let mut config = None;
    let mut provider = default_api();
    let mut model = None;
    let mut system = None;
    let mut max_turns = 10;
    let mut max_tokens = 1024;
    let mut tool_timeout = Duration::from_secs(60);
    let mut api_timeout = None;
    let mut approve = ApproveKind::Ask { read_only: false };
    let mut ask_read_only = false;
    let mut close_grace = mcpfn_client::DEFAULT_CLOSE_GRACE;
    let mut max_result_bytes = mcpfn_host::agent::budget::DEFAULT_MAX_RESULT_BYTES;
    let mut max_tool_tokens = None;
    let mut output = None;
    let mut history = HistoryKind::All;
    let mut on_overflow = Overflow::Trim;
    let mut pins = None;
    let mut cache = true;
    let mut start_timeout = mcpfn_host::catalog::START_TIMEOUT;
    let mut restarts = mcpfn_client::DEFAULT_MAX_RESTARTS;
    let mut list_limits = mcpfn_client::ListLimits::default();
    let mut log_level = None;
    let mut line_timeout = DEFAULT_LINE_TIMEOUT;
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (arg, None),
        };
        match flag.as_str() {
            "--help" | "-h" => return Ok(Parsed::Help),
            "--json" | "--stream" | "--events" if inline.is_none() => {
                let chosen = match flag.as_str() {
                    "--json" => Output::Json,
                    "--stream" => Output::Stream,
                    _ => Output::Events,
                };
                if output.is_some_and(|o| o != chosen) {
                    return Err("--json, --stream and --events are exclusive".into());
                }
                output = Some(chosen);
                continue;
            }
            "--json" | "--stream" | "--events" => {
                return Err(format!("{flag} takes no value"));
            }
            "--no-cache" if inline.is_none() => {
                cache = false;
                continue;
            }
            "--no-cache" => return Err("--no-cache takes no value".into()),
            "--quiet" if inline.is_none() => {
                log_level = Some(LevelFilter::WARN);
                continue;
            }
            "--quiet" => return Err("--quiet takes no value".into()),
            "--ask-read-only" if inline.is_none() => {
                ask_read_only = true;
                continue;
            }
            "--ask-read-only" => return Err("--ask-read-only takes no value".into()),
            _ => {}
        }
        let mut value = || -> Result<String, String> {
            match &inline {
                Some(value) => Ok(value.clone()),
                None => args.next().ok_or_else(|| format!("{flag} needs a value")),
            }
        };
        match flag.as_str() {
            "--config" => config = Some(PathBuf::from(value()?)),
            "--provider" => {
                let name = value()?;
                provider = named(&name).ok_or_else(|| {
                    let names: Vec<&str> = APIS.iter().map(|api| api.name).collect();
                    format!("--provider is {}, not `{name}`", choices(&names))
                })?;
            }
            "--model" => model = Some(value()?),
            "--pins" => pins = Some(PathBuf::from(value()?)),
            "--system" => system = Some(value()?),
            "--max-turns" => max_turns = positive("--max-turns", &value()?)?,
            "--max-tokens" => max_tokens = positive("--max-tokens", &value()?)?,
            "--max-result-bytes" => {
                max_result_bytes = positive("--max-result-bytes", &value()?)? as usize;
            }
            "--max-tool-tokens" => {
                max_tool_tokens = Some(positive("--max-tool-tokens", &value()?)? as usize);
            }
            "--close-grace" => {
                let text = value()?;
                close_grace = text
                    .parse::<f64>()
                    .ok()
                    .filter(|s| *s >= 0.0)
                    .and_then(|s| Duration::try_from_secs_f64(s).ok())
                    .ok_or_else(|| {
                        format!("--close-grace takes a number of seconds (0 or more), not `{text}`")
                    })?;
            }
            "--tool-timeout" => tool_timeout = seconds("--tool-timeout", &value()?)?,
            "--line-timeout" => line_timeout = seconds("--line-timeout", &value()?)?,
            "--start-timeout" => start_timeout = seconds("--start-timeout", &value()?)?,
            "--restarts" => {
                let text = value()?;
                restarts = text.parse().map_err(|_| {
                    format!("--restarts takes a whole number (0 or more), not `{text}`")
                })?;
            }
            "--max-tools" => list_limits.max_tools = cap("--max-tools", &value()?)?,
            "--max-list-pages" => list_limits.max_pages = cap("--max-list-pages", &value()?)?,
            "--max-list-bytes" => list_limits.max_bytes = cap("--max-list-bytes", &value()?)?,
            "--max-list-memory" => {
                list_limits.max_tree_bytes = cap("--max-list-memory", &value()?)?;
            }
            "--log-level" => {
                let name = value()?;
                log_level = Some(
                    LEVELS
                        .iter()
                        .find(|(level, _)| *level == name)
                        .map(|(_, filter)| *filter)
                        .ok_or_else(|| {
                            let names: Vec<&str> = LEVELS.iter().map(|(n, _)| *n).collect();
                            format!("--log-level is {}, not `{name}`", choices(&names))
                        })?,
                );
            }
            "--api-timeout" => api_timeout = Some(seconds("--api-timeout", &value()?)?),
            "--port" | "--bind" if let Some(web) = &mut web => web.set(&flag, &value()?)?,
            "--approve" => {
                approve = match value()?.as_str() {
                    "all" => ApproveKind::All,
                    "read-only" => ApproveKind::ReadOnly,
                    "ask" => ApproveKind::Ask { read_only: false },
                    other => {
                        return Err(format!("--approve is all, read-only or ask, not `{other}`"));
                    }
                }
            }
            "--history" => history = history_kind(&value()?)?,
            "--on-overflow" => {
                on_overflow = match value()?.as_str() {
                    "trim" => Overflow::Trim,
                    "summarize" => Overflow::Summarize,
                    other => {
                        return Err(format!("--on-overflow is trim or summarize, not `{other}`"));
                    }
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let config = config.ok_or("--config PATH is required")?;
    if web.is_some() && output.is_some() {
        return Err("--json, --stream and --events write stdout's answers: `mcp-host web` shows them on its page".into());
    }
    if ask_read_only {
        match &mut approve {
            ApproveKind::Ask { read_only } => *read_only = true,
            ApproveKind::All | ApproveKind::ReadOnly => {
                return Err("--ask-read-only goes with --approve ask".into());
            }
        }
    }
    let args = Box::new(Args {
        config,
        provider,
        model,
        system,
        max_turns,
        line_timeout,
        max_tokens,
        tool_timeout,
        api_timeout,
        approve,
        close_grace,
        max_result_bytes,
        max_tool_tokens,
        pins,
        cache,
        output: output.unwrap_or(Output::Text),
        start_timeout,
        restarts,
        list_limits,
        log_level,
        history,
        on_overflow,
    });
    Ok(match web {
        Some(web) => Parsed::Web(args, web),
        None => Parsed::Run(args),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::usage;

    fn run(args: &[&str]) -> Result<Args, String> {
        match parse(args.iter().map(|a| a.to_string()))? {
            Parsed::Run(args) => Ok(*args),
            Parsed::Help => Err("help".into()),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn defaults_are_the_contracts() {
        let args = run(&["--config", "mcp.json"]).unwrap();
        assert_eq!(
            args,
            Args {
                config: "mcp.json".into(),
                provider: named("anthropic").unwrap(),
                model: None,
                system: None,
                max_turns: 10,
                line_timeout: Duration::from_secs(600),
                max_tokens: 1024,
                tool_timeout: Duration::from_secs(60),
                api_timeout: None,
                approve: ApproveKind::Ask { read_only: false },
                close_grace: Duration::from_secs(2),
                max_result_bytes: 100_000,
                max_tool_tokens: None,
                pins: None,
                cache: true,
                output: Output::Text,
                history: HistoryKind::All,
                on_overflow: Overflow::Trim,
                start_timeout: Duration::from_secs(30),
                restarts: 3,
                list_limits: mcpfn_client::ListLimits::default(),
                log_level: None,
            }
        );
    }

    #[test]
    fn every_flag_is_read_in_both_forms() {
        let args = run(&[
            "--config=c.json",
            "--provider",
            "openai",
            "--model=gpt-x",
            "--system",
            "简洁",
            "--max-turns",
            "3",
            "--max-tokens=77",
            "--tool-timeout",
            "1.5",
            "--line-timeout=90",
            "--api-timeout=2.5",
            "--approve",
            "read-only",
            "--close-grace=0.25",
            "--max-result-bytes=5000",
            "--max-tool-tokens",
            "3000",
            "--pins",
            "p.json",
            "--no-cache",
            "--json",
            "--history",
            "last:3",
            "--on-overflow=summarize",
            "--start-timeout=90",
            "--restarts",
            "0",
            "--log-level",
            "debug",
        ])
        .unwrap();
        assert_eq!(
            (args.history, args.on_overflow),
            (HistoryKind::LastTurns(3), Overflow::Summarize)
        );
        assert_eq!(args.provider.name, "openai");
        assert_eq!(
            (args.model.as_deref(), args.system.as_deref()),
            (Some("gpt-x"), Some("简洁"))
        );
        assert_eq!((args.max_turns, args.max_tokens), (3, 77));
        assert_eq!(args.tool_timeout, Duration::from_millis(1500));
        assert_eq!(args.line_timeout, Duration::from_secs(90));
        assert_eq!(args.api_timeout, Some(Duration::from_millis(2500)));
        assert_eq!(args.max_result_bytes, 5000);
        assert_eq!(args.max_tool_tokens, Some(3000));
        assert_eq!(args.pins, Some(PathBuf::from("p.json")));
        assert!(!args.cache);
        assert_eq!(
            (args.approve, args.output),
            (ApproveKind::ReadOnly, Output::Json)
        );
        assert_eq!(args.close_grace, Duration::from_millis(250));
        assert_eq!(
            (args.start_timeout, args.restarts, args.log_level),
            (Duration::from_secs(90), 0, Some(LevelFilter::DEBUG))
        );
    }

    #[test]
    fn quiet_is_log_level_warn_and_the_last_of_the_two_wins() {
        let level = |args: &[&str]| {
            let mut all = vec!["--config", "c"];
            all.extend_from_slice(args);
            run(&all).unwrap().log_level
        };
        assert_eq!(level(&["--quiet"]), Some(LevelFilter::WARN));
        assert_eq!(
            level(&["--quiet", "--log-level=off"]),
            Some(LevelFilter::OFF)
        );
        assert_eq!(
            level(&["--log-level", "trace", "--quiet"]),
            Some(LevelFilter::WARN)
        );
        assert_eq!(
            run(&["--config", "c", "--log-level", "loud"]).unwrap_err(),
            "--log-level is off, error, warn, info, debug or trace, not `loud`"
        );
        assert_eq!(
            run(&["--config", "c", "--quiet=yes"]).unwrap_err(),
            "--quiet takes no value"
        );
        assert_eq!(
            run(&["--config", "c", "--restarts", "-1"]).unwrap_err(),
            "--restarts takes a whole number (0 or more), not `-1`"
        );
        assert_eq!(
            run(&["--config", "c", "--start-timeout", "0"]).unwrap_err(),
            "--start-timeout takes a positive number of seconds, not `0`"
        );
    }

    #[test]
    fn login_and_logout_are_subcommands_before_the_flags() {
        let parsed =
            parse(["login", "weather", "--device", "--config=m.json"].map(String::from)).unwrap();
        assert_eq!(
            parsed,
            Parsed::Login(AuthArgs {
                config: "m.json".into(),
                server: "weather".into(),
                device: true,
                browser: false,
            })
        );
        let parsed = parse(["logout", "--config", "m.json", "weather"].map(String::from)).unwrap();
        assert!(
            matches!(parsed, Parsed::Logout(AuthArgs { ref server, device: false, .. }) if server == "weather")
        );
        assert_eq!(
            parse(["logout", "weather", "--device", "--config", "m"].map(String::from))
                .unwrap_err(),
            "`--device` is not a flag of `mcp-host logout`"
        );
        assert_eq!(
            parse(["login", "--config", "m"].map(String::from)).unwrap_err(),
            "`mcp-host login` needs a server name"
        );
    }

    #[test]
    fn ask_read_only_goes_with_ask_in_either_order() {
        for args in [
            &["--config", "c", "--ask-read-only"][..],
            &["--config", "c", "--ask-read-only", "--approve", "ask"],
            &["--config", "c", "--approve", "ask", "--ask-read-only"],
        ] {
            assert_eq!(
                run(args).unwrap().approve,
                ApproveKind::Ask { read_only: true },
                "{args:?}"
            );
        }
        assert_eq!(
            run(&["--config", "c", "--approve", "all", "--ask-read-only"]).unwrap_err(),
            "--ask-read-only goes with --approve ask"
        );
        assert_eq!(
            run(&["--config", "c", "--ask-read-only=yes"]).unwrap_err(),
            "--ask-read-only takes no value"
        );
    }

    #[test]
    fn mistakes_are_named() {
        assert_eq!(run(&[]).unwrap_err(), "--config PATH is required");
        assert_eq!(run(&["--config"]).unwrap_err(), "--config needs a value");
        assert!(
            run(&["--config", "c", "--max-turns", "0"])
                .unwrap_err()
                .contains("--max-turns")
        );
        assert!(
            run(&["--config", "c", "--close-grace", "-1"])
                .unwrap_err()
                .contains("--close-grace takes a number of seconds")
        );
        assert!(
            run(&["--config", "c", "--approve", "some"])
                .unwrap_err()
                .contains("not `some`")
        );
        assert!(run(&["--config", "c", "--tool-timeout", "-1"]).is_err());
        assert_eq!(
            run(&["--config", "c", "--api-timeout", "0"]).unwrap_err(),
            "--api-timeout takes a positive number of seconds, not `0`"
        );
        assert_eq!(
            run(&["--config", "c", "--verbose"]).unwrap_err(),
            "unknown argument `--verbose`"
        );
        assert_eq!(run(&["--help"]).unwrap_err(), "help");
        let history = |value: &str| run(&["--config", "c", "--history", value]).map(|a| a.history);
        assert_eq!(history("all"), Ok(HistoryKind::All));
        assert_eq!(history("last:2"), Ok(HistoryKind::LastTurns(2)));
        assert_eq!(history("tokens:7500"), Ok(HistoryKind::Tokens(7500)));
        for wrong in ["last:0", "last:", "tokens:-1", "some", "all:3", "last:x"] {
            assert_eq!(
                history(wrong).unwrap_err(),
                format!(
                    "--history is all, last:N or tokens:N (N a positive whole number), not `{wrong}`"
                )
            );
        }
        assert_eq!(
            run(&["--config", "c", "--on-overflow", "drop"]).unwrap_err(),
            "--on-overflow is trim or summarize, not `drop`"
        );
    }

    #[test]
    fn at_a_terminal_the_default_output_streams_and_a_chosen_one_stays() {
        let mut args = run(&["--config", "c"]).unwrap();
        assert_eq!(args.at_terminal(), LevelFilter::WARN);
        assert_eq!(args.output, Output::Stream);
        for (flag, output) in [("--json", Output::Json), ("--events", Output::Events)] {
            let mut args = run(&["--config", "c", flag]).unwrap();
            args.at_terminal();
            assert_eq!(args.output, output);
        }
        assert_eq!(
            run(&["--config", "c", "--line-timeout", "0"]).unwrap_err(),
            "--line-timeout takes a positive number of seconds, not `0`"
        );
    }

    #[test]
    fn json_stream_and_events_are_exclusive_outputs() {
        assert_eq!(
            run(&["--config", "c", "--stream"]).unwrap().output,
            Output::Stream
        );
        assert_eq!(
            run(&["--config", "c", "--events", "--events"])
                .unwrap()
                .output,
            Output::Events
        );
        assert_eq!(
            run(&["--config", "c", "--stream", "--json"]).unwrap_err(),
            "--json, --stream and --events are exclusive"
        );
        assert_eq!(
            run(&["--config", "c", "--events=1"]).unwrap_err(),
            "--events takes no value"
        );
    }

    #[test]
    fn the_listing_caps_have_flags() {
        let args = run(&[
            "--config",
            "c",
            "--max-tools",
            "5",
            "--max-list-pages",
            "6",
            "--max-list-bytes",
            "7",
            "--max-list-memory",
            "8",
        ])
        .unwrap();
        assert_eq!(
            args.list_limits,
            mcpfn_client::ListLimits {
                max_tools: 5,
                max_pages: 6,
                max_bytes: 7,
                max_tree_bytes: 8,
            }
        );
        assert_eq!(
            run(&["--config", "c", "--max-tools", "0"]).unwrap_err(),
            "--max-tools takes a positive whole number, not `0`"
        );
    }

    #[test]
    fn web_takes_the_runs_flags_and_where_to_serve() {
        let web = |args: &[&str]| parse(args.iter().map(|a| a.to_string()));
        let Ok(Parsed::Web(args, served)) = web(&[
            "web",
            "--config",
            "c.json",
            "--approve=all",
            "--port",
            "0",
            "--bind=::1",
        ]) else {
            panic!("not a web run");
        };
        assert_eq!(args.approve, ApproveKind::All);
        assert_eq!(args.config, PathBuf::from("c.json"));
        assert_eq!(
            served,
            crate::web_args::WebArgs {
                port: 0,
                bind: "::1".parse().unwrap()
            }
        );
        let Ok(Parsed::Web(_, served)) = web(&["web", "--config", "c"]) else {
            panic!("not a web run");
        };
        assert_eq!(served, crate::web_args::WebArgs::default());
        assert_eq!(served.bind.to_string(), "127.0.0.1");
        assert_eq!(
            web(&["web", "--config", "c", "--port", "70000"]).unwrap_err(),
            "--port takes a port number (0 to 65535; 0: any free port), not `70000`"
        );
        assert_eq!(
            web(&["web", "--config", "c", "--bind", "localhost"]).unwrap_err(),
            "--bind takes an IP address (127.0.0.1, ::1, 0.0.0.0, …), not `localhost`"
        );
        // Only `web` serves a page.
        assert_eq!(
            run(&["--config", "c", "--port", "1"]).unwrap_err(),
            "unknown argument `--port`"
        );
        assert_eq!(web(&["web", "--help"]).unwrap(), Parsed::Help);
        assert_eq!(
            web(&["web", "--config", "c", "--json"]).unwrap_err(),
            "--json, --stream and --events write stdout's answers: `mcp-host web` shows them on its page"
        );
    }

    #[test]
    fn the_usage_and_the_provider_choices_come_from_the_table() {
        assert_eq!(
            usage(),
            "\
usage: mcp-host --config PATH [--provider anthropic|openai] [--model NAME] [--system TEXT]
                [--max-turns N] [--max-tokens N] [--tool-timeout SECONDS]
                [--line-timeout SECONDS] [--api-timeout SECONDS] [--approve all|read-only|ask] [--ask-read-only]
                [--max-result-bytes N] [--max-tool-tokens N]
                [--close-grace SECONDS] [--pins PATH] [--no-cache]
                [--json | --stream | --events]
                [--history all|last:N|tokens:N] [--on-overflow trim|summarize]
                [--start-timeout SECONDS] [--restarts N] [--quiet] [--log-level LEVEL]
                [--max-tools N] [--max-list-pages N] [--max-list-bytes N] [--max-list-memory N]
       mcp-host login SERVER --config PATH [--device] [--browser]
       mcp-host logout SERVER --config PATH
       mcp-host approvals list|revoke SERVER[/TOOL] [--pins PATH]
       mcp-host web --config PATH [the flags above] [--port N] [--bind ADDRESS]

Reads one user message per line from stdin and answers each with the model,
calling the tools of the MCP servers in PATH (an mcp.json). Keys and endpoints:
ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL; OPENAI_API_KEY, OPENAI_BASE_URL.
Defaults: --provider anthropic, --model claude-sonnet-4-6 (openai: gpt-4.1),
--max-tokens 1024, --max-turns 10, --tool-timeout 60, --line-timeout 600,
--approve ask,
--max-result-bytes 100000 (text of one tool result sent to the model; of one
response's results together, four times that).
--line-timeout: the deadline of one line, its model requests and tool calls
included: past it the line is cut short as Ctrl-C cuts it (the calls under way
are cancelled), stderr says so, and with --json its line has stop_reason
\"timed_out\" and an error.
--api-timeout: the deadline of one model request, its retries included;
default: the time to write --max-tokens at 20 tokens/s, at least 60 s
(1024 -> 60 s, 8192 -> 410 s). A response whose body stops for 20 s is
retried within it.
--history: what of the conversation each request resends (default all).
  all: every message (within the API's 32 MB request limit);
  last:N: the first user message and the last N lines with their tool calls;
  tokens:N: at most N input tokens (system prompt and tools included,
  estimated from the last response's count plus 4 bytes a token for what
  came since); once over, the oldest lines are dropped down to 3/4 of N.
  The model forgets what is dropped. Lines are dropped whole: a tool call
  never loses its result.
--on-overflow: when a request does not fit the model's context window
  (\"prompt is too long\", context_length_exceeded), about half of the
  lines before the current one are dropped (trim, the default; the first
  user message kept) or replaced by a summary the model writes in one
  extra request (summarize), and the request is sent again, once; stderr
  and the --json line (\"trimmed\") say so.
A failed model request keeps the line's tool calls that ran, with their
results, in the history; its error line says how many (--json:
\"tool_calls_kept\").
--max-tool-tokens: a budget for the tool definitions of each request, in
tokens estimated as their JSON bytes / 4 (default: none). Past it, or past the
API's limit on tools per request (anthropic 10000, openai 128), tools are
offered on demand: anthropic's tool search with deferred loading, or a
`search_tools` tool the host answers from the same tools (openai).
In mcp.json, an entry's \"tools\": {\"allow\": [...], \"deny\": [...]} says which
of its tools are offered (MCP tool names, `*` for any characters; deny wins),
and \"disabled\": true leaves the server out.

--approve: all runs every call the model asks for; read-only runs what a
trusted server (mcp.json \"trusted\") marks readOnlyHint and declines the
rest; ask shows each call on the terminal (server, tool, a short form of its
input) and reads a line: y runs it once, t runs it and every later call of
that tool of that server, s runs it and every later call of any tool of that
server, n (or an empty line) declines it (the model is told the user
declined); any other line is not an answer and the question is asked again.
t and s are kept across runs, each for the definitions it approved, in
approvals.json beside the --pins file, else in $XDG_CONFIG_HOME/mcp-host
(else ~/.config/mcp-host); `mcp-host approvals list` shows them and
`mcp-host approvals revoke SERVER[/TOOL]` removes them (SERVER/* the one of
the whole server). Read-only tools of trusted servers run without
asking unless --ask-read-only. With no terminal, the calls that would be asked
are not run and the model is told no one could be asked.

Tool lists are live: a server that says its list changed (or whose ttlMs
passed) is listed again before the next model request; tools keep their names
and places. Each tool's definition is pinned by digest when first offered; a
changed definition, or a new tool of a server already pinned, is not offered
until approved: --approve ask shows the change on the terminal and asks; the
other modes leave it out with a warning. --pins PATH keeps the approved
definitions in a JSON file across runs (written atomically, owner-only), so a
change between runs is shown as one within a run; without it they last for
the run.

--no-cache: no prompt-caching breakpoints in Anthropic requests (by default
each carries `cache_control` on the last tool, the system prompt and the ends
of the previous and this request; cache reads cost 0.1x the input price,
writes 1.25x). OpenAI caches long prompts by itself whatever the flag says.
With --json, `usage` has `cache_creation_input_tokens` and
`cache_read_input_tokens` when the API reports them; `input_tokens` counts
the whole prompt, those included.

Commands, typed instead of a line (`//text` sends `/text` to the model):
/tools (every offered tool, by server), /servers (each server's state,
protocol version and counts), /resources (resources and templates, by
server), /prompt NAME key=value ... (a server's prompt as the next turn;
values quoted as in a shell; SERVER:NAME where two servers share NAME),
/skills (each server's skills), /skill NAME (a skill's SKILL.md, checked,
as the next turn), /help. @SERVER:URI in a line attaches that resource's contents (`@@` sends
`@`). A mistake is one stderr line; the conversation goes on. Listings go
to stdout (stderr with --json and --events). At a terminal (stdin and
stdout both) a line editor reads the lines: history, and Tab completes the
commands, prompt names, their arguments and values (the server's
completion/complete) and @SERVER: URIs, waiting at most 0.5 s for a
server; Ctrl-D ends the input, Ctrl-C at the prompt ends the program.

Ctrl-C (SIGINT) while a line is answered interrupts that line: the model
request and the tool calls under way are cancelled (their servers get
notifications/cancelled), the calls that ran stay in the history (a call cut
short with a result saying so), and the next line is read; with --json its
line has stop_reason \"interrupted\". A second Ctrl-C in the same line, or one
between lines, ends the program (status 130).

At the end of stdin (or on SIGINT/SIGTERM) each stdio server's stdin is
closed and it gets --close-grace seconds (default 2) to exit, then SIGTERM
and as long again, then SIGKILL, with the processes it started.

--start-timeout: how long each server may take to start and list its tools
(default 30). --restarts: how many times a server that dies is started again
(default 3): the first at once on its next call, each later one no sooner
than 1 s after the last start, then 2 s, 4 s, ... at most 30 s. An mcp.json
entry's \"startTimeout\" (seconds) and \"restarts\" override them for
that server.

The caps on one server's tool listing: --max-tools (default 1000) keeps its
first tools in list order and leaves the rest out with one warning;
--max-list-pages (default 100), --max-list-bytes (default 8388608) and
--max-list-memory (default 33554432, the parsed definitions' estimated memory)
leave out a server that passes one. An mcp.json entry's \"maxTools\",
\"maxListPages\", \"maxListBytes\" and \"maxListMemory\" override them for
that server.

Output: each answer's text on stdout, once it is whole, then a blank line
(at a terminal, stdin and stdout both, the default is --stream instead).
--json: one JSON object per answer instead. --stream: the text as the model
writes it (the responses are streamed), and each tool call on stderr as it
happens: `[server/tool {input}]` when the model asks for it (the input cut
to 80 bytes), `[tool: 12 ms]` or `[tool: failed after 12 ms]` when it
ends, `[tool: declined]` or `[tool: not run: why]`. --events: every event
of a line as one JSON object on stdout, tagged by \"event\" (text,
call_requested, call_approved, call_declined, call_not_run, call_started,
call_finished, usage), then the --json object tagged \"event\": \"answer\".
The three are exclusive; without any, nothing is streamed.

Logs go to stderr, by default at info (each tool call, each restart, each
server's stderr line; at a terminal, at warn). --quiet: warnings and errors only (--log-level warn);
--log-level off|error|warn|info|debug|trace. Without either, RUST_LOG is
read: level and target=level directives (RUST_LOG=mcpfn_host=debug,warn).

OAuth: an HTTP server without an `Authorization` header in PATH that answers
401 to its first request is authorized then: the stored token (refreshed when
need be), else a login whose URL is printed on stderr (the redirect comes
back to http://127.0.0.1:PORT/callback). The entry's \"oauth\": {\"clientId\",
\"clientSecret\", \"scopes\", \"redirectPort\"} sets the client; without
clientId the host registers itself. Registrations and tokens are kept, owner
only, in $XDG_CONFIG_HOME/mcp-host/oauth (else ~/.config/mcp-host/oauth).
login SERVER: log in now (--device: the device flow, printing a code and a
URL to open on any machine; --browser: also open the URL in a browser).
logout SERVER: forget the server's stored registrations and tokens.

web: the same agent (the same flags, history, pins, approvals and OAuth
store) with a page instead of stdin. Serves on 127.0.0.1 (--bind: another
address), --port N (default 8417; 0: any free port), and prints one line on
stdout: `mcp-host web: http://ADDRESS:PORT/?token=TOKEN` (64 hex digits).
The token is good once: opening the URL exchanges it for a session cookie
(HttpOnly, SameSite=Strict); every other request needs the cookie, a Host
that names this server (its address or localhost, with the port) and, when
it sends one, this page's Origin. The page: a Message box (Enter sends),
Send, Stop while a line runs (as Ctrl-C), the answer as it is written, each
tool call as a card (server, tool, input, progress, duration, outcome), and
with --approve ask the questions as buttons (Allow once, Always allow this
tool, Always allow this server, Deny: y, t, s and n). One line runs at a
time; every open page shows the same conversation, a reload included."
        );
        assert_eq!(
            run(&["--config", "c", "--provider", "gemini"]).unwrap_err(),
            "--provider is anthropic or openai, not `gemini`"
        );
        assert_eq!(choices(&["a", "b", "c"]), "a, b or c");
        assert_eq!(
            run(&["--config", "c", "--provider=anthropic"])
                .unwrap()
                .provider,
            default_api()
        );
    }
}
