package dev.memstack.host.mcp;

import dev.memstack.support.Digests;
import java.util.Set;

/**
 * The MCP name of a provider tool: {@code <provider>__<tool>}, which uses only {@code
 * [A-Za-z0-9_-]} (provider ids and tool names use no other characters). Clients accept at most
 * {@value #MAX} characters, so a longer name is cut and ends in {@code _} and {@value #HASH_CHARS}
 * hex digits of the SHA-256 of the full name; a name already taken (provider {@code a__b} with tool
 * {@code c} meets provider {@code a} with tool {@code b__c}) gets the hash too. A name is never
 * parsed back: the host keeps the provider and tool of each name in a table.
 */
final class McpToolNames {

  /** Longest tool name the common MCP clients accept. */
  static final int MAX = 64;

  static final int HASH_CHARS = 8;

  private McpToolNames() {}

  /**
   * A name for {@code tool} of {@code provider} that is not in {@code taken}.
   *
   * @param taken the names in use (the host's own tools and the provider tools named before)
   */
  static String name(String provider, String tool, Set<String> taken) {
    String full = provider + "__" + tool;
    if (full.length() <= MAX && !taken.contains(full)) {
      return full;
    }
    String digest = Digests.sha256Hex(full);
    String prefix = full.substring(0, Math.min(full.length(), MAX - HASH_CHARS - 1));
    for (int start = 0; start + HASH_CHARS <= digest.length(); start++) {
      String candidate = prefix + "_" + digest.substring(start, start + HASH_CHARS);
      if (!taken.contains(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("no free MCP tool name for " + full);
  }
}
