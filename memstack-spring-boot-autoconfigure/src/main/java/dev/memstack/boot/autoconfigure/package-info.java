/**
 * Spring Boot auto-configuration of the memstack client ({@code memstack.client.*}) and, when
 * Spring AI is on the class path, of the {@code MemstackAdvisor}.
 */
package dev.memstack.boot.autoconfigure;
