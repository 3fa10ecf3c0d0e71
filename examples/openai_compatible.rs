//! A real streaming request with tools to any OpenAI-compatible server, printing the
//! tool call live as it forms.
//!
//! ```sh
//! # a local server (vLLM, llama.cpp, Ollama, LM Studio, ...): plain http needs nothing else
//! OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=qwen3:8b \
//!     cargo run --example openai_compatible --features reqwest
//! # a hosted one (OpenAI, Groq, Together, ...): add a TLS backend to reqwest
//! OPENAI_API_KEY=sk-... MODEL=gpt-4o-mini \
//!     cargo run --example openai_compatible --features reqwest,reqwest/rustls
//! ```
//!
//! Environment: `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`
//! (optional for local servers), `MODEL` (default `gpt-4o-mini`), `PROMPT` (optional).

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
    let base = std::env::var("OPENAI_BASE_URL").unwrap_or("https://api.openai.com/v1".into());
    let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let model = std::env::var("MODEL").unwrap_or("gpt-4o-mini".into());
    let prompt = std::env::var("PROMPT")
        .unwrap_or("What's the weather in Paris and in Tokyo? Use the tool.".into());

    let request = json!({
        "model": model,
        "stream": true,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [{
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
                    },
                    "required": ["city"]
                }
            }
        }],
    });
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    eprintln!("POST {url} (model {model})");
    let mut req = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .body(request.to_string());
    if !key.is_empty() {
        req = req.bearer_auth(&key);
    }
    let response = req.send().await.map_err(|e| {
        if url.starts_with("https") {
            format!("{e}\n(for https, build with a TLS backend: --features reqwest,reqwest/rustls)")
        } else {
            e.to_string()
        }
    })?;

    // The response's bytes, decoded into events as they arrive.
    let mut events = from_response(response, Parser::new(Format::OpenAiChat));
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
