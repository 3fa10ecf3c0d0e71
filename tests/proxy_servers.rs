//! The README's quick start ("Put it in front of a server"), server by server: each row's
//! `toolstream proxy …` line runs as printed (the built binary; only its `--upstream` is
//! pointed at a fake of that server, on 127.0.0.1) and a client's requests get what
//! `docs/servers.md` says. Each fake answers as that server's source does without a tool
//! parser: the status and error body it writes, whether the tools reach the model (the
//! fake's model writes a call only when they do) and whether the server turns the call into
//! `tool_calls` itself. Every wait is bounded.

#![cfg(feature = "cli")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::HeaderValue;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// What a fake server answers: a status, and a JSON body (an error, or a whole reply) or an
/// event stream.
struct Answer {
    status: StatusCode,
    body: String,
    stream: bool,
}

impl Answer {
    fn error(status: u16, body: &str) -> Answer {
        Answer {
            status: StatusCode::from_u16(status).unwrap(),
            body: body.to_owned(),
            stream: false,
        }
    }
}

/// What the fake's model produced: text, or calls the server parsed itself.
enum Output {
    Text(String),
    Parsed(Vec<(String, Value)>),
}

/// The reply carrying `output`, streamed or whole as the request asks, in the OpenAI Chat
/// shape every one of these servers writes.
fn reply(req: &Value, output: Output) -> Answer {
    let (message, finish) = match &output {
        Output::Text(t) => (json!({"role": "assistant", "content": t}), "stop"),
        Output::Parsed(calls) => {
            let calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    json!({"index": i, "id": format!("call_{i}"), "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            (
                json!({"role": "assistant", "content": null, "tool_calls": calls}),
                "tool_calls",
            )
        }
    };
    if req["stream"] != true {
        let body = json!({"id": "chatcmpl-fake", "object": "chat.completion", "created": 1,
            "model": req["model"], "choices": [{"index": 0, "message": message,
            "finish_reason": finish}]});
        return Answer {
            status: StatusCode::OK,
            body: body.to_string(),
            stream: false,
        };
    }
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1,
            "model": req["model"], "choices": [{"index": 0, "delta": delta,
            "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    let mut body = chunk(json!({"role": "assistant", "content": ""}), Value::Null);
    match output {
        // The text in pieces of 7 chars, as tokens come.
        Output::Text(t) => {
            let chars: Vec<char> = t.chars().collect();
            for piece in chars.chunks(7) {
                let piece: String = piece.iter().collect();
                body.push_str(&chunk(json!({"content": piece}), Value::Null));
            }
        }
        Output::Parsed(_) => {
            body.push_str(&chunk(
                json!({"tool_calls": message["tool_calls"]}),
                Value::Null,
            ));
        }
    }
    body.push_str(&chunk(json!({}), json!(finish)));
    body.push_str("data: [DONE]\n\n");
    Answer {
        status: StatusCode::OK,
        body,
        stream: true,
    }
}

/// The first tool the request declares (the one the fake's model calls).
fn first_tool(req: &Value) -> Option<&str> {
    req["tools"][0]["function"]["name"].as_str()
}

/// What the fake's model writes when the tools are in its prompt: a Qwen3 call (`hermes`).
fn qwen_call(name: &str) -> String {
    format!(
        "Let me check.\n<tool_call>\n{{\"name\": \"{name}\", \"arguments\": {{\"city\": \"Paris\"}}}}\n</tool_call>"
    )
}

/// What it writes when they are not: it cannot call what it does not know of.
const NO_TOOLS: &str = "I cannot look that up.";

/// The request's `tool_choice` as the servers default it: `auto` when tools are given
/// without one (vLLM's `check_tool_usage`, SGLang's `set_tool_choice_default`).
fn tool_choice(req: &Value) -> Value {
    match req.get("tool_choice") {
        Some(c) if !c.is_null() => c.clone(),
        _ if first_tool(req).is_some() => json!("auto"),
        _ => json!("none"),
    }
}

/// vLLM without `--enable-auto-tool-choice` / `--tool-call-parser`
/// (`OnlineRenderer.render_chat`): `auto`, `required` and a named tool are refused with 400
/// before anything is generated; under `none` the tools stay in the prompt and the call
/// comes back as text. `older`: a release with the `{"object": "error"}` body, where
/// `required` and a named tool went to guided decoding (calls parsed by vLLM).
fn vllm(req: &Value, older: bool) -> Answer {
    let refuse = |message: String| {
        let body = if older {
            json!({"object": "error", "message": message, "type": "BadRequestError",
                "param": null, "code": 400})
        } else {
            json!({"error": {"message": message, "type": "BadRequestError", "param": null,
                "code": 400}})
        };
        Answer::error(400, &body.to_string())
    };
    let choice = tool_choice(req);
    match (choice.as_str(), first_tool(req)) {
        (Some("auto"), _) => refuse(
            "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"
                .into(),
        ),
        (Some("none"), Some(name)) => reply(req, Output::Text(qwen_call(name))),
        (Some("none"), None) => reply(req, Output::Text(NO_TOOLS.into())),
        (Some("required"), Some(name)) if older => reply(
            req,
            Output::Parsed(vec![(name.to_owned(), json!({"city": "Paris"}))]),
        ),
        (Some(other), _) => refuse(format!(
            "tool_choice=\"{other}\" requires --tool-call-parser to be set"
        )),
        (None, _) => {
            let name = choice["function"]["name"].as_str().unwrap().to_owned();
            if older {
                reply(req, Output::Parsed(vec![(name, json!({"city": "Paris"}))]))
            } else {
                refuse(format!(
                    "tool_choice=function \"{name}\" requires --tool-call-parser to be set"
                ))
            }
        }
    }
}

/// SGLang without `--tool-call-parser` (`_process_messages`, `_build_chat_response`):
/// never refuses; `auto` renders the tools and leaves the call as text; `required` and a
/// named tool force a JSON array `[{"name", "parameters"}]` (of that tool only), left as
/// text; under `none` the tools are left out of the prompt.
fn sglang(req: &Value) -> Answer {
    let choice = tool_choice(req);
    let array = |name: &str| {
        let a = json!([{"name": name, "parameters": {"city": "Paris"}}]);
        reply(req, Output::Text(a.to_string()))
    };
    match (choice.as_str(), first_tool(req)) {
        (Some("auto"), Some(name)) => reply(req, Output::Text(qwen_call(name))),
        (Some("required"), Some(name)) => array(name),
        (None, Some(_)) => array(choice["function"]["name"].as_str().unwrap()),
        _ => reply(req, Output::Text(NO_TOOLS.into())),
    }
}

/// llama.cpp's `llama-server`. With jinja (the default) the tools are rendered and the
/// call parsed into `tool_calls` when llama.cpp knows the model's format (`known`), else
/// left as text; a named `tool_choice` (an object) is read as `auto`. Without jinja a
/// request with tools gets 500 `tools param requires --jinja flag` (`ex_wrapper`: a
/// `std::runtime_error` is a `server_error`).
fn llama_cpp(req: &Value, jinja: bool, known: bool) -> Answer {
    let Some(name) = first_tool(req) else {
        return reply(req, Output::Text(NO_TOOLS.into()));
    };
    if !jinja {
        return Answer::error(
            500,
            r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
        );
    }
    if req["tool_choice"] == "none" {
        return reply(req, Output::Text(NO_TOOLS.into()));
    }
    if known {
        reply(
            req,
            Output::Parsed(vec![(name.to_owned(), json!({"city": "Paris"}))]),
        )
    } else {
        reply(req, Output::Text(qwen_call(name)))
    }
}

/// Ollama's `/v1/chat/completions`: `tool_choice` is not read at all; a model whose
/// template has tools gets them and Ollama parses its call; one without answers 400
/// through the OpenAI middleware's error shape.
fn ollama(req: &Value, template_has_tools: bool) -> Answer {
    let Some(name) = first_tool(req) else {
        return reply(req, Output::Text(NO_TOOLS.into()));
    };
    if !template_has_tools {
        let model = req["model"].as_str().unwrap_or("");
        let body = json!({"error": {"message": format!("registry.ollama.ai/library/{model} does not support tools"),
            "type": "invalid_request_error", "param": null, "code": null}});
        return Answer::error(400, &body.to_string());
    }
    reply(
        req,
        Output::Parsed(vec![(name.to_owned(), json!({"city": "Paris"}))]),
    )
}

/// LM Studio: every model takes tools. A model it supports natively has its call parsed;
/// any other is told to write `[TOOL_REQUEST]…[END_TOOL_REQUEST]`, and a call in another
/// syntax (this Qwen fine-tune keeps writing `<tool_call>`) stays in `content`.
fn lm_studio(req: &Value) -> Answer {
    let Some(name) = first_tool(req) else {
        return reply(req, Output::Text(NO_TOOLS.into()));
    };
    if req["tool_choice"] == "none" {
        return reply(req, Output::Text(NO_TOOLS.into()));
    }
    if req["model"] == "qwen3-8b" {
        reply(
            req,
            Output::Parsed(vec![(name.to_owned(), json!({"city": "Paris"}))]),
        )
    } else {
        reply(req, Output::Text(qwen_call(name)))
    }
}

type Behaviour = Arc<dyn Fn(&Value) -> Answer + Send + Sync>;

/// A fake server on 127.0.0.1 answering `/v1/chat/completions` with `behaviour`; it keeps
/// every request body it was sent.
struct Fake {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl Fake {
    async fn start(behaviour: Behaviour) -> Fake {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let (behaviour, kept) = (Arc::clone(&behaviour), Arc::clone(&kept));
                let service = service_fn(move |r: Request<hyper::body::Incoming>| {
                    let (behaviour, kept) = (Arc::clone(&behaviour), Arc::clone(&kept));
                    async move {
                        assert_eq!(r.uri().path(), "/v1/chat/completions");
                        let body = r.into_body().collect().await?.to_bytes();
                        let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                        kept.lock().unwrap().push(req.clone());
                        let answer = behaviour(&req);
                        let kind = if answer.stream {
                            "text/event-stream"
                        } else {
                            "application/json"
                        };
                        let mut response = Response::new(Full::new(Bytes::from(answer.body)));
                        *response.status_mut() = answer.status;
                        response
                            .headers_mut()
                            .insert("content-type", HeaderValue::from_static(kind));
                        Ok::<_, hyper::Error>(response)
                    }
                });
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(socket), service)
                        .await;
                });
            }
        });
        Fake { addr, requests }
    }

    /// The request bodies it was sent so far.
    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

