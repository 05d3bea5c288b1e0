"""A minimal coding agent that talks to an OpenAI-compatible model.

It needs only the Python standard library. Run it against tracecheck's
scripted model:

    tracecheck model run --scenario s03-tool-dispatch --trace run.jsonl -- \
        python3 example_agent.py "Use the echo tool, then report its result."

tracecheck sets OPENAI_BASE_URL (and a dummy OPENAI_API_KEY); against a real
endpoint the same code runs unchanged. --stream asks for server-sent events.
"""
import json
import os
import sys
import urllib.request

BASE_URL = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
API_KEY = os.environ["OPENAI_API_KEY"]
MODEL = os.environ.get("AGENT_MODEL", "gpt-4o-mini")

# The agent's tools: what the model may call, and the code that runs them.
TOOLS = {
    "echo": {
        "description": "Return the supplied text.",
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "required": ["text"],
            "properties": {"text": {"type": "string"}},
        },
        "run": lambda args: {"echo": args["text"]},
    },
}


def post(body):
    """POST body to the chat completions endpoint; return the response."""
    req = urllib.request.Request(
        BASE_URL + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + API_KEY},
    )
    return urllib.request.urlopen(req)


def complete(messages, stream):
    """Ask the model; return its message (content and tool_calls)."""
    body = {
        "model": MODEL,
        "messages": messages,
        "tools": [
            {"type": "function", "function": {"name": n, "description": t["description"], "parameters": t["parameters"]}}
            for n, t in TOOLS.items()
        ],
        "stream": stream,
    }
    with post(body) as resp:
        if not stream:
            return json.load(resp)["choices"][0]["message"]
        # A stream is server-sent events: "data: {chunk}" lines, then "data: [DONE]".
        message = {"role": "assistant", "content": "", "tool_calls": []}
        for line in resp:
            line = line.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            delta = json.loads(line[len("data: "):])["choices"][0]["delta"]
            message["content"] += delta.get("content") or ""
            for d in delta.get("tool_calls") or []:
                if d["index"] == len(message["tool_calls"]):
                    message["tool_calls"].append({"id": d["id"], "type": "function", "function": {"name": d["function"]["name"], "arguments": ""}})
                message["tool_calls"][d["index"]]["function"]["arguments"] += d["function"].get("arguments") or ""
        return message


def main():
    stream = "--stream" in sys.argv[1:]
    prompt = " ".join(a for a in sys.argv[1:] if a != "--stream")
    messages = [{"role": "user", "content": prompt}]
    for _ in range(8):
        message = complete(messages, stream)
        calls = message.get("tool_calls") or []
        assistant = {"role": "assistant", "content": message.get("content")}
        if calls:
            assistant["tool_calls"] = calls
        messages.append(assistant)
        if not calls:
            print(message.get("content") or "")
            return 0
        for call in calls:
            args = json.loads(call["function"]["arguments"])
            result = TOOLS[call["function"]["name"]]["run"](args)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result, sort_keys=True)})
    print("gave up after 8 turns", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
