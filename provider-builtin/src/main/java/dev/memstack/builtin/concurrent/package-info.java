/** The plugin's own threads: daemons with the plugin's class loader as context class loader. */
package dev.memstack.builtin.concurrent;
