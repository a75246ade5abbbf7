/**
 * The host's conversation log: each conversation's turns as the host accepted them, kept durably
 * and size-bounded, behind {@link dev.memstack.host.conversation.ConversationLog}.
 */
package dev.memstack.host.conversation;
