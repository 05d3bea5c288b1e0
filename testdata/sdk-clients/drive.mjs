// drive.mjs runs one conversation through tracecheck's scripted model server
// with an official SDK, as an agent would, and prints what the SDK parsed as
// one JSON line on stdout. modelserver's tests (sdk_test.go) start the
// server, run this, and compare the output with the scenario's script.
//
//   node drive.mjs SDK MODE BASE_URL < config.json
//
// SDK is openai (Chat Completions), openai-responses (the Responses API,
// client.responses.create) or anthropic; MODE is whole, stream, orphan or
// fault; BASE_URL the server's URL (the OpenAI client gets BASE_URL/v1).
// config.json is {"prompt": "...", "tools": [{"name", "description",
// "parameters"}], "max_turns": N}, and for fault {"stream": bool,
// "max_retries": N, "timeout_ms": N} too.
//
// whole and stream run the agent loop: send the history, record the answer
// (text, the text deltas a stream delivered, tool calls with their
// arguments parsed, the finish or stop reason, how many argument deltas
// arrived), answer every tool call with {"ok": true, "call": ID}, and go on
// until an answer has no tool call. orphan sends a history whose assistant
// tool call has no tool result and prints the error the SDK raised.
//
// fault sends one request (streamed when config.stream) with the SDK's own
// retries (max_retries, the SDK's default when absent) and timeout
// (timeout_ms), through a fetch that records every attempt the SDK makes
// (its status and retry headers, or the error fetch raised; a HEAD / first
// warms fetch up and is not recorded), and prints
// {"turns": [the answer] or [], "error": the error the SDK raised or null,
//  "attempts": [...]}: what the SDK did with a scripted fault.
//
// openai-responses sends the conversation as input items each time (the
// previous answer's output items, then a function_call_output per call, as
// Codex does with store: false). Streamed, it also records each answer's
// event types in order, applies every event with the SDK's own
// accumulator (which throws on an event that does not fit the response so
// far) and fails when the sequence numbers do not count up from 0 or when
// the accumulated output differs from response.completed's.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';

const [sdk, mode, baseURL] = process.argv.slice(2);
const config = JSON.parse(await new Promise((resolve) => {
  let s = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => { s += d; });
  process.stdin.on('end', () => resolve(s));
}));
const model = 'scripted-model-v1';
const maxTurns = config.max_turns ?? 8;

function toolOutput(id) {
  return JSON.stringify({ ok: true, call: id });
}

async function openaiTurn(client, messages, tools, stream) {
  const body = { model, messages, tools };
  if (!stream) {
    const r = await client.chat.completions.create(body);
    const c = r.choices[0];
    return {
      message: c.message,
      out: {
        text: c.message.content ?? '',
        deltas: null,
        tool_calls: (c.message.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: JSON.parse(t.function.arguments) })),
        finish: c.finish_reason,
        argument_deltas: 0,
      },
    };
  }
  const s = client.chat.completions.stream(body);
  const deltas = [];
  let argumentDeltas = 0;
  s.on('content', (d) => deltas.push(d));
  s.on('tool_calls.function.arguments.delta', (e) => { if (e.arguments_delta) argumentDeltas++; });
  const r = await s.finalChatCompletion();
  const c = r.choices[0];
  return {
    message: c.message,
    out: {
      text: c.message.content ?? '',
      deltas,
      tool_calls: (c.message.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: JSON.parse(t.function.arguments) })),
      finish: c.finish_reason,
      argument_deltas: argumentDeltas,
    },
  };
}

async function runOpenAI(stream) {
  const client = new OpenAI({ baseURL: baseURL + '/v1', apiKey: 'dummy', maxRetries: 0 });
  const tools = config.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  const messages = [{ role: 'user', content: config.prompt }];
  const turns = [];
  for (let i = 0; i < maxTurns; i++) {
    const { message, out } = await openaiTurn(client, messages, tools, stream);
    turns.push(out);
    const assistant = { role: 'assistant', content: message.content ?? null };
    if (message.tool_calls?.length) assistant.tool_calls = message.tool_calls;
    messages.push(assistant);
    if (!out.tool_calls.length) break;
    for (const t of out.tool_calls) messages.push({ role: 'tool', tool_call_id: t.id, content: toolOutput(t.id) });
  }
  return turns;
}

