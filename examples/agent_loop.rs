//! A whole agent loop against any OpenAI-compatible server: stream a request with tools,
//! run each tool the model calls (as soon as its call is complete), send the results back,
//! and repeat until the model answers in text.
//!
//! ```sh
//! # a local server (vLLM, llama.cpp, Ollama, LM Studio, ...): plain http needs nothing else
//! OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=qwen3:8b \
//!     cargo run --example agent_loop --features reqwest
//! # a server that leaks calls into `content` as raw text: name the syntax (docs/models.md)
//! OPENAI_BASE_URL=http://localhost:8000/v1 MODEL=Qwen/Qwen2.5-7B-Instruct CONTENT=hermes \
//!     cargo run --example agent_loop --features reqwest
//! # a hosted one (OpenAI, Groq, Together, ...): add a TLS backend to reqwest
//! OPENAI_API_KEY=sk-... MODEL=gpt-4o-mini \
//!     cargo run --example agent_loop --features reqwest,reqwest/rustls
//! ```
//!
//! Environment: `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`
//! (optional for local servers), `MODEL` (default `gpt-4o-mini`), `PROMPT` (optional),
//! `CONTENT` (optional: the text format of calls leaked into `content`, e.g. `hermes`),
//! `MAX_TURNS` (default 5).
//!
//! The tool, `get_weather`, is a local function with made-up weather: replace it with
//! yours. Each turn's assistant message is sent back in OpenAI Chat's shape (`content`,
//! and `tool_calls` whose `arguments` are the JSON text the model streamed), followed by
//! one `{"role": "tool", "tool_call_id", "content"}` message per call.

use futures::StreamExt;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use toolstream::stream::from_response;
use toolstream::{Event, Format, IdPrefix, Parser, ParserConfig};

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

/// The tools offered to the model.
fn tools() -> Value {
    json!([{
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            }
        }
    }])
}

/// Runs one tool call: the result the model reads (JSON text), or an error it can read.
fn run_tool(name: &str, arguments: &Value) -> String {
    match (name, arguments.get("city").and_then(Value::as_str)) {
        ("get_weather", Some(city)) => {
            // Made-up but stable weather: replace with a real lookup.
            let temperature = 5 + city.len() % 20;
            json!({"city": city, "temperature_c": temperature, "sky": "clear"}).to_string()
        }
        ("get_weather", None) => json!({"error": "get_weather needs a city"}).to_string(),
        _ => json!({"error": format!("no tool named {name}")}).to_string(),
    }
}

/// A finished call: id, name, parsed arguments, and their JSON text as streamed.
struct Call {
    id: String,
    name: String,
    arguments: Value,
    text: String,
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let base = std::env::var("OPENAI_BASE_URL").unwrap_or("https://api.openai.com/v1".into());
    let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let model = std::env::var("MODEL").unwrap_or("gpt-4o-mini".into());
    let prompt = std::env::var("PROMPT").unwrap_or(
        "What's the weather in Paris? Use the tool, then answer in one sentence.".into(),
    );
    let content: Option<Format> = match std::env::var("CONTENT") {
        Ok(name) if !name.is_empty() => Some(name.parse()?),
        _ => None,
    };
    let max_turns: usize = std::env::var("MAX_TURNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5);
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    let client = reqwest::Client::new();
    let mut messages = vec![json!({"role": "user", "content": prompt})];
    let mut out = std::io::stdout().lock();

    for turn in 1..=max_turns {
        eprintln!("POST {url} (model {model}, turn {turn})");
        let request =
            json!({"model": model, "stream": true, "messages": messages, "tools": tools()});
        let mut req = client
            .post(&url)
            .header("content-type", "application/json")
            .body(request.to_string());
        if !key.is_empty() {
            req = req.bearer_auth(&key);
        }
        let response = req.send().await?;

        // Generated ids (for calls leaked as text) differ from turn to turn.
        let mut config = ParserConfig::new().id_prefix(IdPrefix::Unique);
        if let Some(format) = content {
            config = config.content_format(format);
        }
        let mut events = from_response(response, Parser::with_config(Format::OpenAiChat, config));
        let mut text = String::new();
        let mut streamed: BTreeMap<usize, String> = BTreeMap::new();
        let mut calls = Vec::new();
        while let Some(event) = events.next().await {
            match event? {
                Event::Text { delta } => {
                    write!(out, "{delta}")?;
                    text.push_str(&delta);
                }
                Event::ToolCallStart { name, .. } => writeln!(out, "\n[calling {name} ...]")?,
                Event::ToolCallArgs { index, delta } => {
                    streamed.entry(index).or_default().push_str(&delta)
                }
                Event::ToolCallEnd {
                    index,
                    id,
                    name,
                    arguments,
                } => {
                    let text = streamed
                        .remove(&index)
                        .unwrap_or_else(|| arguments.to_string());
                    calls.push(Call {
                        id,
                        name,
                        arguments,
                        text,
                    });
                }
                // A call that could not complete is not run; the model hears of nothing.
                Event::Error { kind, message, .. } => {
                    writeln!(out, "\n[error {}] {message}", kind.as_str())?
                }
                _ => {}
            }
            out.flush()?;
        }

        // The assistant's turn, as OpenAI Chat expects it back.
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function",
                       "function": {"name": c.name, "arguments": c.text}})
            })
            .collect();
        if calls.is_empty() {
            writeln!(out)?;
            return Ok(());
        }
        let content = if text.is_empty() {
            Value::Null
        } else {
            text.into()
        };
        let assistant = json!({"role": "assistant", "content": content, "tool_calls": tool_calls});
        messages.push(assistant);
        for call in &calls {
            let result = run_tool(&call.name, &call.arguments);
            writeln!(out, "[tool {}] {} -> {result}", call.name, call.text)?;
            messages.push(json!({"role": "tool", "tool_call_id": call.id, "content": result}));
        }
    }
    Err(format!("no answer after {max_turns} turns (MAX_TURNS)").into())
}
