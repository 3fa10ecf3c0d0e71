//! A real streaming request with tools to Anthropic's Messages API, printing the tool call
//! live as it forms.
//!
//! ```sh
//! ANTHROPIC_API_KEY=sk-ant-... cargo run --example anthropic --features reqwest,reqwest/rustls
//! ```
//!
//! Environment: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` (default
//! `https://api.anthropic.com`), `MODEL` (default `claude-sonnet-4-5`), `PROMPT` (optional).
//! (`reqwest/rustls` adds a TLS backend; a plain-http base URL needs none.)

use futures::StreamExt;
use serde_json::json;
use std::io::Write;
use toolstream::stream::from_response;
use toolstream::{Event, Format, Parser};

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
    let base = std::env::var("ANTHROPIC_BASE_URL").unwrap_or("https://api.anthropic.com".into());
    let key = std::env::var("ANTHROPIC_API_KEY").map_err(|_| "set ANTHROPIC_API_KEY")?;
    let model = std::env::var("MODEL").unwrap_or("claude-sonnet-4-5".into());
    let prompt = std::env::var("PROMPT")
        .unwrap_or("Write a haiku about streams to haiku.txt using the tool.".into());

    let request = json!({
        "model": model,
        "max_tokens": 1024,
        "stream": true,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{
            "name": "write_file",
            "description": "Write text to a file",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"]
            }
        }],
    });
    let url = format!("{}/v1/messages", base.trim_end_matches('/'));
    eprintln!("POST {url} (model {model})");
    let response = reqwest::Client::new()
        .post(&url)
        .header("x-api-key", key)
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(request.to_string())
        .send()
        .await
        .map_err(|e| {
            if url.starts_with("https") {
                format!(
                    "{e}\n(for https, build with a TLS backend: --features reqwest,reqwest/rustls)"
                )
            } else {
                e.to_string()
            }
        })?;

    let mut events = from_response(response, Parser::new(Format::Anthropic));
    let mut out = std::io::stdout().lock();
    while let Some(event) = events.next().await {
        match event? {
            Event::Text { delta } => write!(out, "{delta}")?,
            Event::Reasoning { delta } => write!(out, "\x1b[2m{delta}\x1b[0m")?,
            Event::ToolCallStart { index, id, name } => {
                write!(out, "\n[call {index}] {name} ({id}) ← ")?
            }
            Event::ToolCallArgs { delta, .. } => write!(out, "{delta}")?,
            Event::ToolCallEnd {
                index, arguments, ..
            } => writeln!(out, "\n[call {index}] complete: {arguments}")?,
            Event::Finish { reason, usage } => writeln!(
                out,
                "\n[finish] {} {}",
                reason.as_ref().map(|r| r.as_str()).unwrap_or("-"),
                usage
                    .and_then(|u| u.total_tokens)
                    .map(|t| format!("({t} tokens)"))
                    .unwrap_or_default()
            )?,
            Event::Error { kind, message, .. } => {
                writeln!(out, "\n[error {}] {message}", kind.as_str())?
            }
            _ => {}
        }
        out.flush()?;
    }
    Ok(())
}
