package dev.memstack.mem0;

import java.util.List;
import java.util.Objects;

/**
 * What the server did with an add: memory events ({@code ADD}, {@code UPDATE}, {@code DELETE},
 * {@code NONE}) from a synchronous server, or queued events ({@code PENDING}) from the Platform's
 * asynchronous pipeline. Both mean the turn was accepted.
 *
 * @param events the events in answer order, never {@code null}
 */
record Mem0AddResult(List<Event> events) {

  Mem0AddResult {
    events = List.copyOf(Objects.requireNonNull(events, "events"));
  }

  /**
   * One entry of an add answer.
   *
   * @param id the memory id, or {@code null} (queued events have none yet)
   * @param event {@code ADD}, {@code UPDATE}, {@code DELETE}, {@code NONE}, or {@code null}
   * @param memory the memory text, or {@code null}
   * @param status {@code PENDING} or {@code SUCCEEDED} for queued events, else {@code null}
   * @param eventId the Platform's event id to poll, or {@code null}
   */
  record Event(String id, String event, String memory, String status, String eventId) {}

  /** How many events were queued for later processing. */
  long pending() {
    return events.stream().filter(e -> "PENDING".equalsIgnoreCase(e.status())).count();
  }

  /** How many events carry the given memory event name ({@code ADD}, {@code UPDATE}, ...). */
  long count(String eventName) {
    return events.stream().filter(e -> eventName.equalsIgnoreCase(e.event())).count();
  }
}
