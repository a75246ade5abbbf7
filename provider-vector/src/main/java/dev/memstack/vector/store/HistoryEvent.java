package dev.memstack.vector.store;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.support.Require;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One change of one memory, as its history shows it.
 *
 * @param id the memory's id
 * @param agent the agent the memory belongs to
 * @param owner the owner of a PERSONAL memory, {@code null} for a shared one (erasing the owner
 *     removes the events of their memories)
 * @param at when it happened (millisecond precision)
 * @param event what happened: {@code updated}, {@code status}, {@code superseded}, {@code
 *     supersedes}, {@code trust}, {@code decision} or {@code forgotten} ({@code added} is not
 *     stored: every memory's history starts with it, from the memory itself)
 * @param actor who made the change (the API token's name), or {@code null} for the agent or the
 *     provider itself
 * @param details the event's other fields ({@code text}, {@code previous}, {@code status}, {@code
 *     previousStatus}, {@code reason}, {@code other}), none {@code null}
 */
public record HistoryEvent(
    String id,
    AgentId agent,
    OwnerKey owner,
    Instant at,
    String event,
    String actor,
    Map<String, String> details) {

  /** A memory's history after a forget holds this event alone, without any text. */
  public static final String FORGOTTEN = "forgotten";

  public HistoryEvent {
    Require.nonNull("id agent at event", id, agent, at, event);
    at = Instant.ofEpochMilli(at.toEpochMilli());
    Map<String, String> copy = new LinkedHashMap<>();
    if (details != null) {
      details.forEach(
          (key, value) -> {
            if (key != null && value != null) {
              copy.put(key, value);
            }
          });
    }
    details = java.util.Collections.unmodifiableMap(copy);
  }

  /** The event as one flat map: {@code id, agent, owner?, at, event, actor?} then the details. */
  public Map<String, String> toMap() {
    Map<String, String> map = OwnedRows.head(id, agent, owner);
    map.put("at", at.toString());
    map.put("event", event);
    if (actor != null) {
      map.put("actor", actor);
    }
    details.forEach(map::putIfAbsent);
    return map;
  }

  /**
   * Reads {@link #toMap()} back.
   *
   * @throws IllegalArgumentException for a map without id, agent, at or event
   */
  public static HistoryEvent fromMap(Map<String, ?> map) {
    Map<String, String> details = new LinkedHashMap<>();
    map.forEach(
        (key, value) -> {
          if (value != null && !HEAD.contains(key)) {
            details.put(key, value.toString());
          }
        });
    Object actor = map.get("actor");
    Object at = map.get("at");
    Object agent = map.get("agent");
    if (at == null || agent == null) {
      throw new IllegalArgumentException("a history event needs agent and at: " + map);
    }
    return new HistoryEvent(
        String.valueOf(map.get("id")),
        AgentId.of(agent.toString()),
        OwnedRows.owner(map),
        Instant.parse(at.toString()),
        String.valueOf(map.get("event")),
        actor == null ? null : actor.toString(),
        details);
  }

  private static final java.util.Set<String> HEAD =
      java.util.Set.of("id", "agent", "owner", "at", "event", "actor");
}
