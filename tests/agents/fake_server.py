#!/usr/bin/env python3
"""A scripted model server for tests/agents.rs: one tool call, then text quoting its result.

    fake_server.py --api chat|messages|responses --call JSON --log FILE [--port N] [--omit A,B]

--call is the call the model makes on its first turn: {"name": ..., "arguments": {...}}.
Once a request carries the call's result (Chat: a `role: "tool"` message; Messages: a
`tool_result` block; Responses: a `function_call_output` item), the model answers with
text quoting that result: "The tool said: <result>".

--api chat       an OpenAI Chat Completions server (POST /v1/chat/completions) whose model
                 LEAKS the call as Hermes text in streamed `content` deltas
                 (`<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>`, split over
                 several chunks): the upstream for `toolstream proxy --content hermes`.
--api messages   the Anthropic Messages API natively (POST /v1/messages, SSE or JSON;
                 POST /v1/messages/count_tokens): what Claude Code expects.
--api responses  the OpenAI Responses API natively (POST /v1/responses, SSE): what
                 `codex exec` expects.

Every request is appended to --log as one JSON line: method, path, headers (credentials
redacted), body (parsed JSON when it is JSON), and the status answered. Any other route
gets 404 with an error body. --omit drops parts of the native replies to find what a
client really needs (see tests/agents/NOTES.md): an SSE event type (`ping`,
`message_stop`, `response.completed`, ...), or `usage` (message_start's / the response's
usage), `ids` (the Responses items' `id`), `sequence_number`, `event-lines` (SSE `event:` lines).

Prints `listening on http://127.0.0.1:PORT` on stdout once it accepts connections.
"""

import argparse
import http.server
import json
import sys
import threading
import time