/// The README quick-start table's cells for `server`: its start command and its
/// `toolstream proxy` line.
fn quick_start(server: &str) -> (String, String) {
    let readme = include_str!("../README.md");
    let section = readme
        .split("## Put it in front of a server")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has a \"Put it in front of a server\" section");
    let row = section
        .lines()
        .find(|l| l.starts_with(&format!("| {server} |")))
        .unwrap_or_else(|| panic!("no quick-start row for {server}"));
    let cells: Vec<&str> = row.split('`').collect();
    let proxy = cells
        .iter()
        .find(|c| c.starts_with("toolstream proxy "))
        .unwrap_or_else(|| panic!("no toolstream proxy line in {row}"));
    (cells[1].to_owned(), (*proxy).to_owned())
}

/// `toolstream proxy` started from `line` (the README's, words split on spaces), its
/// `--upstream` replaced by `upstream` once checked to be `expected` (the server's own
/// address), listening on a free port; killed when dropped.
struct ProxyRun {
    child: Child,
    addr: SocketAddr,
}

impl ProxyRun {
    fn start(line: &str, expected: &str, upstream: &str, extra: &[&str]) -> ProxyRun {
        let mut args: Vec<String> = line.split_whitespace().skip(1).map(String::from).collect();
        let at = args.iter().position(|a| a == "--upstream").unwrap() + 1;
        assert_eq!(args[at], expected, "the README's --upstream in `{line}`");
        args[at] = upstream.to_owned();
        args.extend(["--listen", "127.0.0.1:0", "--log-format", "off"].map(String::from));
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolstream"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The first stderr line names the address (read on a thread, so the wait is bounded).
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut first = String::new();
            let _ = BufReader::new(stderr).read_line(&mut first);
            let _ = tx.send(first);
        });
        let first = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_default();
        let addr = first
            .trim()
            .strip_prefix("toolstream proxy: listening on http://")
            .and_then(|a| a.strip_suffix("/v1"))
            .and_then(|a| a.parse().ok());
        match addr {
            Some(addr) => ProxyRun { child, addr },
            None => {
                let _ = child.kill();
                panic!("`toolstream {}` did not start: {first}", args.join(" "));
            }
        }
    }

    /// Sends `body` to the proxy's Chat route: the status, and the calls (name, parsed
    /// arguments) and text the client read, from the event stream or the whole reply.
    async fn ask(&self, body: &Value) -> (u16, Vec<(String, Value)>, String, Value) {
        let (status, text) = self.post("/v1/chat/completions", body).await;
        if status != 200 {
            return (
                status,
                Vec::new(),
                String::new(),
                serde_json::from_str(&text).unwrap(),
            );
        }
        if body["stream"] != true {
            let v: Value = serde_json::from_str(&text).unwrap();
            let m = &v["choices"][0]["message"];
            let calls = m["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    let f = &c["function"];
                    let args = serde_json::from_str(f["arguments"].as_str().unwrap()).unwrap();
                    (f["name"].as_str().unwrap().to_owned(), args)
                })
                .collect();
            return (
                status,
                calls,
                m["content"].as_str().unwrap_or("").to_owned(),
                v,
            );
        }
        // Streamed: the deltas joined per call index.
        let mut names: Vec<String> = Vec::new();
        let mut args: Vec<String> = Vec::new();
        let mut content = String::new();
        for data in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
            let Ok(v) = serde_json::from_str::<Value>(data) else {
                continue;
            };
            let delta = &v["choices"][0]["delta"];
            content.push_str(delta["content"].as_str().unwrap_or(""));
            for c in delta["tool_calls"].as_array().into_iter().flatten() {
                let i = c["index"].as_u64().unwrap() as usize;
                if names.len() <= i {
                    names.resize(i + 1, String::new());
                    args.resize(i + 1, String::new());
                }
                names[i].push_str(c["function"]["name"].as_str().unwrap_or(""));
                args[i].push_str(c["function"]["arguments"].as_str().unwrap_or(""));
            }
        }
        let calls = names
            .into_iter()
            .zip(args)
            .map(|(n, a)| (n, serde_json::from_str(&a).unwrap()))
            .collect();
        (status, calls, content, Value::Null)
    }
}

