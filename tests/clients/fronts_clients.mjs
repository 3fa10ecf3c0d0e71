// Node clients of the proxy's `/v1/messages` and `/v1/responses` fronts (run by tests/fronts.rs,
// copied beside target/clients/node/node_modules).
//
// `node fronts_clients.mjs MANIFEST OUT`: MANIFEST and OUT as for fronts_clients.py (`{"tools",
// "cases": [{"name", "base", "prompt", "frameworks"}]}` in, `{case: {client: {"calls", "text",
// "reasoning", "stop", "error", "status"}}}` out).
//
// - `@anthropic-ai/sdk`: `messages.stream(...).finalMessage()`, `messages.create` (whole);
// - `openai`: `responses.stream(...)` → `finalResponse()`, `responses.create` streamed (its
//   `output_item.done` items and terminal event; reasoning summaries asked for) and whole;
// - the Vercel AI SDK over `@ai-sdk/anthropic` (`createAnthropic({baseURL})`) and
//   `@ai-sdk/openai` (`createOpenAI({baseURL}).responses(model)`): `streamText` (its
//   `tool-call`, `text-delta`, `reasoning-delta`, `error` and `finish` parts) and
//   `generateText` (`reasoningSummary: "auto"` for Responses); the tools declared with `jsonSchema` and one with a zod schema, no
//   `execute` (the SDK reports the calls).

import { readFileSync, writeFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, streamText, tool } from "ai";
import { z } from "zod";

const [manifestPath, outPath] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
const MODEL = "toolstream-test";
const TIMEOUT = 30000;

const result = (calls, text, reasoning, stop) => ({ calls, text, reasoning, stop, error: null, agent: false });
const failure = (e) => {
  const body = e?.error ?? e?.responseBody ?? null;
  return {
    error: e instanceof Error ? `${e.name}: ${e.message} ${body ? JSON.stringify(body) : ""}` : JSON.stringify(e),
    status: e?.status ?? e?.statusCode ?? null,
  };
};

// --- Anthropic SDK

const anthropicKw = (c) => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: "user", content: c.prompt }],
  tools: manifest.tools.map((t) => ({
    name: t.function.name,
    description: t.function.description,
    input_schema: t.function.parameters,
  })),
});

const anthropicClient = (c) => new Anthropic({ baseURL: c.base, apiKey: "sk-test", maxRetries: 0, timeout: TIMEOUT });

function fromMessage(m) {
  const calls = [];
  let text = "";
  let thinking = "";
  for (const b of m.content) {
    if (b.type === "tool_use") calls.push({ name: b.name, arguments: b.input });
    else if (b.type === "text") text += b.text;
    else if (b.type === "thinking") thinking += b.thinking;
  }
  return result(calls, text, thinking, m.stop_reason);
}

async function anthropicStream(c) {
  return fromMessage(await anthropicClient(c).messages.stream(anthropicKw(c)).finalMessage());
}

async function anthropicWhole(c) {
  return fromMessage(await anthropicClient(c).messages.create(anthropicKw(c)));
}

// --- OpenAI SDK, Responses

const responsesKw = (c) => ({
  model: MODEL,
  input: [{ role: "user", content: c.prompt }],
  tools: manifest.tools.map((t) => ({
    type: "function",
    name: t.function.name,
    description: t.function.description,
    parameters: t.function.parameters,
    strict: false,
  })),
});

const openaiClient = (c) => new OpenAI({ baseURL: `${c.base}/v1`, apiKey: "sk-test", maxRetries: 0, timeout: TIMEOUT });

function fromItems(items, status) {
  const calls = [];
  let text = "";
  let reasoning = "";
  for (const item of items) {
    if (item.type === "function_call") calls.push({ name: item.name, arguments: JSON.parse(item.arguments) });
    else if (item.type === "message") text += item.content.filter((p) => p.type === "output_text").map((p) => p.text).join("");
    else if (item.type === "reasoning") {
      reasoning += (item.content ?? []).map((p) => p.text).join("");
      reasoning += (item.summary ?? []).map((p) => p.text).join("");
    }
  }
  return result(calls, text, reasoning, status);
}

