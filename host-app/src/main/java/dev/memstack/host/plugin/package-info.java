/**
 * PF4J plugins and provider instances: the plugin manager over {@code memstack.plugins.dir}, the
 * registry that turns {@code memstack.providers.*} into running instances (the stack's members),
 * and the {@code ProviderContext} each instance gets.
 */
package dev.memstack.host.plugin;
