// AG-UI's own packages reading `toolstream parse --emit ag-ui` of every capture.
//
// Run by tests/clients.rs: `node ag_ui.mjs BASE_URL MANIFEST OUT`. MANIFEST is a JSON list
// of cases `{"name", "agui", "thread_id", "run_id"}`: `agui` is the path under BASE_URL
// serving the re-emitted stream, made with `--thread-id` / `--run-id` set to the ids the
// client sends.
//
// For each case:
// - `schema`: every event of the stream checked with `@ag-ui/core`'s `EventSchemas` (the
//   official zod schemas), and, since those schemas accept unknown keys, every key checked
//   against its event's schema too (a misspelt field would otherwise pass): the list of
//   problems (empty when all pass);
// - `HttpAgent` (`@ag-ui/client`) runs against the same URL with that thread id and run
//   id, and the messages it built are read back: `calls` (each assistant tool call's name
//   and JSON-parsed arguments), `text` (the assistant messages' content), `reasoning`
//   (the reasoning messages' content), `error` (the run's failure message, `null` if it
//   finished), `thread_id` / `run_id` of its RUN_STARTED as the agent saw it.

import { readFileSync, writeFileSync } from "node:fs";
import { HttpAgent } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";

const [base, manifestPath, outPath] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(manifestPath, "utf8"));
const message = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : JSON.stringify(e));
const byType = new Map(EventSchemas.options.map((s) => [s.shape.type.value, s]));

async function schemaProblems(url) {
  const body = await (await fetch(url, { method: "POST", body: "{}" })).text();
  const problems = [];
  const blocks = body.split("\n\n").filter((b) => b.trim() !== "");
  for (const block of blocks) {
    if (!block.startsWith("data: ")) {
      problems.push(`not a data: line: ${block.slice(0, 80)}`);
      continue;
    }
    const event = JSON.parse(block.slice(6));
    const parsed = EventSchemas.safeParse(event);
    if (!parsed.success) {
      problems.push(`${event.type}: ${parsed.error.message}`);
      continue;
    }
    const keys = Object.keys(byType.get(event.type).shape);
    for (const k of Object.keys(event)) {
      if (!keys.includes(k)) problems.push(`${event.type}: unknown key ${k}`);
    }
  }
  return { problems, events: blocks.length };
}

async function run(c) {
  const url = base + c.agui;
  const out = { schema: await schemaProblems(url) };
  const agent = new HttpAgent({ url, threadId: c.thread_id });
  let started = null;
  let error = null;
  try {
    await agent.runAgent(
      { runId: c.run_id },
      {
        onRunStartedEvent: ({ event }) => {
          started = { thread_id: event.threadId, run_id: event.runId };
        },
        onRunErrorEvent: ({ event }) => {
          error = event.message;
        },
      },
    );
  } catch (e) {
    if (error === null) error = message(e);
  }
  const calls = [];
  let text = "";
  let reasoning = "";
  for (const m of agent.messages) {
    if (m.role === "assistant") {
      text += typeof m.content === "string" ? m.content : "";
      for (const tc of m.toolCalls ?? []) {
        let args;
        try {
          args = JSON.parse(tc.function.arguments);
        } catch {
          args = { unparsed: tc.function.arguments };
        }
        calls.push({ name: tc.function.name, arguments: args });
      }
    } else if (m.role === "reasoning") {
      reasoning += m.content ?? "";
    }
  }
  return { ...out, calls, text, reasoning, error, started, messages: agent.messages.length };
}

const results = {};
for (const c of cases) {
  results[c.name] = await run(c);
}
writeFileSync(outPath, JSON.stringify({ client: "@ag-ui/client 1.0.0", results }));