impl ProxyRun {
    /// POSTs `body` to the proxy's `path`: the status and the body.
    async fn post(&self, path: &str, body: &Value) -> (u16, String) {
        let response = reqwest::Client::new()
            .post(format!("http://{}{path}", self.addr))
            .header("content-type", "application/json")
            .header("authorization", "Bearer unused")
            .timeout(Duration::from_secs(20))
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }
}

impl Drop for ProxyRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A user's request with the weather tool; `choice` is its `tool_choice` (`None`: none
/// given).
fn request(model: &str, choice: Option<Value>, stream: bool) -> Value {
    let mut r = json!({"model": model, "stream": stream,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]});
    if let Some(c) = choice {
        r["tool_choice"] = c;
    }
    r
}

fn named() -> Value {
    json!({"type": "function", "function": {"name": "get_weather"}})
}

/// The one call every good answer carries.
fn the_call() -> Vec<(String, Value)> {
    vec![("get_weather".into(), json!({"city": "Paris"}))]
}

/// The README's quick start for `server` running: a fake answering with `behaviour`, and
/// the row's `toolstream proxy` line (plus `extra`) in front of it, its `--upstream` first
/// checked to be where the server listens as the row starts it. Also the row's start
/// command.
async fn run_quick_start(
    server: &str,
    behaviour: Behaviour,
    extra: &[&str],
) -> (Fake, ProxyRun, String) {
    let (start, line) = quick_start(server);
    let port = match server {
        // `vllm serve`'s, SGLang's, Ollama's and LM Studio's defaults.
        "vLLM" => "8000",
        "SGLang" => "30000",
        "Ollama" => "11434",
        "LM Studio" => "1234",
        // llama-server's own default, 8080, is the proxy's: the row names another.
        _ => start
            .split("--port ")
            .nth(1)
            .and_then(|p| p.split(' ').next())
            .unwrap_or_else(|| panic!("no --port in `{start}`")),
    };
    let fake = Fake::start(behaviour).await;
    let proxy = ProxyRun::start(
        &line,
        &format!("http://127.0.0.1:{port}/v1"),
        &format!("http://{}/v1", fake.addr),
        extra,
    );
    (fake, proxy, start)
}

