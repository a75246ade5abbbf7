package dev.memstack.client;

import tools.jackson.databind.JsonNode;

/**
 * One tool of one running provider.
 *
 * @param provider the provider instance id, the first path part of a call
 * @param name the tool's name
 * @param description what it does, for the model
 * @param inputSchema the JSON Schema of its arguments
 */
public record Tool(String provider, String name, String description, JsonNode inputSchema) {}
