/**
 * The builtin provider's storage ports: {@link dev.memstack.builtin.store.WorkspaceStore}, {@link
 * dev.memstack.builtin.store.KeywordIndex} and {@link
 * dev.memstack.builtin.store.ConversationBuffer}, the values they exchange, the store settings, and
 * {@link dev.memstack.builtin.store.Stores}, the one factory that picks the adapters ({@code
 * store.files} or {@code store.postgres}).
 */
package dev.memstack.builtin.store;