/// vLLM, started as the README says (no tool parser): every `tool_choice` that needs a
/// parser is refused with 400 and asked once more with "none", the tools still in the
/// request, and the client gets the call repaired from the text, streamed or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vllm_quick_start() {
    let (fake, proxy, start) =
        run_quick_start("vLLM", Arc::new(|r: &Value| vllm(r, false)), &[]).await;
    assert!(
        start.starts_with("vllm serve ") && !start.contains("--tool-call-parser"),
        "{start}"
    );
    let cases = [
        (None, true),
        (Some(json!("auto")), false),
        (Some(json!("required")), true),
        (Some(named()), false),
    ];
    for (i, (choice, stream)) in cases.into_iter().enumerate() {
        let (status, calls, _, _) = proxy
            .ask(&request("Qwen/Qwen3-8B", choice.clone(), stream))
            .await;
        assert_eq!((status, calls), (200, the_call()), "tool_choice {choice:?}");
        let seen = fake.requests();
        assert_eq!(seen.len(), 2 * (i + 1), "one refusal, one retry: {seen:?}");
        let (first, retry) = (&seen[2 * i], &seen[2 * i + 1]);
        assert_eq!(first.get("tool_choice"), choice.as_ref());
        assert_eq!(retry["tool_choice"], "none");
        assert_eq!(retry["tools"], first["tools"], "the retry keeps the tools");
    }
}

