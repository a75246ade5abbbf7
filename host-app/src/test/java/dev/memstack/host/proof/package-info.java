/**
 * Proof of the host's trust properties under hostile input, random multi-owner traffic, provider
 * outages and load: real plugin zips in a real host, spoken to over HTTP with an API token.
 */
package dev.memstack.host.proof;
