//! The `toolstream` command: a live demo, `parse` (events as NDJSON, OpenAI chunks, AG-UI
//! or human-readable; the format detected when not given), `serve` (a live browser view),
//! `formats`.

use clap::{Parser as ClapParser, Subcommand};
use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::Duration;
use toolstream::{Format, Framing, IdPrefix, Parser, ParserConfig, Tools};

mod demo;
mod output;

#[derive(ClapParser)]
#[command(
    name = "toolstream",
    version,
    about = "Parse streaming LLM responses into tool-call events",
    after_help = "With no command, runs the demo (the same as `toolstream demo`): a built-in \
                  stream replayed through the parser, each tool call rendered as it forms."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Replay pacing of the demo (2 = twice as fast, 0 = no pauses).
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
}

/// The framing names, for `--help`.
const FRAMINGS_HELP: &str = "Override the format's default framing: sse, ndjson, json-array, \
     json (JSON documents one after another, e.g. pretty-printed `jq .` output), eventstream \
     (AWS binary), text (raw model output), auto (from the first byte)";

#[derive(Subcommand)]
enum Command {
    /// Replay a built-in stream through the parser, rendering each tool call as it forms
    /// (what `toolstream` with no command does).
    Demo {
        /// Write the demo's stream (an OpenAI chat-completions SSE body) to FILE instead.
        #[arg(long, value_name = "FILE")]
        write: Option<String>,
        /// Replay pacing (2 = twice as fast, 0 = no pauses; default 1).
        #[arg(long)]
        speed: Option<f64>,
    },
    /// Parse a response body and print its events: NDJSON on stdout (or see --emit, --pretty).
    Parse {
        /// The wire format (see `toolstream formats`). Without it (or with `auto`), provider
        /// streams and their framing are detected from the first payload, and anything else
        /// is read as raw model text whose call syntax is detected from its first marker.
        #[arg(long, short)]
        format: Option<Format>,
        /// Input file, or `-` for stdin.
        #[arg(default_value = "-")]
        file: String,
        /// Raw model text in the syntax of a spec file (`-`: stdin) instead of --format:
        /// transformers' `response_template` JSON, a tokenizer_config.json holding one, or
        /// what `toolstream spec NAME` prints. A bad spec exits with 2 naming the key.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["format", "content"])]
        syntax: Option<String>,
        #[arg(long, help = FRAMINGS_HELP)]
        framing: Option<Framing>,
        /// Feed the input N bytes at a time (default: as read).
        #[arg(long)]
        chunk_size: Option<usize>,
        /// Add "offset": input bytes fed when the event was emitted.
        #[arg(long)]
        offsets: bool,
        /// Add tool_call_field / tool_call_field_end events: each argument value decoded
        /// as it streams, with its JSON Pointer and its kind (string, number, boolean,
        /// null).
        #[arg(long)]
        fields: bool,
        /// Envelope formats: route visible text through the scanner of text format F
        /// (for servers that leak unparsed calls into the content).
        #[arg(long, value_name = "F")]
        content: Option<Format>,
        /// Output: our events as NDJSON, or re-emitted as SSE: OpenAI chat.completion.chunk
        /// (openai-chat), OpenAI Responses `response.*` events (openai-responses), Anthropic
        /// Messages events (anthropic), or AG-UI events (ag-ui). A cut stream or a provider
        /// error ends each in that API's own error, never as a complete reply.
        #[arg(long, value_enum, default_value_t = output::Emit::Ndjson)]
        emit: output::Emit,
        /// `--emit ag-ui`: the thread id of RUN_STARTED / RUN_FINISHED (e.g. the
        /// RunAgentInput's threadId; default: a fresh random UUID).
        #[arg(long)]
        thread_id: Option<String>,
        /// `--emit ag-ui`: the run id; message ids start with it (default: a fresh random
        /// UUID).
        #[arg(long)]
        run_id: Option<String>,
        /// `--emit openai-chat`: OpenAI's `stream_options.include_usage` behaviour, usage in
        /// a chunk of its own with `"choices": []` (default: usage on the finish chunk).
        #[arg(long)]
        include_usage: bool,
        /// Human-readable output (colour on a terminal) instead of NDJSON; says the
        /// format and framing in use on stderr.
        #[arg(long, conflicts_with_all = ["emit", "offsets", "fields"])]
        pretty: bool,
        /// Say on stderr which format and framing are in use (detected or given).
        #[arg(long, short)]
        verbose: bool,
        #[command(flatten)]
        setup: SetupArgs,
    },
    /// Serve a page on 127.0.0.1 that replays FILE and renders each tool call as it forms.
    Serve {
        /// The recorded response body to replay, or `-` for stdin (read to its end first).
        file: String,
        /// The wire format (see `toolstream formats`). Without it (or with `auto`), detected
        /// from the input as `parse` does.
        #[arg(long, short)]
        format: Option<Format>,
        #[arg(long, help = FRAMINGS_HELP)]
        framing: Option<Framing>,
        /// Envelope formats: route visible text through the scanner of text format F
        /// (for servers that leak unparsed calls into the content).
        #[arg(long, value_name = "F")]
        content: Option<Format>,
        /// Port on 127.0.0.1 (default 0: a free port picked by the system; the URL is
        /// printed). The page answers only requests for 127.0.0.1:PORT / localhost:PORT.
        #[arg(long, short, default_value_t = 0)]
        port: u16,
        /// Replay pacing (2 = twice as fast, 0 = no pauses); the page's speed control
        /// changes it too.
        #[arg(long, default_value_t = 1.0)]
        speed: f64,
        #[command(flatten)]
        setup: SetupArgs,
    },
    /// Run an OpenAI-compatible proxy in front of UPSTREAM: streamed chat replies are parsed
    /// as they arrive and re-emitted as clean OpenAI chunks (with --content, calls leaked
    /// into `content` become `tool_calls`); a call to a tool the request did not declare,
    /// or a second call with `parallel_tool_calls: false`, cuts the upstream off at once.
    /// Other /v1/* routes pass through unchanged. GET /metrics (Prometheus), /healthz and
    /// / answer without the upstream; one access-log line per request goes to stderr
    /// (--log-format); SIGTERM or SIGINT drains the streams in flight, then exits 0.
    Proxy {
        /// The upstream server's base URL, with or without a trailing /v1
        /// (e.g. http://127.0.0.1:8000/v1): /v1/chat/completions goes to
        /// {base}/v1/chat/completions. https:// upstreams are checked against the
        /// system's roots and --upstream-ca.
        #[arg(long, value_name = "URL")]
        upstream: String,
        /// Address to listen on (port 0: any free port; the address is printed).
        #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        /// The format the upstream streams its chat replies in.
        #[arg(long, short, default_value = "openai-chat")]
        format: Format,
        /// Route the replies' visible text through the scanner of text format F (for
        /// servers that leak unparsed calls into `content`, e.g. hermes, qwen-xml,
        /// llama-pythonic).
        #[arg(long, value_name = "F")]
        content: Option<Format>,
        /// Route the replies' visible text through the scanner of a syntax spec file
        /// instead of --content F (see `parse --syntax`; a bad spec exits with 2).
        #[arg(long, value_name = "FILE", conflicts_with = "content")]
        syntax: Option<String>,
        /// Seconds to wait for the upstream's reply headers and for each next chunk.
        #[arg(long, value_name = "SECONDS", default_value_t = toolstream::proxy::DEFAULT_UPSTREAM_TIMEOUT_SECS as f64)]
        upstream_timeout: f64,
        /// The largest request body accepted, in bytes.
        #[arg(long, value_name = "BYTES", default_value_t = toolstream::proxy::DEFAULT_MAX_BODY_BYTES)]
        max_body_bytes: usize,
        /// How many client connections are served at once.
        #[arg(long, value_name = "N", default_value_t = toolstream::proxy::DEFAULT_MAX_CONNECTIONS)]
        max_connections: usize,
        /// Also answer requests for this Host: NAME (any port) or NAME:PORT; repeatable;
        /// '*' answers any Host. Without it the proxy answers only its own address
        /// literals and localhost (a page under another name gets 421: DNS rebinding).
        #[arg(long, value_name = "HOST")]
        allow_host: Vec<String>,
        /// How many ended streams the live page (GET /live) keeps besides those in flight;
        /// 0 turns the page and the recording off.
        #[arg(long, value_name = "N", default_value_t = toolstream::proxy::DEFAULT_LIVE_RECENT)]
        live_recent: usize,
        /// Also trust the CA certificate(s) in this PEM file for an https:// upstream (a
        /// private CA, or a self-signed server's certificate); repeatable.
        #[arg(long, value_name = "FILE")]
        upstream_ca: Vec<String>,
        /// Seconds a client has to send a request's body once its headers arrived (slower:
        /// 408).
        #[arg(long, value_name = "SECONDS", default_value_t = toolstream::proxy::DEFAULT_REQUEST_TIMEOUT_SECS as f64)]
        request_timeout: f64,
        /// Also answer browser requests from web pages of this origin (e.g.
        /// https://app.example; '*': any), with CORS headers; repeatable. Without it a
        /// request from another origin gets 403.
        #[arg(long, value_name = "ORIGIN")]
        allow_origin: Vec<String>,
        /// What an agent is told of a refused call: `text` (the reply ends with assistant
        /// text naming the tool and the reason, beside the machine-readable error) or
        /// `error` (the error only).
        #[arg(long, value_enum, default_value_t = OnRefusedArg::Text)]
        on_refused: OnRefusedArg,
        /// The `tool_choice` sent upstream when --content/--syntax is set: `keep` (the
        /// client's; on vLLM's 400 for a server without a tool parser, sent again as
        /// "none"), `none` (vLLM renders the tools and parses nothing; SGLang drops them)
        /// or `auto`.
        #[arg(long, value_enum, default_value_t = UpstreamToolChoiceArg::Keep)]
        upstream_tool_choice: UpstreamToolChoiceArg,
        /// The access log on stderr, one line per request when it ends (a stream: at its
        /// end): json (route, method, model, status, streamed, calls, repaired, refused,
        /// cut, upstream_status, ttfb_ms, first_call_ms, duration_ms, bytes_in, bytes_out;
        /// never headers or bodies), text, or off. GET /metrics has the same numbers for
        /// Prometheus; GET /healthz answers ok.
        #[arg(long, value_name = "FORMAT", default_value = "json")]
        log_format: toolstream::proxy::LogFormat,
        /// On SIGTERM or SIGINT: stop accepting, let requests in flight (streams included)
        /// finish for at most this many seconds, then exit 0.
        #[arg(long, value_name = "SECONDS", default_value_t = toolstream::proxy::DEFAULT_DRAIN_TIMEOUT_SECS as f64)]
        drain_timeout: f64,
        /// The parser options of `parse` (limits, reasoning, ids); the declared tools are
        /// each request's own (--tools and --allow-undeclared are refused here). Generated
        /// ids are unique per response unless --id-prefix is given.
        #[command(flatten)]
        setup: SetupArgs,
    },
    /// List the format names, one line each.
    Formats,
    /// Print a built-in text syntax as a spec file (JSON: transformers' response_template
    /// with a `toolstream` object) that `parse --syntax FILE` reads back.
    Spec {
        /// The format name (see `toolstream formats`).
        name: Format,
    },
}