SECRET_HEADERS = {"authorization", "x-api-key", "cookie", "proxy-authorization"}


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--api", choices=["chat", "messages", "responses"], required=True)
    p.add_argument("--call", required=True, help='{"name": ..., "arguments": {...}}')
    p.add_argument("--log", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--omit", default="")
    return p.parse_args()


ARGS = parse_args()
CALL = json.loads(ARGS.call)
OMIT = {x for x in ARGS.omit.split(",") if x}
LOCK = threading.Lock()
COUNTER = [0]


def next_id():
    with LOCK:
        COUNTER[0] += 1
        return COUNTER[0]


def log(entry):
    with LOCK, open(ARGS.log, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def text_of(content):
    """The text of a tool result: a string, or a list of blocks / parts with `text`."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(text_of(c) for c in content)
    if isinstance(content, dict):
        for k in ("text", "content", "output"):
            if k in content:
                return text_of(content[k])
    return ""


def tool_result(api, body):
    """The tool's result the request carries, or None on the first turn."""
    if api == "chat":
        for m in body.get("messages") or []:
            if m.get("role") == "tool":
                return text_of(m.get("content"))
    elif api == "messages":
        for m in body.get("messages") or []:
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        return text_of(b.get("content"))
    else:
        items = body.get("input")
        for i in items if isinstance(items, list) else []:
            if isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output"):
                return text_of(i.get("output"))
    return None


def chunks(s, n=4):
    """`s` in about `n` pieces (a streamed model's deltas)."""
    size = max(1, -(-len(s) // n))
    return [s[i : i + size] for i in range(0, len(s), size)]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def handle_any(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): ("<redacted>" if k.lower() in SECRET_HEADERS else v) for k, v in self.headers.items()},
            "body": body,
        }
        path = self.path.split("?")[0]
        try:
            if self.command == "POST" and isinstance(body, dict):
                if ARGS.api == "chat" and path == "/v1/chat/completions":
                    return self.api_chat(body, entry)
                if ARGS.api == "messages" and path == "/v1/messages":
                    return self.api_messages(body, entry)
                if ARGS.api == "messages" and path == "/v1/messages/count_tokens":
                    return self.send_json(200, {"input_tokens": max(1, len(raw) // 4)}, entry)
                if ARGS.api == "responses" and path == "/v1/responses":
                    return self.api_responses(body, entry)
            err = {"type": "not_found_error", "message": f"{self.command} {path}: no such route on this fake"}
            self.send_json(404, {"type": "error", "error": err}, entry)
        except (BrokenPipeError, ConnectionResetError):
            entry["status"] = "client closed"
            log(entry)

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_OPTIONS = handle_any

    def send_json(self, status, value, entry):
        entry["status"] = status
        log(entry)
        b = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(b)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(b)

    def sse_start(self, entry):
        entry["status"] = 200
        log(entry)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    def sse(self, data, event=None):
        """One SSE event (`event:` line when given); `data` a dict, or a raw string."""
        kind = data.get("type") if isinstance(data, dict) else None
        if kind in OMIT or (event is not None and event in OMIT):
            return
        out = f"event: {event}\n" if event and "event-lines" not in OMIT else ""
        out += "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
        self.wfile.write(out.encode())
        self.wfile.flush()
        time.sleep(0.005)

    # --- Chat Completions upstream whose model leaks its call as Hermes text --------------
    def api_chat(self, body, entry):
        result = tool_result("chat", body)
        model = body.get("model") or "fake"
        cid = f"chatcmpl-fake{next_id()}"
        if result is None:
            leak = "<tool_call>\n" + json.dumps({"name": CALL["name"], "arguments": CALL["arguments"]}) + "\n</tool_call>"
            pieces = chunks(leak, 6)
        else:
            pieces = chunks("The tool said: " + result, 3)
        if not body.get("stream"):
            msg = {"role": "assistant", "content": "".join(pieces)}
            choice = {"index": 0, "message": msg, "finish_reason": "stop"}
            return self.send_json(200, {"id": cid, "object": "chat.completion", "created": int(time.time()), "model": model, "choices": [choice]}, entry)
        self.sse_start(entry)
        base = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
        self.sse({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})
        for p in pieces:
            self.sse({**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]})
        self.sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            self.sse({**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
        self.sse("[DONE]")

    # --- Anthropic Messages ----------------------------------------------------------------
    def api_messages(self, body, entry):
        result = tool_result("messages", body)
        model = body.get("model") or "fake"
        mid = f"msg_fake{next_id()}"
        usage = {"input_tokens": 10, "output_tokens": 1}
        if result is None:
            block = {"type": "tool_use", "id": f"toolu_fake{next_id()}", "name": CALL["name"], "input": CALL["arguments"]}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": "The tool said: " + result}
            stop = "end_turn"
        if not body.get("stream"):
            msg = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [block],
                   "stop_reason": stop, "stop_sequence": None, "usage": usage}
            return self.send_json(200, msg, entry)
        self.sse_start(entry)
        start = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
                 "stop_reason": None, "stop_sequence": None}
        if "usage" not in OMIT:
            start["usage"] = usage
        self.sse({"type": "message_start", "message": start}, "message_start")
        self.sse({"type": "ping"}, "ping")
        if block["type"] == "tool_use":
            first = {**block, "input": {}}
            self.sse({"type": "content_block_start", "index": 0, "content_block": first}, "content_block_start")
            for p in chunks(json.dumps(block["input"])):
                d = {"type": "input_json_delta", "partial_json": p}
                self.sse({"type": "content_block_delta", "index": 0, "delta": d}, "content_block_delta")
        else:
            self.sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, "content_block_start")
            for p in chunks(block["text"]):
                self.sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}, "content_block_delta")
        self.sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        delta = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}}
        if "usage" not in OMIT:
            delta["usage"] = {"output_tokens": 5}
        self.sse(delta, "message_delta")
        self.sse({"type": "message_stop"}, "message_stop")

    # --- OpenAI Responses ------------------------------------------------------------------
    def api_responses(self, body, entry):
        result = tool_result("responses", body)
        model = body.get("model") or "fake"
        rid = f"resp_fake{next_id()}"
        seq = [0]

        def ev(kind, **fields):
            e = {"type": kind, **fields}
            if "sequence_number" not in OMIT:
                e["sequence_number"] = seq[0]
                seq[0] += 1
            self.sse(e, kind)

        def with_id(item, iid):
            return item if "ids" in OMIT else {"id": iid, **item}

        self.sse_start(entry)
        resp = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "in_progress",
                "model": model, "output": []}
        ev("response.created", response=resp)
        ev("response.in_progress", response=resp)
        if result is None:
            iid = f"fc_fake{next_id()}"
            args = json.dumps(CALL["arguments"])
            item = with_id({"type": "function_call", "call_id": f"call_fake{next_id()}", "name": CALL["name"],
                            "arguments": "", "status": "in_progress"}, iid)
            ev("response.output_item.added", output_index=0, item=item)
            for p in chunks(args):
                ev("response.function_call_arguments.delta", item_id=iid, output_index=0, delta=p)
            ev("response.function_call_arguments.done", item_id=iid, output_index=0, arguments=args)
            done = {**item, "arguments": args, "status": "completed"}
        else:
            iid = f"msg_fake{next_id()}"
            text = "The tool said: " + result
            item = with_id({"type": "message", "role": "assistant", "status": "in_progress", "content": []}, iid)
            ev("response.output_item.added", output_index=0, item=item)
            part = {"type": "output_text", "text": "", "annotations": []}
            ev("response.content_part.added", item_id=iid, output_index=0, content_index=0, part=part)
            for p in chunks(text):
                ev("response.output_text.delta", item_id=iid, output_index=0, content_index=0, delta=p)
            ev("response.output_text.done", item_id=iid, output_index=0, content_index=0, text=text)
            ev("response.content_part.done", item_id=iid, output_index=0, content_index=0, part={**part, "text": text})
            done = {**item, "status": "completed", "content": [{**part, "text": text}]}
        ev("response.output_item.done", output_index=0, item=done)
        final = {**resp, "status": "completed", "output": [done]}
        if "usage" not in OMIT:
            final["usage"] = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        ev("response.completed", response=final)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
