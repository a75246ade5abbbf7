package dev.memstack.vector;

import dev.memstack.spi.RecallItem;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArguments;
import dev.memstack.vector.contradictions.Contradiction;
import dev.memstack.vector.contradictions.ContradictionInbox;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools of {@link dev.memstack.spi.Capability#CONTRADICTIONS}: {@code list_contradictions} (the
 * caller's open contradictions, oldest first: those of their personal memories, and those of the
 * agent's team memories and of global memories) and {@code resolve_contradiction} ({@code
 * keep-new}, {@code keep-old} or {@code keep-both}, each a {@code decision} event in both memories'
 * histories). A contradiction the caller may not see is {@code NOT_FOUND}, as one already decided;
 * deciding one of a scope the caller may not write is {@code FORBIDDEN}, before anything changes.
 * Also marks recalled memories that an open contradiction disputes ({@link #marked}).
 */
record ContradictionTools(
    VectorMemoryProvider provider, MemoryItemJson itemJson, MemoryAdminTools admin) {

  static final List<ToolSpec> SPECS =
      List.of(
          new ToolSpec(
              StandardTools.LIST_CONTRADICTIONS,
              "The current owner's open contradictions, oldest first: a newer statement (incoming,"
                  + " pending) that conflicts with an active memory (existing), kept both until"
                  + " the owner decides with resolve_contradiction.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"offset\":{\"type\":\"integer\",\"minimum\":0},"
                  + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100}},"
                  + "\"additionalProperties\":false}",
              ToolSpec.Effect.READ),
          new ToolSpec(
              StandardTools.RESOLVE_CONTRADICTION,
              "Decide one contradiction: keep-new (the incoming memory becomes active and"
                  + " supersedes the existing one), keep-old (the incoming one is archived) or"
                  + " keep-both (both are active).",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"id\":{\"type\":\"string\",\"description\":\"the contradiction's id\"},"
                  + "\"decision\":{\"type\":\"string\",\"enum\":[\"keep-new\",\"keep-old\","
                  + "\"keep-both\"]}},\"required\":[\"id\",\"decision\"],"
                  + "\"additionalProperties\":false}",
              ToolSpec.Effect.WRITE));

  /** The decisions {@code resolve_contradiction} takes. */
  static final Set<String> DECISIONS = Set.of("keep-new", "keep-old", "keep-both");

  /** Recall metadata of a disputed memory: the id of the open contradiction. */
  static final String CONTRADICTION = "contradiction";

  /** Recall metadata of a disputed memory: the id of the pending memory that disputes it. */
  static final String CONTRADICTED_BY = "contradictedBy";

  /** Recall metadata of a disputed memory: the text of the pending memory that disputes it. */
  static final String PENDING_TEXT = "pendingText";

  ObjectNode call(ToolCall call) {
    return switch (call.name()) {
      case StandardTools.LIST_CONTRADICTIONS -> list(call);
      case StandardTools.RESOLVE_CONTRADICTION -> resolve(call);
      default -> throw new IllegalArgumentException("no contradiction tool " + call.name());
    };
  }

  private ObjectNode list(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("offset", "limit"));
    int offset = args.optionalInt("offset", 0, 1_000_000, 0);
    int limit = args.optionalInt("limit", 1, 100, 20);
    List<Contradiction> open = inbox().queue().visibleTo(call.agent(), call.owner());
    ObjectNode answer = itemJson.json().createObjectNode();
    answer.put("total", open.size());
    answer.put("offset", offset);
    answer.put("limit", limit);
    ArrayNode items = answer.putArray("items");
    for (Contradiction c :
        open.subList(Math.min(offset, open.size()), Math.min(offset + limit, open.size()))) {
      MemoryRecord existing = record(c.existing());
      MemoryRecord incoming = record(c.incoming());
      if (existing == null || incoming == null) {
        continue; // forgotten this instant: its contradiction is being closed
      }
      ObjectNode item = items.addObject();
      item.put("id", c.id());
      item.put("createdAt", c.createdAt().toString());
      item.set("existing", itemJson.of(existing, null));
      item.set("incoming", itemJson.of(incoming, null));
    }
    return answer;
  }

  private ObjectNode resolve(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("id", "decision"));
    String id = args.requiredText("id");
    String decision = args.requiredText("decision").strip().toLowerCase(Locale.ROOT);
    if (!DECISIONS.contains(decision)) {
      throw ToolException.invalidArgument(
          "decision", "must be keep-new, keep-old or keep-both, got: " + decision);
    }
    Contradiction c =
        inbox()
            .queue()
            .get(id)
            .filter(found -> found.visibleTo(call.agent(), call.owner()))
            .orElseThrow(() -> notFound(call, id));
    synchronized (admin.lock(c.incoming())) {
      MemoryRecord existing = record(c.existing());
      MemoryRecord incoming = record(c.incoming());
      if (existing == null || incoming == null) {
        inbox().queue().remove(id);
        throw notFound(call, id);
      }
      call.requireWritable(c.scope());
      if (!inbox().queue().remove(id)) {
        throw notFound(call, id); // decided by another caller just now
      }
      Instant now = provider.now();
      MemoryStatus incomingTo;
      MemoryStatus existingTo;
      Map<String, Object> incomingChanges = new LinkedHashMap<>();
      Map<String, Object> existingChanges = new LinkedHashMap<>();
      switch (decision) {
        case "keep-new" -> {
          incomingTo = MemoryStatus.ACTIVE;
          existingTo = MemoryStatus.SUPERSEDED;
          incomingChanges.put(RememberTool.SUPERSEDES, supersedes(incoming, existing.id()));
          existingChanges.put(RememberTool.SUPERSEDED_BY, incoming.id());
          existingChanges.put(RememberTool.SUPERSEDED_AT, now.toEpochMilli());
        }
        case "keep-old" -> {
          incomingTo = MemoryStatus.ARCHIVED;
          existingTo = existing.status();
        }
        default -> {
          incomingTo = MemoryStatus.ACTIVE;
          existingTo = MemoryStatus.ACTIVE;
        }
      }
      change(incoming, incomingTo, incomingChanges, now);
      change(existing, existingTo, existingChanges, now);
      decided(incoming, existing, c, decision, incomingTo, call.actor(), now);
      decided(existing, incoming, c, decision, existingTo, call.actor(), now);
      ObjectNode answer = itemJson.json().createObjectNode();
      answer.put("id", c.id());
      answer.put("decision", decision);
      answer.set("existing", itemJson.of(reread(existing), null));
      answer.set("incoming", itemJson.of(reread(incoming), null));
      return answer;
    }
  }

  private void change(
      MemoryRecord record, MemoryStatus to, Map<String, Object> changes, Instant now) {
    if (to == record.status() && changes.isEmpty()) {
      return;
    }
    Map<String, Object> all = new LinkedHashMap<>(changes);
    all.put(MemoryVectorStore.STATUS, to.name());
    all.put(MemoryAdminTools.UPDATED_AT, now.toEpochMilli());
    provider.parts().store().updateMetadata(record.id(), all);
  }

  private void decided(
      MemoryRecord record,
      MemoryRecord other,
      Contradiction c,
      String decision,
      MemoryStatus to,
      String actor,
      Instant now) {
    Map<String, String> details = new LinkedHashMap<>();
    details.put("decision", decision);
    details.put("other", other.id());
    details.put(CONTRADICTION, c.id());
    details.put("status", to.wireName());
    details.put("previousStatus", record.status().wireName());
    admin.record(record, "decision", actor, now, details);
  }

  private static String supersedes(MemoryRecord incoming, String existingId) {
    Set<String> ids = new LinkedHashSet<>();
    Object earlier = incoming.extra().get(RememberTool.SUPERSEDES);
    if (earlier != null && !earlier.toString().isBlank()) {
      ids.addAll(List.of(earlier.toString().split(",")));
    }
    ids.add(existingId);
    return String.join(",", ids);
  }

  private MemoryRecord record(String id) {
    return provider.parts().store().get(id).map(MemoryRecord::fromDocument).orElse(null);
  }

  private MemoryRecord reread(MemoryRecord record) {
    MemoryRecord now = record(record.id());
    return now == null ? record : now;
  }

  private ContradictionInbox inbox() {
    return provider.parts().contradictions();
  }

  private static ToolException notFound(ToolCall call, String id) {
    return new ToolException(
        ToolException.Kind.NOT_FOUND,
        call.name()
            + ": no open contradiction "
            + id
            + " that "
            + (call.owner() == null
                ? "agent " + call.agent()
                : call.owner() + " of agent " + call.agent())
            + " may see");
  }

  // ------------------------------------------------------------------ recall

  /**
   * {@code item} (a recalled active memory) marked as disputed by {@code c}: its metadata carries
   * the contradiction's id, the pending memory's id and text, and its text says so, for the model
   * reads the text alone: one memory and the statement that disputes it, never two truths.
   */
  static RecallItem marked(RecallItem item, Contradiction c, MemoryRecord pending) {
    Map<String, String> metadata = new LinkedHashMap<>(item.metadata());
    metadata.put(CONTRADICTION, c.id());
    metadata.put(CONTRADICTED_BY, c.incoming());
    String text = item.text();
    if (pending != null) {
      String pendingText = MemoryTexts.undated(pending.text());
      metadata.put(PENDING_TEXT, pendingText);
      text =
          text
              + " [disputed: a newer statement, not yet confirmed by the owner, says: "
              + pendingText
              + "]";
    }
    return new RecallItem(
        text,
        item.score(),
        item.scope(),
        item.owner(),
        item.source(),
        item.createdAt(),
        metadata,
        item.vector());
  }

  /** The recall tool's item of a disputed memory: the same marks as fields. */
  static void marked(ObjectNode item, Contradiction c, MemoryRecord pending) {
    item.put(CONTRADICTION, c.id());
    item.put(CONTRADICTED_BY, c.incoming());
    if (pending != null) {
      item.put(PENDING_TEXT, MemoryTexts.undated(pending.text()));
    }
  }
}
