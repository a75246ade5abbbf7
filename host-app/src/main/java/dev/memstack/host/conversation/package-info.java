/**
 * The host's conversation log: each conversation's turns as the stack accepted them (it records the
 * {@link dev.memstack.spi.Turn} it hands to the outbox), kept durably and size-bounded behind
 * {@link dev.memstack.host.conversation.ConversationLog} and read back as {@link
 * dev.memstack.host.conversation.ConversationEntry}: files under the data folder, or the shared
 * database in shared mode.
 */
package dev.memstack.host.conversation;