fn main() -> ExitCode {
    if let Some(message) = misplaced_flag() {
        eprintln!("toolstream: {message}");
        return ExitCode::from(2);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        None => demo::run(cli.speed),
        Some(Command::Demo {
            write: Some(path), ..
        }) => demo::write(&path),
        // `toolstream --speed 2 demo` paces it too.
        Some(Command::Demo { write: None, speed }) => demo::run(speed.unwrap_or(cli.speed)),
        Some(Command::Formats) => {
            let mut out = io::stdout().lock();
            for f in Format::all() {
                let aliases: Vec<&str> = f.aliases().collect();
                let also = if aliases.is_empty() {
                    String::new()
                } else {
                    format!(" (also: {})", aliases.join(", "))
                };
                let _ = writeln!(out, "{:<18} {}{also}", f.name(), f.description());
            }
            Ok(())
        }
        Some(Command::Spec { name }) => match toolstream::Syntax::builtin(name) {
            Some(syntax) => {
                let text = serde_json::to_string_pretty(&syntax.to_json()).unwrap_or_default();
                // (A closed pipe, `| head`, is not an error to report.)
                let _ = writeln!(io::stdout().lock(), "{text}");
                Ok(())
            }
            None if name.default_framing() == Framing::Text => Err(format!(
                "{name} cannot be written as a spec yet: its engine is not driven by a syntax table (the toolstream::spec docs, \"What cannot be a spec yet\", list these formats)"
            )),
            None => Err(format!(
                "{name} is a provider's wire format, not a text syntax: it has no spec"
            )),
        },
        Some(Command::Parse {
            format,
            file,
            syntax,
            framing,
            chunk_size,
            offsets,
            fields,
            content,
            emit,
            thread_id,
            run_id,
            include_usage,
            pretty,
            verbose,
            setup,
        }) => {
            if (thread_id.is_some() || run_id.is_some()) && emit != output::Emit::AgUi {
                eprintln!("toolstream: --thread-id and --run-id go with --emit ag-ui");
                return ExitCode::from(2);
            }
            if emit != output::Emit::Ndjson && (offsets || fields) {
                eprintln!(
                    "toolstream: --offsets and --fields add to our NDJSON events; --emit {} has no place for them (drop them, or --emit ndjson)",
                    emit.name()
                );
                return ExitCode::from(2);
            }
            if include_usage && emit != output::Emit::OpenaiChat {
                eprintln!("toolstream: --include-usage goes with --emit openai-chat");
                return ExitCode::from(2);
            }
            let ids = output::AgUiIds { thread_id, run_id };
            let syntax = match syntax.as_deref().map(|path| read_syntax(path, &file)) {
                None => None,
                Some(Ok(s)) => Some(s),
                Some(Err(e)) => {
                    eprintln!("toolstream: {e}");
                    return ExitCode::from(2);
                }
            };
            let args = ParseArgs {
                format,
                syntax,
                file,
                framing,
                chunk_size,
                fields,
                content,
                verbose: verbose || pretty,
            };
            setup.load().and_then(|setup| {
                let output = output::Output::new(emit, offsets, pretty, ids, include_usage);
                parse(args, &setup, output)
            })
        }
        Some(Command::Serve {
            file,
            format,
            framing,
            content,
            port,
            speed,
            setup,
        }) => setup.load().and_then(|config| {
            toolstream::serve::run(&file, format, framing, content, port, speed, config)
        }),
        Some(Command::Proxy {
            upstream,
            listen,
            format,
            content,
            syntax,
            upstream_timeout,
            max_body_bytes,
            max_connections,
            allow_host,
            live_recent,
            upstream_ca,
            request_timeout,
            allow_origin,
            on_refused,
            upstream_tool_choice,
            log_format,
            drain_timeout,
            setup,
        }) => {
            if !(request_timeout.is_finite() && request_timeout > 0.0) {
                eprintln!("toolstream: --request-timeout: expected a positive number of seconds");
                return ExitCode::from(2);
            }
            if !(drain_timeout.is_finite() && drain_timeout >= 0.0) {
                eprintln!("toolstream: --drain-timeout: expected a number of seconds");
                return ExitCode::from(2);
            }
            if setup.tools.is_some() {
                eprintln!(
                    "toolstream: proxy does not take --tools: each request's own `tools` are the declared tools"
                );
                return ExitCode::from(2);
            }
            let keep_ids = setup.id_prefix.is_some();
            let parser = match setup.load() {
                Ok(p) if keep_ids => p,
                Ok(p) => p.id_prefix(IdPrefix::Unique),
                Err(e) => {
                    eprintln!("toolstream: {e}");
                    return ExitCode::from(2);
                }
            };
            let syntax = match syntax.as_deref().map(|path| read_syntax(path, "")) {
                None => None,
                Some(Ok(s)) => Some(s),
                Some(Err(e)) => {
                    eprintln!("toolstream: {e}");
                    return ExitCode::from(2);
                }
            };
            let content = match (content, syntax) {
                (_, Some(s)) => ProxyContent::Syntax(Box::new(s)),
                (Some(f), None) => ProxyContent::Format(f),
                (None, None) => ProxyContent::None,
            };
            proxy_config(upstream, format, content, upstream_timeout)
                .and_then(|mut config| {
                    for file in upstream_ca {
                        let pem = std::fs::read(&file)
                            .map_err(|e| format!("--upstream-ca {file}: {e}"))?;
                        config = config.upstream_ca_pem(pem);
                    }
                    Ok(config)
                })
                .map(|config| {
                    let mut config = config
                        .parser_config(parser)
                        .request_timeout(Duration::from_secs_f64(request_timeout.min(1e9)))
                        .on_refused(on_refused.into())
                        .upstream_tool_choice(upstream_tool_choice.into())
                        .max_body_bytes(max_body_bytes)
                        .max_connections(max_connections)
                        .live_recent(live_recent)
                        .log_format(log_format)
                        .drain_timeout(Duration::from_secs_f64(drain_timeout.min(1e9)));
                    for host in allow_host {
                        config = config.allow_host(host);
                    }
                    for origin in allow_origin {
                        config = config.allow_origin(origin);
                    }
                    config
                })
                .and_then(|config| run_proxy(listen, config))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolstream: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--on-refused`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum OnRefusedArg {
    Text,
    Error,
}

impl From<OnRefusedArg> for toolstream::proxy::OnRefused {
    fn from(a: OnRefusedArg) -> Self {
        match a {
            OnRefusedArg::Text => Self::Text,
            OnRefusedArg::Error => Self::Error,
        }
    }
}

/// `--upstream-tool-choice`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum UpstreamToolChoiceArg {
    Keep,
    None,
    Auto,
}

impl From<UpstreamToolChoiceArg> for toolstream::proxy::UpstreamToolChoice {
    fn from(a: UpstreamToolChoiceArg) -> Self {
        match a {
            UpstreamToolChoiceArg::Keep => Self::Keep,
            UpstreamToolChoiceArg::None => Self::None,
            UpstreamToolChoiceArg::Auto => Self::Auto,
        }
    }
}

/// What reads the proxied replies' visible text (`--content` or `--syntax`).
enum ProxyContent {
    None,
    Format(Format),
    Syntax(Box<toolstream::Syntax>),
}

/// `toolstream proxy`'s upstream settings.
fn proxy_config(
    upstream: String,
    format: Format,
    content: ProxyContent,
    upstream_timeout: f64,
) -> Result<toolstream::proxy::ProxyConfig, String> {
    if !(upstream_timeout.is_finite() && upstream_timeout > 0.0) {
        return Err("--upstream-timeout: expected a positive number of seconds".into());
    }
    let config = toolstream::proxy::ProxyConfig::new(upstream)
        .format(format)
        .upstream_timeout(Duration::from_secs_f64(upstream_timeout.min(1e9)));
    Ok(match content {
        ProxyContent::None => config,
        ProxyContent::Format(f) => config.content_format(f),
        ProxyContent::Syntax(s) => config.content_syntax(*s),
    })
}

/// `toolstream proxy`: builds the runtime and serves until SIGTERM or SIGINT, then drains.
fn run_proxy(
    listen: std::net::SocketAddr,
    config: toolstream::proxy::ProxyConfig,
) -> Result<(), String> {
    use toolstream::proxy::Proxy;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    runtime.block_on(async move {
        let proxy = Proxy::bind(listen, config).await.map_err(|e| {
            if e.kind() == io::ErrorKind::AddrInUse {
                format!(
                    "proxy: {listen} is in use (another toolstream proxy?); pick another with --listen {}:0 or a free port",
                    listen.ip()
                )
            } else {
                format!("proxy: {listen}: {e}")
            }
        })?;
        let addr = proxy.local_addr().map_err(|e| format!("proxy: {e}"))?;
        // One write, and no panic when nobody reads stderr any more (a script that read
        // the first line and closed the pipe).
        let live = match proxy.live_url() {
            Some(url) => format!("\ntoolstream proxy: live page on {url}"),
            None => String::new(),
        };
        let _ = writeln!(
            io::stderr().lock(),
            "toolstream proxy: listening on http://{addr}/v1{live}"
        );
        let drain = proxy.drain_timeout();
        let signal = shutdown_signal()?;
        // Said once the listening socket is closed, so what reads the line and connects
        // is refused.
        let draining = proxy.draining();
        let announce = async move {
            if draining.await {
                let _ = writeln!(
                    io::stderr().lock(),
                    "toolstream proxy: draining (new connections refused; streams in flight get up to {} s)",
                    drain.as_secs_f64()
                );
            }
        };
        let announce = tokio::spawn(announce);
        let ran = proxy.run_until(signal).await;
        if ran.is_ok() {
            // Draining began before `run_until` returned: the line is out before "stopped".
            let _ = announce.await;
        } else {
            announce.abort();
        }
        ran.map_err(|e| format!("proxy: {e}"))?;
        let _ = writeln!(io::stderr().lock(), "toolstream proxy: stopped");
        Ok(())
    })
}

/// Completes at the first SIGTERM or SIGINT (Ctrl-C).
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term =
            signal(SignalKind::terminate()).map_err(|e| format!("proxy: SIGTERM: {e}"))?;
        let mut int = signal(SignalKind::interrupt()).map_err(|e| format!("proxy: SIGINT: {e}"))?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Parser options shared by `parse` and `serve`: each is one [`ParserConfig`] setter of
/// the same name (ParserConfig's doc lists them; `--allow-undeclared` is
/// `reject_undeclared(false)`, `--unique-ids` is `id_prefix(IdPrefix::Unique)`).
#[derive(clap::Args)]
struct SetupArgs {
    /// The request's declared tools: a JSON file holding an OpenAI-style `tools` array
    /// (Chat or Responses), an Anthropic one, or a request body with a `tools` field.
    /// Calls to other names become `undeclared_tool` errors; pythonic and bare-JSON
    /// calls count only for declared names; XML parameter values are typed by schema.
    #[arg(long, value_name = "FILE")]
    tools: Option<String>,
    /// With --tools: emit calls to undeclared names as calls instead of errors.
    #[arg(long, requires = "tools")]
    allow_undeclared: bool,
    /// Marker-less syntaxes (llama-pythonic, llama-json): only these names make a call
    /// (comma-separated, or the flag repeated).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    tool_names: Vec<String>,
    /// Marker-less syntaxes: a call only at the start of the output (later `[f(..)]` is
    /// text).
    #[arg(long)]
    calls_at_start_only: bool,
    /// Text formats: the output starts inside reasoning (the prompt opened `<think>`).
    #[arg(long)]
    reasoning_open: bool,
    /// Text formats: a reasoning tag pair replacing the syntax's defaults, as OPEN,CLOSE
    /// (e.g. '<reasoning>,</reasoning>'); repeat the flag for more pairs, the first one
    /// is what --reasoning-open opens.
    #[arg(long, value_name = "OPEN,CLOSE", value_parser = tag_pair)]
    reasoning_tags: Vec<(String, String)>,
    /// Generated call ids are PREFIX0, PREFIX1, ... (default `call_`: the same input
    /// gives the same ids).
    #[arg(long, value_name = "PREFIX", conflicts_with = "unique_ids")]
    id_prefix: Option<String>,
    /// Generated call ids get a prefix unique to this run (`call_<12 hex digits>_`), so
    /// they never repeat across the responses of an agent loop.
    #[arg(long)]
    unique_ids: bool,
    /// Bytes of one call's arguments (default 16 MiB).
    #[arg(long, value_name = "N")]
    max_argument_bytes: Option<usize>,
    /// Tool calls in one response (default 1024).
    #[arg(long, value_name = "N")]
    max_calls: Option<usize>,
    /// Bytes of text held back while it might start a call (default 64 KiB).
    #[arg(long, value_name = "N")]
    max_held_bytes: Option<usize>,
    /// Bytes of one SSE line or event, NDJSON line, JSON element or event-stream message
    /// (default 16 MiB).
    #[arg(long, value_name = "N")]
    max_line_bytes: Option<usize>,
    /// Nesting depth of JSON arguments (default 128).
    #[arg(long, value_name = "N")]
    max_depth: Option<usize>,
    /// End a call whose argument text repeats one period of up to 64 bytes more than N
    /// times in a row (an `error` of kind `repetition`: a runaway loop). Default: off.
    #[arg(long, value_name = "N")]
    max_repeats: Option<usize>,
    /// Check each call's arguments against its tool's JSON Schema as they stream (the
    /// --tools file's; in the proxy, the tools each request declares); a violation ends the
    /// call with an `error` of kind `schema_violation` (with `path`) at the first byte no
    /// valid continuation can follow, and the proxy cuts the upstream there.
    #[arg(long)]
    validate: bool,
    /// Text formats: a call written inside reasoning (before `</think>`, as Qwen 3.5 and
    /// Nemotron do) is extracted; the reasoning around it stays reasoning. Default: such
    /// a call is reasoning text.
    #[arg(long)]
    calls_in_reasoning: bool,
}

/// `--reasoning-tags OPEN,CLOSE`: split at the first comma, both sides non-empty.
fn tag_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once(',') {
        Some((open, close)) if !open.is_empty() && !close.is_empty() => {
            Ok((open.to_owned(), close.to_owned()))
        }
        _ => Err(format!(
            "expected OPEN,CLOSE (e.g. '<think>,</think>'), got {s:?}"
        )),
    }
}

impl SetupArgs {
    /// The parser options these arguments set; reads the tools file (an unreadable or
    /// malformed file is an error: exit 2).
    fn load(self) -> Result<ParserConfig, String> {
        let mut config = ParserConfig::new();
        if let Some(path) = &self.tools {
            let text = read_tools(path)?;
            let tools = Tools::from_json(&text).map_err(|e| format!("--tools {path}: {e}"))?;
            config = config
                .tools(tools)
                .reject_undeclared(!self.allow_undeclared);
        }
        if !self.tool_names.is_empty() {
            config = config.tool_names(self.tool_names);
        }
        if !self.reasoning_tags.is_empty() {
            config = config.reasoning_tags(&self.reasoning_tags);
        }
        config = config
            .calls_at_start_only(self.calls_at_start_only)
            .reasoning_open(self.reasoning_open)
            .calls_in_reasoning(self.calls_in_reasoning)
            .validate_arguments(self.validate);
        if let Some(prefix) = self.id_prefix {
            config = config.id_prefix(prefix);
        }
        if self.unique_ids {
            config = config.id_prefix(IdPrefix::Unique);
        }
        type Setter = fn(ParserConfig, usize) -> ParserConfig;
        let limits: [(Option<usize>, Setter); 6] = [
            (self.max_argument_bytes, ParserConfig::max_argument_bytes),
            (self.max_calls, ParserConfig::max_calls),
            (self.max_held_bytes, ParserConfig::max_held_bytes),
            (self.max_line_bytes, ParserConfig::max_line_bytes),
            (self.max_depth, ParserConfig::max_depth),
            (self.max_repeats, ParserConfig::max_repeats),
        ];
        for (value, set) in limits {
            if let Some(n) = value {
                config = set(config, n);
            }
        }
        Ok(config)
    }
}

/// A flag given to a command it does not belong to, with what to do instead (clap's own
/// message would only say it is unexpected).
fn misplaced_flag() -> Option<String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = args.iter().find(|a| !a.starts_with('-'))?;
    let speed = args
        .iter()
        .any(|a| a == "--speed" || a.starts_with("--speed="));
    if !speed {
        return None;
    }
    match command.as_str() {
        "parse" => Some(
            "`parse` does not take --speed: it writes each event as soon as its bytes are read \
             (--speed paces `serve` and the demo; --chunk-size N feeds N bytes at a time)"
                .to_owned(),
        ),
        "proxy" | "spec" | "formats" => Some(format!(
            "`{command}` does not take --speed (--speed paces `serve` and the demo)"
        )),
        _ => None,
    }
}

/// The `--tools` file, read up to [`toolstream::MAX_TOOLS_BYTES`]: a longer one is an
/// error naming the limit (found without reading the rest).
fn read_tools(path: &str) -> Result<String, String> {
    let limit = toolstream::MAX_TOOLS_BYTES;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read --tools {path}: {e}"))?;
    let mut bytes = Vec::new();
    // One byte past the limit tells a file that is too long from one that fits exactly.
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read --tools {path}: {e}"))?;
    if bytes.len() > limit {
        return Err(format!(
            "--tools {path}: the file is over the limit of {limit} bytes (16 MiB)"
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("--tools {path}: not UTF-8: {e}"))
}

/// The largest spec file `--syntax` reads.
const MAX_SPEC_BYTES: u64 = 1 << 20;

/// Reads `--syntax PATH` (`-`: stdin, unless the input `file` is stdin too).
fn read_syntax(path: &str, file: &str) -> Result<toolstream::Syntax, String> {
    if path == "-" && file == "-" {
        return Err("--syntax - reads the spec from stdin: give the input as a FILE".into());
    }
    let mut bytes = Vec::new();
    let read = if path == "-" {
        io::stdin()
            .lock()
            .take(MAX_SPEC_BYTES + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_SPEC_BYTES + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| format!("cannot read --syntax {path}: {e}"))?;
    if bytes.len() as u64 > MAX_SPEC_BYTES {
        return Err(format!(
            "--syntax {path}: the file is over the limit of {MAX_SPEC_BYTES} bytes"
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| format!("--syntax {path}: not UTF-8: {e}"))?;
    toolstream::Syntax::from_json(&text).map_err(|e| format!("--syntax {path}: {e}"))
}

/// What `parse` reads and how.
struct ParseArgs {
    /// `None` (or `Some(Format::Auto)`): detected from the input.
    format: Option<Format>,
    /// A syntax from `--syntax` (raw text; instead of `format`).
    syntax: Option<toolstream::Syntax>,
    file: String,
    framing: Option<Framing>,
    chunk_size: Option<usize>,
    fields: bool,
    content: Option<Format>,
    /// Say the format and framing in use on stderr.
    verbose: bool,
}

/// How `parse` settles the format and framing: from the given ones, or from the input's
/// first bytes (read until [`toolstream::detect::detect`] answers).
struct Choice {
    format: Format,
    framing: Framing,
    /// How they were chosen, for `-v`.
    how: &'static str,
}

/// Settles the format and framing from the arguments and the input's first bytes
/// (`head`, the whole input when `at_end`); `None` while more bytes are needed.
fn choose(args: &ParseArgs, head: &[u8], at_end: bool) -> Result<Option<Choice>, String> {
    use toolstream::detect::{detect, framing_of};
    if args.syntax.is_some() {
        // Raw model text in the spec's syntax (another framing only when asked for).
        return Ok(Some(Choice {
            format: Format::Auto,
            framing: args.framing.unwrap_or(Framing::Text),
            how: "given",
        }));
    }
    match args.format {
        None | Some(Format::Auto) => {
            let Some(found) = detect(head, at_end) else {
                return Ok(None);
            };
            if let Some(given) = args.framing
                && given != found.framing
                && !matches!(given, Framing::Text | Framing::Auto)
                && found.framing != Framing::Text
                && !(given == Framing::Json && found.framing == Framing::Ndjson)
            {
                return Err(format!(
                    "--framing {given}, but the input looks like {} (try --framing {}, or leave --framing out)",
                    framing_words(found.framing),
                    found.framing
                ));
            }
            let framing = args.framing.unwrap_or(found.framing);
            let format = match found.format {
                Some(f) => f,
                None => {
                    return Err(format!(
                        "the input looks like {} but no payload in its first {} bytes names a format; give --format (see `toolstream formats`)",
                        framing_words(found.framing),
                        head.len()
                    ));
                }
            };
            Ok(Some(Choice {
                format,
                framing,
                how: "detected",
            }))
        }
        Some(format) => {
            let default = format.default_framing();
            let configured = args.framing.unwrap_or(default);
            // Raw text takes any bytes, and `auto` picks for itself: nothing to check.
            if matches!(configured, Framing::Text | Framing::Auto) {
                return Ok(Some(Choice {
                    format,
                    framing: configured,
                    how: "given",
                }));
            }
            let Some(looks) = framing_of(head, at_end) else {
                return Ok(None);
            };
            let compatible = looks == configured
                || looks == Framing::Text
                || (configured == Framing::Json && looks == Framing::Ndjson);
            if compatible {
                return Ok(Some(Choice {
                    format,
                    framing: configured,
                    how: "given",
                }));
            }
            if args.framing.is_some() {
                return Err(format!(
                    "--framing {configured}, but the input looks like {} (try --framing {looks}, or leave --framing out)",
                    framing_words(looks)
                ));
            }
            Ok(Some(Choice {
                format,
                framing: looks,
                how: "framing detected",
            }))
        }
    }
}

/// A framing in words, for messages.
fn framing_words(framing: Framing) -> &'static str {
    match framing {
        Framing::Sse => "SSE (`data:` lines)",
        Framing::Ndjson => "NDJSON (one JSON object per line)",
        Framing::JsonArray => "a JSON array",
        Framing::Json => "pretty-printed JSON documents",
        Framing::EventStream => "an AWS event stream",
        _ => "raw text",
    }
}

fn parse(args: ParseArgs, setup: &ParserConfig, mut output: output::Output) -> Result<(), String> {
    let file = args.file.as_str();
    if args.chunk_size == Some(0) {
        return Err("--chunk-size must be at least 1".into());
    }
    let mut input: Box<dyn Read> = if file == "-" {
        let stdin = io::stdin();
        if stdin.is_terminal() {
            eprintln!(
                "toolstream: reading the response body from the terminal (end it with Ctrl-D; or give a FILE)"
            );
        }
        Box::new(stdin.lock())
    } else {
        Box::new(std::fs::File::open(file).map_err(|e| format!("cannot open {file}: {e}"))?)
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut events = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    // The first bytes, kept until the format and framing are settled.
    let mut head = Vec::new();
    let mut parser: Option<Parser> = None;
    let make = |choice: Choice| {
        if args.verbose {
            match &args.syntax {
                Some(s) => eprintln!(
                    "toolstream: syntax {} (--syntax), framing {} ({})",
                    s.name(),
                    choice.framing,
                    choice.how
                ),
                None => eprintln!(
                    "toolstream: format {}, framing {} ({})",
                    choice.format, choice.framing, choice.how
                ),
            }
        }
        let mut config = setup
            .clone()
            .field_events(args.fields)
            .framing(choice.framing);
        if let Some(text_format) = args.content {
            config = config.content_format(text_format);
        }
        match &args.syntax {
            Some(s) => Parser::with_syntax(s.clone(), config),
            None => Parser::with_config(choice.format, config),
        }
    };
    // Error events written, for the hint at the end.
    let errors = std::cell::Cell::new(0usize);
    let count = |events: &[toolstream::Event]| {
        let n = events
            .iter()
            .filter(|e| matches!(e, toolstream::Event::Error { .. }))
            .count();
        errors.set(errors.get() + n);
    };
    let feed = |parser: &mut Parser,
                data: &[u8],
                events: &mut Vec<toolstream::Event>,
                output: &mut output::Output,
                out: &mut io::BufWriter<io::StdoutLock<'_>>|
     -> Result<(), String> {
        let step = args.chunk_size.unwrap_or(data.len().max(1));
        for chunk in data.chunks(step) {
            parser.feed(chunk, events).map_err(|e| e.to_string())?;
            count(events);
            output.write(events, parser, out)?;
        }
        Ok(())
    };
    // The input's first bytes (at most DETECT_MAX), kept for the hint at the end.
    let mut sniff = Vec::new();
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read {file}: {e}")),
        };
        // invariant: `read` returns at most `buf.len()`.
        #[allow(clippy::indexing_slicing)]
        let data = &buf[..n];
        let room = toolstream::detect::DETECT_MAX.saturating_sub(sniff.len());
        sniff.extend_from_slice(data.get(..room.min(n)).unwrap_or(data));
        match parser.as_mut() {
            Some(p) => feed(p, data, &mut events, &mut output, &mut out)?,
            None => {
                head.extend_from_slice(data);
                if let Some(choice) = choose(&args, &head, false)? {
                    let p = parser.insert(make(choice));
                    feed(
                        p,
                        &std::mem::take(&mut head),
                        &mut events,
                        &mut output,
                        &mut out,
                    )?;
                }
            }
        }
    }
    let parser = match &mut parser {
        Some(p) => p,
        None => {
            let choice = choose(&args, &head, true)?.ok_or("no format found")?;
            let p = parser.insert(make(choice));
            feed(p, &head, &mut events, &mut output, &mut out)?;
            p
        }
    };
    parser.finish(&mut events).map_err(|e| e.to_string())?;
    count(&events);
    let unrecognized = events.iter().any(|e| {
        matches!(
            e,
            toolstream::Event::Error {
                kind: toolstream::ErrorKind::UnrecognizedInput,
                ..
            }
        )
    });
    output.write(&mut events, parser, &mut out)?;
    output.finish(parser.response_meta(), &mut out)?;
    out.flush().map_err(|e| format!("cannot write: {e}"))?;
    let given = args
        .format
        .filter(|f| *f != Format::Auto && args.syntax.is_none());
    let seen = Seen {
        given,
        content: args.content,
        framing: parser.framing_in_use(),
        errors: errors.get(),
        unrecognized,
    };
    if let Some(hint) = hint(&seen, &sniff) {
        eprintln!("toolstream: {hint}");
    } else if unrecognized {
        eprintln!(
            "toolstream: the input made no event as format {} with framing {}; check --format and --framing, or leave them out to detect them",
            parser.format(),
            parser.framing_in_use()
        );
    }
    Ok(())
}

/// What a `parse` run saw, for [`hint`].
struct Seen {
    /// `--format`, when given (not `auto`, no `--syntax`).
    given: Option<Format>,
    /// `--content`.
    content: Option<Format>,
    /// The framing the parser read the input with.
    framing: Framing,
    /// Error events written.
    errors: usize,
    /// One of them was `unrecognized_input`.
    unrecognized: bool,
}

/// The one hint (for stderr) that names the fix when the given format does not fit the
/// input, or when the input is binary; `head` is the input's first bytes (at most
/// [`toolstream::detect::DETECT_MAX`]).
fn hint(seen: &Seen, head: &[u8]) -> Option<String> {
    use toolstream::detect::detect;
    let found = detect(head, true).and_then(|d| Some((d.format?, d.framing)));
    if let (Some(given), Some((found, framing))) = (seen.given, found)
        && found != Format::Auto
        && found != given
    {
        // A text syntax given for a provider's envelope: the envelope was read as text.
        if given.default_framing() == Framing::Text && seen.framing == Framing::Text {
            return Some(format!(
                "the input is {} of {found} (detected), not raw {given} model text: it was passed through as text; try --format {found} --content {given} (or --format auto)",
                envelope_words(framing)
            ));
        }
        if seen.errors > 0 || seen.unrecognized {
            return Some(format!(
                "this looks like {found} (detected), not {given}; try --format {found} or --format auto"
            ));
        }
    }
    if seen.framing == Framing::Text && seen.content.is_none() {
        return binary_warning(head);
    }
    None
}

/// A framing as the envelope a provider streams in, for hints.
fn envelope_words(framing: Framing) -> &'static str {
    match framing {
        Framing::Sse => "an SSE envelope (`data:` lines)",
        Framing::Ndjson => "an NDJSON envelope (one JSON object per line)",
        Framing::JsonArray => "a JSON array envelope",
        Framing::Json => "a JSON envelope",
        Framing::EventStream => "an AWS event stream",
        _ => "an envelope",
    }
}

/// A warning when `head`, read as text, is mostly not text: many bytes that are not UTF-8
/// (each printed as U+FFFD) or control bytes such as NUL.
fn binary_warning(head: &[u8]) -> Option<String> {
    let mut bad = 0usize;
    let mut rest = head;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                bad += text.bytes().filter(|b| is_binary_control(*b)).count();
                break;
            }
            Err(e) => {
                let (good, after) = rest.split_at(e.valid_up_to());
                bad += good.iter().filter(|b| is_binary_control(**b)).count();
                // A sequence cut by the end of `head` is not counted.
                let Some(len) = e.error_len() else { break };
                bad += len;
                rest = after.get(len..).unwrap_or_default();
            }
        }
    }
    if bad < 8 || bad * 16 < head.len() {
        return None;
    }
    let what = if head.starts_with(&[0x1f, 0x8b]) {
        " (it starts like gzip: decompress it first, e.g. `gunzip -c FILE | toolstream parse`)"
    } else {
        " (compressed, or not a response body?)"
    };
    Some(format!(
        "warning: the input does not look like text: {bad} of its first {} bytes are not UTF-8 text; it was read as raw text, each bad byte printed as U+FFFD{what}",
        head.len()
    ))
}

/// A control byte that text does not hold (tab, newlines, form feed and escape do).
fn is_binary_control(b: u8) -> bool {
    b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)
}

/// Sleeps only when pacing a terminal.
fn pause(ms: f64, speed: f64) {
    if speed > 0.0 && ms > 0.0 {
        std::thread::sleep(Duration::from_secs_f64(ms / 1000.0 / speed));
    }
}

fn is_tty() -> bool {
    io::stdout().is_terminal()
}
