/**
 * The conversation window: what to send the chat model next for one conversation, within its input
 * budget — the system prompt, the workspace files, a summary of the older turns (made by the chat
 * model, cached by the covered prefix on every host), the recent turns verbatim and the current
 * message — counted by {@link dev.memstack.host.window.TokenCounter}, behind {@link
 * dev.memstack.host.window.ConversationWindows}.
 */
package dev.memstack.host.window;
