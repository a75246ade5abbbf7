/**
 * The memory console: the static pages under {@code /console/} (classpath {@code console/}, plain
 * ES modules and CSS, no build step) that let a person with a token find, inspect, correct and
 * erase what memstack holds for an owner through the REST API. The files need no token; every API
 * call the page makes carries one. {@link dev.memstack.host.console.web.ConsolePages} serves them
 * and {@link dev.memstack.host.console.web.ConsoleHeadersFilter} gives them their security headers.
 */
package dev.memstack.host.console.web;
