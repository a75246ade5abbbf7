"""The context -> model -> turn loop of an agent against a memstack host, with the standard library only.

Run: MEMSTACK_URL=http://127.0.0.1:8080 MEMSTACK_TOKEN=$(cat dist/data/api-token) \
     python3 quickstart.py <ownerKey> <message>
The request and answer shapes are those of docs/openapi.json (ContextRequest, TurnRequest, ...).
"""
import json
import os
import sys
import urllib.error
import urllib.request

BASE_URL = os.environ.get("MEMSTACK_URL", "http://127.0.0.1:8080")
TOKEN = os.environ["MEMSTACK_TOKEN"]
AGENT = "quickstart"


def post(path, body):
    """POSTs a JSON body; an error answer raises with the host's ApiError."""
    request = urllib.request.Request(
        BASE_URL + path, data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as e:
        error = json.load(e)
        raise SystemExit(f"{path}: {e.code} {error['error']}: {error['message']}") from None


def fake_model(system, user):
    """A stand-in for a chat model: it echoes the user's message (put your model call here)."""
    return "You said: " + user.split("\n\n")[-1]


def main(owner_key="user:1", message="hello"):
    conversation_id = os.environ.get("MEMSTACK_CONVERSATION", "c1")
    # 1. Before the model runs: shared memory, the owner's own memory, what is recalled for this message.
    context = post(f"/api/v1/agents/{AGENT}/memory/context",
                   {"ownerKey": owner_key, "conversationId": conversation_id, "query": message})
    # 2. The model: both prompts in the system message, the fenced context before the user's message.
    system = "\n\n".join(p for p in (context["systemPrompt"], context["ownerPrompt"]) if p)
    reply = fake_model(system, f"{context['context']}\n\n{message}")
    # 3. After the model answered: hand in the turn (202; the providers learn from it in the background).
    turn = post(f"/api/v1/agents/{AGENT}/memory/turns",
                {"ownerKey": owner_key, "conversationId": conversation_id, "userMessage": message,
                 "assistantReply": reply, "triggerSource": "api"})
    print(json.dumps({"recalled": [item["text"] for item in context["recall"]], "reply": reply,
                      "turnId": turn["turnId"]}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
