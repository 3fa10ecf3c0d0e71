//! Cancel generation early: stop reading the moment the first tool call is complete, the
//! moment a forbidden tool's name appears, or the moment a call's arguments break its tool's
//! JSON Schema (the request's own `tools`, checked as the bytes arrive), and drop the
//! response. Dropping the stream drops the HTTP response and closes the connection, so the
//! server stops generating (and you stop paying for) the rest.
//!
//! What it decided goes to stdout; how much of the response it read, and how fast, to
//! stderr.
//!
//! ```sh
//! OPENAI_BASE_URL=http://localhost:8000/v1 MODEL=my-model \
//!     cargo run --example cancel_early --features reqwest
//! ```
//!
//! Environment: as the `openai_compatible` example (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
//! `MODEL`, `PROMPT`), plus `FORBIDDEN_TOOL` (default `delete_file`).

use futures::StreamExt;
use serde_json::json;
use toolstream::stream::from_response;
use toolstream::{ErrorKind, Event, Format, Parser, ParserConfig, Tools};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let base = std::env::var("OPENAI_BASE_URL").unwrap_or("https://api.openai.com/v1".into());
    let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let model = std::env::var("MODEL").unwrap_or("gpt-4o-mini".into());
    let forbidden = std::env::var("FORBIDDEN_TOOL").unwrap_or("delete_file".into());
    let prompt =
        std::env::var("PROMPT").unwrap_or("Read notes.txt, then summarise it at length.".into());
    let tool = |name: &str, description: &str| {
        json!({"type": "function", "function": {"name": name, "description": description,
            "parameters": {"type": "object", "properties": {
                "path": {"type": "string"},
                "encoding": {"enum": ["utf-8", "latin-1"]}},
              "required": ["path"], "additionalProperties": false}}})
    };
    let request = json!({
        "model": model,
        "stream": true,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [tool("read_file", "Read a file"), tool(&forbidden, "Not allowed here")],
    });
    // The request's tools, compiled once: each call's arguments are checked against its
    // tool's schema as they stream.
    let config = ParserConfig::new()
        .tools(Tools::from_value(&request)?)
        .validate_arguments(true);
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    let mut req = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(request.to_string());
    if !key.is_empty() {
        req = req.bearer_auth(&key);
    }
    let response = req.send().await?;
    let started = std::time::Instant::now();

    let mut events = from_response(response, Parser::with_config(Format::OpenAiChat, config));
    let mut why = None;
    while let Some(event) = events.next().await {
        match event? {
            Event::ToolCallStart { name, .. } if name == forbidden => {
                why = Some(format!("refused `{name}` the moment its name arrived"));
                break;
            }
            Event::ToolCallStart { name, .. } => println!("calling {name}…"),
            Event::ToolCallEnd {
                name, arguments, ..
            } => {
                why = Some(format!("first call complete: {name}({arguments})"));
                break;
            }
            // The call's arguments broke its tool's schema: `raw` is its argument text up to
            // and with the byte no valid continuation can follow, `path` the offending value.
            Event::Error {
                kind: ErrorKind::SchemaViolation,
                message,
                raw,
                path,
                ..
            } => {
                let path = path.unwrap_or_default();
                why = Some(format!(
                    "stopped mid-argument, at byte {} of the arguments: {raw}\n{message} (at \"{path}\")",
                    raw.len()
                ));
                break;
            }
            Event::Finish { .. } => break,
            _ => {}
        }
    }
    let read = events.parser().bytes_fed();
    // Dropping the stream drops the response: the connection closes, generation stops.
    drop(events);
    match why {
        Some(why) => {
            println!("{why}");
            println!("response dropped: the rest of the stream was never read");
            eprintln!(
                "(dropped after {read} bytes of the response, {:.0} ms)",
                started.elapsed().as_secs_f64() * 1000.0
            );
        }
        None => println!("the response ended after {read} bytes without a call"),
    }
    Ok(())
}
