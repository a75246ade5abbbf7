/**
 * End-to-end tests of the integrations against the built distribution ({@code dist/memstack.jar}
 * with {@code dist/plugins}), started as a child process.
 */
package dev.memstack.it;
