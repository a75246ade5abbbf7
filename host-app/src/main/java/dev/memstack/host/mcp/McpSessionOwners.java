package dev.memstack.host.mcp;

import dev.memstack.host.security.Caller;
import dev.memstack.host.security.ManagedTokens;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which token opened which MCP session. A session belongs to the token (by its name, which also
 * fixes its role and owner binding) whose {@code initialize} created it; a request of any other
 * token that names the session is answered as if the session did not exist. A session of a managed
 * token that was revoked ({@link #revoked}) is ended: every later request that names it, whatever
 * its token, is answered as if it did not exist (its open stream is closed by {@link
 * dev.memstack.host.security.OpenStreams}). Sessions live in this host's memory, as the transport's
 * own sessions do.
 */
final class McpSessionOwners {

  private final Map<String, String> owners = new ConcurrentHashMap<>();
  private final Set<String> ended = ConcurrentHashMap.newKeySet();

  /** Records that {@code caller} opened {@code session}. */
  void opened(String session, Caller caller) {
    owners.put(session, key(caller));
  }

  /**
   * Whether {@code caller} may use {@code session}: it opened it, or the session is not one this
   * host knows (then the transport answers that it does not exist).
   */
  boolean mayUse(String session, Caller caller) {
    if (ended.contains(session)) {
      return false;
    }
    String owner = owners.get(session);
    return owner == null || owner.equals(key(caller));
  }

  /** Ends every session the managed token {@code tokenId} opened; returns how many. */
  int revoked(String tokenId) {
    String key = ManagedTokens.PREFIX + tokenId;
    int count = 0;
    for (Map.Entry<String, String> entry : owners.entrySet()) {
      if (entry.getValue().equals(key) && owners.remove(entry.getKey(), key)) {
        ended.add(entry.getKey());
        count++;
      }
    }
    return count;
  }

  /** Forgets a session that was closed. */
  void closed(String session) {
    owners.remove(session);
  }

  int size() {
    return owners.size();
  }

  private static String key(Caller caller) {
    return caller == null ? "" : caller.identity();
  }
}