function responsesOut(r, deltas, argumentDeltas, events) {
  const out = {
    text: r.output_text,
    deltas,
    tool_calls: r.output.filter((o) => o.type === 'function_call').map((o) => ({ id: o.call_id, name: o.name, arguments: JSON.parse(o.arguments) })),
    finish: r.status,
    argument_deltas: argumentDeltas,
  };
  if (events) out.events = events;
  return out;
}

async function responsesTurn(client, input, tools, stream) {
  const body = { model, input, tools, store: false, parallel_tool_calls: false };
  if (!stream) {
    const r = await client.responses.create(body);
    return { response: r, out: responsesOut(r, null, 0, null) };
  }
  const s = await client.responses.create({ ...body, stream: true });
  const deltas = [];
  const events = [];
  let argumentDeltas = 0;
  let snapshot;
  let accumulated;
  let completed;
  for await (const ev of s) {
    if (ev.sequence_number !== events.length) {
      throw new Error(`event ${events.length} (${ev.type}) has sequence_number ${ev.sequence_number}`);
    }
    events.push(ev.type);
    if (ev.type === 'response.completed') accumulated = JSON.stringify(snapshot.output);
    snapshot = accumulateResponse(ev, snapshot);
    if (ev.type === 'response.output_text.delta') deltas.push(ev.delta);
    if (ev.type === 'response.function_call_arguments.delta' && ev.delta) argumentDeltas++;
    if (ev.type === 'response.completed') completed = ev.response;
  }
  if (!completed) throw new Error('the stream ended without response.completed');
  if (accumulated !== JSON.stringify(completed.output)) {
    throw new Error(`the accumulated output ${accumulated} differs from response.completed's ${JSON.stringify(completed.output)}`);
  }
  return { response: snapshot, out: responsesOut(snapshot, deltas, argumentDeltas, events) };
}

async function runOpenAIResponses(stream) {
  const client = new OpenAI({ baseURL: baseURL + '/v1', apiKey: 'dummy', maxRetries: 0 });
  const tools = config.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
  const input = [{ role: 'user', content: config.prompt }];
  const turns = [];
  for (let i = 0; i < maxTurns; i++) {
    const { response, out } = await responsesTurn(client, input, tools, stream);
    turns.push(out);
    input.push(...response.output);
    if (!out.tool_calls.length) break;
    for (const t of out.tool_calls) input.push({ type: 'function_call_output', call_id: t.id, output: toolOutput(t.id) });
  }
  return turns;
}

async function anthropicTurn(client, messages, tools, stream) {
  const body = { model, max_tokens: 1024, messages, tools };
  let msg;
  let deltas = null;
  let argumentDeltas = 0;
  if (stream) {
    const s = client.messages.stream(body);
    deltas = [];
    s.on('text', (d) => deltas.push(d));
    s.on('inputJson', (partial) => { if (partial) argumentDeltas++; });
    msg = await s.finalMessage();
  } else {
    msg = await client.messages.create(body);
  }
  return {
    message: msg,
    out: {
      text: msg.content.filter((b) => b.type === 'text').map((b) => b.text).join(''),
      deltas,
      tool_calls: msg.content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.input })),
      finish: msg.stop_reason,
      argument_deltas: argumentDeltas,
    },
  };
}

async function runAnthropic(stream) {
  const client = new Anthropic({ baseURL, apiKey: 'dummy', maxRetries: 0 });
  const tools = config.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  const messages = [{ role: 'user', content: config.prompt }];
  const turns = [];
  for (let i = 0; i < maxTurns; i++) {
    const { message, out } = await anthropicTurn(client, messages, tools, stream);
    turns.push(out);
    messages.push({ role: 'assistant', content: message.content });
    if (!out.tool_calls.length) break;
    messages.push({ role: 'user', content: out.tool_calls.map((t) => ({ type: 'tool_result', tool_use_id: t.id, content: toolOutput(t.id) })) });
  }
  return turns;
}