/// Claude Code's and Codex's APIs through the vLLM quick start: their requests, translated,
/// meet the same refusal and retry, and the call comes back as a `tool_use` block and a
/// `function_call` item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vllm_quick_start_for_messages_and_responses() {
    let (fake, proxy, _) = run_quick_start("vLLM", Arc::new(|r: &Value| vllm(r, false)), &[]).await;
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let messages = json!({"model": "qwen3-8b", "max_tokens": 256,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [{"name": "get_weather", "input_schema": schema}]});
    let (status, body) = proxy.post("/v1/messages", &messages).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let block = v["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_use")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(
        (&block["name"], &block["input"]),
        (&json!("get_weather"), &json!({"city": "Paris"}))
    );
    let responses = json!({"model": "qwen3-8b", "input": "Weather in Paris?",
        "tools": [{"type": "function", "name": "get_weather", "parameters": schema}]});
    let (status, body) = proxy.post("/v1/responses", &responses).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let item = v["output"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(item["name"], "get_weather");
    let args: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"city": "Paris"}));
    let seen = fake.requests();
    assert_eq!(seen.len(), 4, "one refusal and one retry each: {seen:?}");
    assert_eq!(
        (&seen[1]["tool_choice"], &seen[3]["tool_choice"]),
        (&json!("none"), &json!("none"))
    );
}

/// An older vLLM: its refusal in the `{"object": "error"}` shape is read too; `required`
/// and a named tool it served itself (guided decoding), so those are not asked twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vllm_older_release() {
    let (fake, proxy, _) = run_quick_start("vLLM", Arc::new(|r: &Value| vllm(r, true)), &[]).await;
    let (status, calls, _, _) = proxy.ask(&request("m", None, true)).await;
    assert_eq!((status, calls), (200, the_call()));
    assert_eq!(fake.requests().len(), 2);
    for choice in [json!("required"), named()] {
        let (status, calls, _, _) = proxy.ask(&request("m", Some(choice), true)).await;
        assert_eq!((status, calls), (200, the_call()));
    }
    assert_eq!(
        fake.requests().len(),
        4,
        "required and named are not retried"
    );
}

/// `--upstream-tool-choice none` in front of vLLM: one request, already "none".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vllm_with_upstream_tool_choice_none() {
    let (fake, proxy, _) = run_quick_start(
        "vLLM",
        Arc::new(|r: &Value| vllm(r, false)),
        &["--upstream-tool-choice", "none"],
    )
    .await;
    let (status, calls, _, _) = proxy.ask(&request("m", None, true)).await;
    assert_eq!((status, calls), (200, the_call()));
    let seen = fake.requests();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0]["tool_choice"], "none");
}

/// SGLang as the README starts it (no tool parser) never refuses: the client's
/// `tool_choice` goes as it is, once; the model's own call (auto) and the JSON array SGLang
/// forces for `required` or a named tool are both read by `--content auto`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sglang_quick_start() {
    let (fake, proxy, start) = run_quick_start("SGLang", Arc::new(sglang), &[]).await;
    assert!(start.contains("sglang.launch_server") && !start.contains("--tool-call-parser"));
    let cases = [
        (None, true),
        (Some(json!("auto")), false),
        (Some(json!("required")), true),
        (Some(json!("required")), false),
        (Some(named()), true),
    ];
    for (i, (choice, stream)) in cases.into_iter().enumerate() {
        let (status, calls, text, _) = proxy.ask(&request("m", choice.clone(), stream)).await;
        assert_eq!((status, calls), (200, the_call()), "tool_choice {choice:?}");
        assert!(!text.contains("get_weather"), "{text}");
        let seen = fake.requests();
        assert_eq!(seen.len(), i + 1, "asked once: {seen:?}");
        assert_eq!(seen[i].get("tool_choice"), choice.as_ref());
    }
}

