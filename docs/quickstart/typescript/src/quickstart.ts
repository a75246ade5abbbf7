// The context -> model -> turn loop of an agent, with a memstack client generated from
// docs/openapi.json (openapi-typescript) and openapi-fetch. Run: MEMSTACK_URL=http://127.0.0.1:8080
// MEMSTACK_TOKEN=$(cat dist/data/api-token) node dist/quickstart.js <ownerKey> <message>
import createClient from "openapi-fetch";
import type { paths } from "./memstack.js";

const memstack = createClient<paths>({
  baseUrl: process.env.MEMSTACK_URL ?? "http://127.0.0.1:8080",
  headers: { Authorization: `Bearer ${process.env.MEMSTACK_TOKEN}` },
});
const [ownerKey = "user:1", message = "hello"] = process.argv.slice(2);
const params = { path: { agentId: "quickstart" } };
const conversationId = process.env.MEMSTACK_CONVERSATION ?? "c1";

// 1. Before the model runs: shared memory, the owner's own memory, and what is recalled for this message.
const context = await memstack.POST("/api/v1/agents/{agentId}/memory/context", {
  params,
  body: { ownerKey, conversationId, query: message },
});
if (!context.data) throw new Error(`context: ${context.error?.error}: ${context.error?.message}`);
const { systemPrompt = "", ownerPrompt = "", context: fenced = "", recall = [] } = context.data;

// 2. The model: system prompt and owner prompt in the system message, the fenced context before the user's.
const reply = fakeModel([systemPrompt, ownerPrompt].join("\n\n"), `${fenced}\n\n${message}`);

// 3. After the model answered: hand in the turn (202; the providers learn from it in the background).
const turn = await memstack.POST("/api/v1/agents/{agentId}/memory/turns", {
  params,
  body: { ownerKey, conversationId, userMessage: message, assistantReply: reply, triggerSource: "api" },
});
if (!turn.data) throw new Error(`turn: ${turn.error?.error}: ${turn.error?.message}`);
console.log(JSON.stringify({ recalled: recall.map((item) => item.text), reply, turnId: turn.data.turnId }));

/** A stand-in for a chat model: it echoes the user's message (put your model call here). */
function fakeModel(system: string, user: string): string {
  return `You said: ${user.split("\n\n").pop()}`;
}