async function orphan() {
  try {
    if (sdk === 'openai-responses') {
      const client = new OpenAI({ baseURL: baseURL + '/v1', apiKey: 'dummy', maxRetries: 0 });
      await client.responses.create({
        model,
        store: false,
        input: [
          { role: 'user', content: config.prompt },
          { type: 'function_call', call_id: 'call-orphan', name: 'lookup', arguments: '{}' },
          { role: 'user', content: 'go on' },
        ],
      });
    } else if (sdk === 'openai') {
      const client = new OpenAI({ baseURL: baseURL + '/v1', apiKey: 'dummy', maxRetries: 0 });
      await client.chat.completions.create({
        model,
        messages: [
          { role: 'user', content: config.prompt },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call-orphan', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
          { role: 'user', content: 'go on' },
        ],
      });
    } else {
      const client = new Anthropic({ baseURL, apiKey: 'dummy', maxRetries: 0 });
      await client.messages.create({
        model,
        max_tokens: 1024,
        messages: [
          { role: 'user', content: config.prompt },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'call-orphan', name: 'lookup', input: {} }] },
          { role: 'user', content: 'go on' },
        ],
      });
    }
    return { error: null };
  } catch (e) {
    return { error: { status: e.status ?? null, class: e.constructor.name, message: e.message } };
  }
}

// recordingFetch is fetch, each call recorded in attempts.
function recordingFetch(attempts) {
  return async (url, init) => {
    const a = { status: null, retry_after: null, retry_after_ms: null, error: null };
    attempts.push(a);
    try {
      const r = await fetch(url, init);
      a.status = r.status;
      a.retry_after = r.headers.get('retry-after');
      a.retry_after_ms = r.headers.get('retry-after-ms');
      return r;
    } catch (e) {
      a.error = describeError(e);
      throw e;
    }
  };
}

// describeError is an error as the Go test reads it: the class, status and
// message, and the chain of causes ("TypeError: terminated <- SocketError:
// other side closed").
function describeError(e) {
  const causes = [];
  for (let c = e?.cause; c && causes.length < 4; c = c.cause) causes.push(`${c.constructor?.name ?? typeof c}: ${c.message ?? c}${c.code ? ` (${c.code})` : ''}`);
  return { status: e?.status ?? null, class: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e), cause: causes.join(' <- ') };
}

async function fault() {
  const attempts = [];
  const opts = { apiKey: 'dummy', fetch: recordingFetch(attempts) };
  if (config.max_retries !== undefined) opts.maxRetries = config.max_retries;
  if (config.timeout_ms !== undefined) opts.timeout = config.timeout_ms;
  const stream = !!config.stream;
  const turns = [];
  let error = null;
  // Warm fetch up first (Node loads undici on the first call, which can take
  // longer than a short timeout), so the SDK's timeout times the server.
  await fetch(baseURL + '/', { method: 'HEAD' });
  try {
    if (sdk === 'openai') {
      const client = new OpenAI({ ...opts, baseURL: baseURL + '/v1' });
      turns.push((await openaiTurn(client, [{ role: 'user', content: config.prompt }], undefined, stream)).out);
    } else if (sdk === 'openai-responses') {
      const client = new OpenAI({ ...opts, baseURL: baseURL + '/v1' });
      turns.push((await responsesTurn(client, [{ role: 'user', content: config.prompt }], undefined, stream)).out);
    } else {
      const client = new Anthropic({ ...opts, baseURL });
      turns.push((await anthropicTurn(client, [{ role: 'user', content: config.prompt }], undefined, stream)).out);
    }
  } catch (e) {
    error = describeError(e);
  }
  return { turns, error, attempts };
}

let result;
if (mode === 'orphan') {
  result = await orphan();
} else if (mode === 'fault') {
  result = await fault();
} else if (sdk === 'openai') {
  result = { turns: await runOpenAI(mode === 'stream') };
} else if (sdk === 'openai-responses') {
  result = { turns: await runOpenAIResponses(mode === 'stream') };
} else if (sdk === 'anthropic') {
  result = { turns: await runAnthropic(mode === 'stream') };
} else {
  console.error(`unknown SDK ${sdk}: openai, openai-responses or anthropic`);
  process.exit(2);
}
process.stdout.write(JSON.stringify(result) + '\n');
