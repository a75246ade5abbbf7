/**
 * The memstack host application: a Spring Boot app with one package per concern ({@code plugin},
 * {@code stack}, {@code api}, {@code model}).
 */
package dev.memstack.host;
