/**
 * How the host calls a provider, in one place. {@link dev.memstack.host.provider.StackMember} and
 * {@link dev.memstack.host.provider.StackMembers} are the running providers of the stack. {@link
 * dev.memstack.host.provider.ProviderCalls} runs every call under the plugin's class loader ({@link
 * dev.memstack.host.provider.PluginClassLoader}, the only switch of the thread context class
 * loader) and measures it; background work calls it directly. {@link
 * dev.memstack.host.provider.RequestCalls} runs the request path's calls on a bounded pool under a
 * deadline (never interrupting a late call) and, per provider instance and hook, a {@link
 * dev.memstack.support.CircuitBreaker} kept by {@link dev.memstack.host.provider.Breakers}; each
 * such call ends in a {@link dev.memstack.host.provider.CallOutcome}.
 */
package dev.memstack.host.provider;
