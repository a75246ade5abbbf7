/**
 * PF4J plugins and provider instances: the plugin manager over {@code memstack.plugins.dir}, and
 * the {@link dev.memstack.host.plugin.ProviderRegistry} that turns {@code memstack.providers.*}
 * into running instances (the stack's members). The registry runs plugin operations one at a time
 * over three parts: the PF4J side ({@code PluginCatalog}: plugin lifecycle, offered provider types,
 * plugin descriptions), instance creation from configuration ({@code ProviderInstances}, with the
 * {@code ProviderContext} each instance gets) and the live members view ({@code MemberView}). Each
 * instance is wrapped in a {@code TrackedMemoryProvider} that counts its running calls, so that it
 * is closed only once they have ended or the close grace period has passed.
 */
package dev.memstack.host.plugin;
