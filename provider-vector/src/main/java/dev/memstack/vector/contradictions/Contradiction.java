package dev.memstack.vector.contradictions;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.support.Require;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.OwnedRows;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;

/**
 * One open contradiction: an incoming (pending) memory that conflicts with an existing (active)
 * one. Both memories have the same agent, scope and owner, which the contradiction copies: a
 * PERSONAL one belongs to its owner's inbox, a TEAM or GLOBAL one ({@code owner} {@code null}) to
 * every inbox that sees such memories, and is decided by a caller who may write that scope.
 *
 * @param id the contradiction's id, derived from the two memory ids
 * @param agent the memories' agent
 * @param owner the owner of PERSONAL memories, {@code null} for shared ones
 * @param scope the memories' scope
 * @param existing the id of the active memory contradicted
 * @param incoming the id of the pending memory that contradicts it
 * @param createdAt when it was opened (millisecond precision)
 */
public record Contradiction(
    String id,
    AgentId agent,
    OwnerKey owner,
    Scope scope,
    String existing,
    String incoming,
    Instant createdAt) {

  public Contradiction {
    Require.nonNull(
        "id agent scope existing incoming createdAt",
        id,
        agent,
        scope,
        existing,
        incoming,
        createdAt);
    if ((scope == Scope.PERSONAL) != (owner != null)) {
      throw new IllegalArgumentException(
          "a contradiction has an owner exactly when it is personal");
    }
    createdAt = Instant.ofEpochMilli(createdAt.toEpochMilli());
  }

  /**
   * The contradiction of the pending record {@code incoming} against the active {@code existing},
   * its id derived from both, in {@code incoming}'s agent, owner and scope.
   */
  public static Contradiction between(MemoryRecord incoming, String existing, Instant createdAt) {
    return new Contradiction(
        idOf(existing, incoming.id()),
        incoming.agent(),
        incoming.owner(),
        incoming.scope(),
        existing,
        incoming.id(),
        createdAt);
  }

  /** {@code c-} and 24 hex digits of the SHA-256 of both ids: the same pair, the same id. */
  static String idOf(String existing, String incoming) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest((existing + "\n" + incoming).getBytes(StandardCharsets.UTF_8));
      return "c-" + HexFormat.of().formatHex(hash, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether a caller of {@code agent} for {@code owner} (or none) sees this contradiction. */
  public boolean visibleTo(AgentId caller, OwnerKey callerOwner) {
    return switch (scope) {
      case GLOBAL -> true;
      case TEAM -> agent.equals(caller);
      case PERSONAL -> agent.equals(caller) && owner.equals(callerOwner);
    };
  }

  /** Whether it names the memory {@code recordId}, as either side. */
  public boolean names(String recordId) {
    return existing.equals(recordId) || incoming.equals(recordId);
  }

  /** As one flat map of strings, for a file line. */
  public Map<String, String> toMap() {
    Map<String, String> map = OwnedRows.head(id, agent, owner);
    map.put("scope", scope.name());
    map.put("existing", existing);
    map.put("incoming", incoming);
    map.put("createdAt", createdAt.toString());
    return map;
  }

  /**
   * Reads {@link #toMap()} back.
   *
   * @throws IllegalArgumentException for a map missing a field or with a bad value
   */
  public static Contradiction fromMap(Map<String, ?> map) {
    try {
      return new Contradiction(
          String.valueOf(map.get("id")),
          AgentId.of(String.valueOf(map.get("agent"))),
          OwnedRows.owner(map),
          Scope.valueOf(String.valueOf(map.get("scope"))),
          String.valueOf(map.get("existing")),
          String.valueOf(map.get("incoming")),
          Instant.parse(String.valueOf(map.get("createdAt"))));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a contradiction: " + map, e);
    }
  }
}
