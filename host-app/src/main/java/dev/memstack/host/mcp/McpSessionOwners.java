package dev.memstack.host.mcp;

import dev.memstack.host.security.Caller;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which token opened which MCP session. A session belongs to the token (by its name, which also
 * fixes its role and owner binding) whose {@code initialize} created it; a request of any other
 * token that names the session is answered as if the session did not exist. Sessions live in this
 * host's memory, as the transport's own sessions do.
 */
final class McpSessionOwners {

  private final Map<String, String> owners = new ConcurrentHashMap<>();

  /** Records that {@code caller} opened {@code session}. */
  void opened(String session, Caller caller) {
    owners.put(session, key(caller));
  }

  /**
   * Whether {@code caller} may use {@code session}: it opened it, or the session is not one this
   * host knows (then the transport answers that it does not exist).
   */
  boolean mayUse(String session, Caller caller) {
    String owner = owners.get(session);
    return owner == null || owner.equals(key(caller));
  }

  /** Forgets a session that was closed. */
  void closed(String session) {
    owners.remove(session);
  }

  int size() {
    return owners.size();
  }

  private static String key(Caller caller) {
    return caller == null ? "" : caller.name();
  }
}