function fromResponse(r) {
  if (r.status === "failed") throw new Error(`response failed: ${JSON.stringify(r.error)}`);
  return fromItems(r.output, r.status);
}

async function responsesStream(c) {
  const s = openaiClient(c).responses.stream(responsesKw(c));
  for await (const _ of s) {
    // read to the end
  }
  return fromResponse(await s.finalResponse());
}

async function responsesRaw(c) {
  const items = [];
  let status = null;
  for await (const ev of await openaiClient(c).responses.create({ ...responsesKw(c), stream: true, reasoning: { summary: "auto" } })) {
    if (ev.type === "response.output_item.done") items[ev.output_index] = ev.item;
    else if (ev.type === "response.completed" || ev.type === "response.incomplete") status = ev.response.status;
    else if (ev.type === "response.failed") throw new Error(`response.failed: ${JSON.stringify(ev.response.error)}`);
  }
  if (status === null) throw new Error("the stream ended without response.completed");
  return fromItems(items.filter(Boolean), status);
}

async function responsesWhole(c) {
  return fromResponse(await openaiClient(c).responses.create(responsesKw(c)));
}

// --- Vercel AI SDK

function vercelTools() {
  const tools = {};
  for (const t of manifest.tools) {
    tools[t.function.name] = tool({ description: t.function.description, inputSchema: jsonSchema(t.function.parameters) });
  }
  // One with a zod schema.
  tools.get_time = tool({ description: "The time in a zone", inputSchema: z.object({ zone: z.string() }) });
  return tools;
}

const vercelModel = {
  anthropic: (c) => createAnthropic({ baseURL: `${c.base}/v1`, apiKey: "sk-test" })(MODEL),
  responses: (c) => createOpenAI({ baseURL: `${c.base}/v1`, apiKey: "sk-test" }).responses(MODEL),
};

function vercel(kind, stream) {
  return async (c) => {
    const request = {
      model: vercelModel[kind](c),
      messages: [{ role: "user", content: c.prompt }],
      tools: vercelTools(),
      maxRetries: 0,
      // Reasoning as a summary, which is all this provider reads (`forceReasoning`: the
      // model name is not one it knows to reason).
      ...(kind === "responses" ? { providerOptions: { openai: { forceReasoning: true, reasoningSummary: "auto" } } } : {}),
    };
    if (!stream) {
      const r = await generateText(request);
      return result(
        r.toolCalls.map((t) => ({ name: t.toolName, arguments: t.input })),
        r.text,
        r.reasoningText ?? "",
        r.finishReason,
      );
    }
    const out = result([], "", "", null);
    let error = null;
    const s = streamText({ ...request, onError: ({ error: e }) => { error ??= e; } });
    for await (const part of s.fullStream) {
      if (part.type === "text-delta") out.text += part.text;
      else if (part.type === "reasoning-delta") out.reasoning += part.text;
      else if (part.type === "tool-call") out.calls.push({ name: part.toolName, arguments: part.input });
      else if (part.type === "error") error ??= part.error;
      else if (part.type === "finish") out.stop = part.finishReason ?? null;
    }
    if (error !== null) return failure(error);
    return out;
  };
}

const SDKS = [
  ["@anthropic-ai/sdk messages.stream", anthropicStream],
  ["@anthropic-ai/sdk messages.create", anthropicWhole],
  ["openai(node) responses.stream", responsesStream],
  ["openai(node) responses.create(stream)", responsesRaw],
  ["openai(node) responses.create", responsesWhole],
];
const FRAMEWORKS = [
  ["vercel @ai-sdk/anthropic streamText", vercel("anthropic", true)],
  ["vercel @ai-sdk/anthropic generateText", vercel("anthropic", false)],
  ["vercel @ai-sdk/openai responses streamText", vercel("responses", true)],
  ["vercel @ai-sdk/openai responses generateText", vercel("responses", false)],
];

const results = {};
for (const c of manifest.cases) {
  results[c.name] = {};
  for (const [client, run] of [...SDKS, ...(c.frameworks ? FRAMEWORKS : [])]) {
    try {
      results[c.name][client] = await run(c);
    } catch (e) {
      results[c.name][client] = failure(e);
    }
  }
}
writeFileSync(outPath, JSON.stringify(results));