/// Why `--upstream-tool-choice none` is not for SGLang: under "none" it leaves the tools
/// out of the prompt, and the model, not knowing them, calls nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sglang_drops_the_tools_under_none() {
    let (fake, proxy, _) = run_quick_start(
        "SGLang",
        Arc::new(sglang),
        &["--upstream-tool-choice", "none"],
    )
    .await;
    let (status, calls, text, _) = proxy.ask(&request("m", None, true)).await;
    assert_eq!((status, calls, text.as_str()), (200, vec![], NO_TOOLS));
    assert_eq!(fake.requests()[0]["tool_choice"], "none");
}

/// llama.cpp with jinja (the README's `--jinja --port 8000`, the proxy's `--upstream` on
/// that port): calls it parses pass through, a call in a format it does not know is
/// repaired, a named `tool_choice` (read as auto there) works; nothing is asked twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llama_cpp_quick_start() {
    for known in [true, false] {
        let behaviour = Arc::new(move |r: &Value| llama_cpp(r, true, known));
        let (fake, proxy, start) = run_quick_start("llama.cpp", behaviour, &[]).await;
        assert!(
            start.starts_with("llama-server ") && start.contains("--jinja"),
            "{start}"
        );
        for (choice, stream) in [(None, true), (Some(named()), false)] {
            let (status, calls, _, _) = proxy.ask(&request("m", choice, stream)).await;
            assert_eq!((status, calls), (200, the_call()), "known format: {known}");
        }
        assert_eq!(fake.requests().len(), 2);
    }
}

/// llama.cpp with `--no-jinja`: its 500 reaches the client with its message, and the
/// request is not sent again (no `tool_choice` helps).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llama_cpp_without_jinja_is_passed_on() {
    let behaviour = Arc::new(|r: &Value| llama_cpp(r, false, true));
    let (fake, proxy, _) = run_quick_start("llama.cpp", behaviour, &[]).await;
    for choice in [None, Some(json!("required"))] {
        let (status, _, _, error) = proxy.ask(&request("m", choice, true)).await;
        assert_eq!(status, 500);
        assert_eq!(
            error["error"]["message"], "tools param requires --jinja flag",
            "{error}"
        );
    }
    assert_eq!(fake.requests().len(), 2, "each asked once");
}

/// Ollama on 11434: `tool_choice` is ignored (even "none" gets the call Ollama parsed) and
/// nothing is asked twice; a model whose template has no tools gets Ollama's 400 with its
/// message, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_quick_start() {
    let behaviour = Arc::new(|r: &Value| ollama(r, r["model"] != "gemma3:4b"));
    let (fake, proxy, start) = run_quick_start("Ollama", behaviour, &[]).await;
    assert!(start.starts_with("ollama pull "), "{start}");
    let model = start.split_whitespace().nth(2).unwrap().to_owned();
    for (choice, stream) in [(None, true), (Some(json!("none")), false)] {
        let (status, calls, _, _) = proxy.ask(&request(&model, choice, stream)).await;
        assert_eq!((status, calls), (200, the_call()));
    }
    let (status, _, _, error) = proxy.ask(&request("gemma3:4b", None, true)).await;
    assert_eq!(status, 400);
    assert_eq!(
        error["error"]["message"],
        "registry.ollama.ai/library/gemma3:4b does not support tools"
    );
    assert_eq!(fake.requests().len(), 3, "each asked once");
}

/// LM Studio on 1234: a call it parsed passes through; one it left in the text (a model
/// it has no tool format for, writing its own) is repaired; asked once each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lm_studio_quick_start() {
    let (fake, proxy, start) = run_quick_start("LM Studio", Arc::new(lm_studio), &[]).await;
    assert!(start.starts_with("lms server start"), "{start}");
    for (model, stream) in [
        ("qwen3-8b", true),
        ("qwen3-8b", false),
        ("my-finetune", true),
    ] {
        let (status, calls, text, _) = proxy.ask(&request(model, None, stream)).await;
        assert_eq!((status, calls), (200, the_call()), "{model}");
        assert!(!text.contains("<tool_call>"), "{text}");
    }
    assert_eq!(fake.requests().len(), 3);
}
