package dev.memstack.vector;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.support.ToolArgumentErrors;
import dev.memstack.support.ToolArguments;
import dev.memstack.vector.contradictions.Contradiction;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.text.Supersession;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code remember} tool of {@link VectorMemoryTools}: stores one memory unless a near-identical
 * one exists, and supersedes the active memories whose value the new statement changes (each pair
 * judged by {@link Supersession}).
 *
 * @param provider the provider whose store, embedder and settings it uses
 * @param itemJson writes the memories of the answer, whose mapper writes the rest of it
 * @param admin records each supersession in both memories' histories
 */
record RememberTool(
    VectorMemoryProvider provider, MemoryItemJson itemJson, MemoryAdminTools admin) {

  ObjectNode remember(ToolCall call) {
    ToolArguments args =
        ToolArguments.parse(call).requireOnly(Set.of("text", "scope", "type", "name"));
    String text = args.requiredText("text").strip();
    int max = provider.parts().settings().chunkSize();
    if (text.length() > max) {
      throw ToolArgumentErrors.invalid(
          "text",
          "is longer than "
              + max
              + " characters (chunk-size); store one short statement per memory");
    }
    Scope scope =
        VectorMemoryTools.scope(Objects.requireNonNullElse(args.optionalText("scope"), "personal"));
    String type;
    try {
      type =
          MemoryRecord.normalizeType(Objects.requireNonNullElse(args.optionalText("type"), "FACT"));
    } catch (IllegalArgumentException e) {
      throw ToolException.invalidArgument("type", e.getMessage());
    }
    if (provider.parts().types().find(call.agent(), type).isEmpty()) {
      throw ToolException.invalidArgument(
          "type",
          "agent "
              + call.agent()
              + " has no memory type "
              + type
              + "; known types: "
              + TypeTools.known(provider.parts().types(), call.agent())
              + " (memory_create_type adds one)");
    }
    String name = args.optionalText("name");
    if (name != null && name.length() > MAX_NAME) {
      throw ToolArgumentErrors.invalid("name", "is longer than " + MAX_NAME + " characters");
    }
    OwnerKey owner = null;
    if (scope == Scope.PERSONAL) {
      if (call.owner() == null) {
        throw ToolException.invalidArgument(
            "scope", "a personal memory needs an owner; call with an owner or scope team");
      }
      owner = call.owner();
    }
    call.requireWritable(scope);
    if (name != null) {
      return rememberNamed(call, owner, scope, type, name, text);
    }
    MemoryRecord record =
        MemoryTexts.remembered(call.agent(), owner, scope, type, text, provider.now());
    MemoryVectorStore store = provider.parts().store();

    Optional<MemoryRecord> sameId = store.get(record.id()).map(MemoryRecord::fromDocument);
    if (sameId.isPresent() && sameId.get().status() != MemoryStatus.SUPERSEDED) {
      return duplicateAnswer(sameId.get(), List.of());
    }
    // a superseded record of the same text is stated again: it is stored anew (same id), active
    Verdicts verdicts = judgeNeighbours(record);
    if (verdicts.duplicate() != null) {
      MemoryRecord existing = verdicts.duplicate();
      List<MemoryRecord> outdated =
          existing.status() == MemoryStatus.ACTIVE ? verdicts.outdated() : List.of();
      if (!outdated.isEmpty()) {
        store.updateMetadata(
            existing.id(), Map.of(SUPERSEDES, supersedes(existing.extra(), outdated)));
        supersede(outdated, existing);
        existing = store.get(existing.id()).map(MemoryRecord::fromDocument).orElse(existing);
      }
      return duplicateAnswer(existing, outdated);
    }
    List<MemoryRecord> outdated = verdicts.outdated();
    if (!outdated.isEmpty() && provider.parts().contradictions().enabled()) {
      return contradict(call, record.withStatus(MemoryStatus.PENDING), outdated);
    }
    if (!outdated.isEmpty()) {
      record = record.withExtra(SUPERSEDES, supersedes(Map.of(), outdated));
    }
    // the new record first: a failure in between leaves both active, never neither
    store.add(List.of(record.toDocument()));
    supersede(outdated, record);
    return answer(true, "id", record, outdated);
  }

  /**
   * {@code remember} with a name: the record of that name (agent, owner, scope and type) is found
   * by its id ({@link MemoryTexts#named}). An active one with the same text is left as it is; with
   * another text it is replaced in place (re-embedded, same id and createdAt, {@code updated_at}
   * now), the earlier text returned as {@code previous}. None, or one no longer active, is stored
   * anew, active. Neither duplicates nor supersession are looked for: the name says which memory
   * this is.
   */
  private ObjectNode rememberNamed(
      ToolCall call, OwnerKey owner, Scope scope, String type, String name, String text) {
    MemoryVectorStore store = provider.parts().store();
    java.time.Instant now = provider.now();
    MemoryRecord fresh = MemoryTexts.named(call.agent(), owner, scope, type, name, text, now);
    Optional<MemoryRecord> found = store.get(fresh.id()).map(MemoryRecord::fromDocument);
    ObjectNode answer = itemJson.json().createObjectNode();
    if (found.isPresent() && found.get().status() == MemoryStatus.ACTIVE) {
      MemoryRecord current = found.get();
      String previous = MemoryTexts.undated(current.text());
      if (previous.equals(text)) {
        answer.put("stored", false);
        answer.put("unchanged", true);
        answer.put("id", current.id());
        answer.set("memory", itemJson.of(current, null));
        return answer;
      }
      Map<String, Object> extra = new java.util.LinkedHashMap<>(current.extra());
      extra.put(MemoryTexts.NAME, name);
      extra.put(MemoryTexts.UPDATED_AT, now.toEpochMilli());
      MemoryRecord updated =
          new MemoryRecord(
              current.id(),
              MemoryTexts.dated(now, text),
              current.agent(),
              current.owner(),
              current.scope(),
              MemoryStatus.ACTIVE,
              current.type(),
              current.conversation(),
              current.turn(),
              current.createdAt(),
              extra);
      store.add(List.of(updated.toDocument()));
      admin.record(
          updated, "updated", call.actor(), now, Map.of("text", text, "previous", previous));
      answer.put("stored", true);
      answer.put("updated", true);
      answer.put("id", updated.id());
      answer.set("memory", itemJson.of(updated, null));
      answer.put("previous", previous);
      return answer;
    }
    store.add(List.of(fresh.toDocument()));
    answer.put("stored", true);
    answer.put("id", fresh.id());
    answer.set("memory", itemJson.of(fresh, null));
    if (found.isPresent()) {
      // an archived, suppressed or superseded memory of this name: its slot is taken anew
      admin.record(
          fresh,
          "updated",
          call.actor(),
          now,
          Map.of(
              "text",
              text,
              "previous",
              MemoryTexts.undated(found.get().text()),
              "status",
              "active",
              "previousStatus",
              found.get().status().wireName()));
      answer.put("previous", MemoryTexts.undated(found.get().text()));
      answer.put("previousStatus", found.get().status().wireName());
    }
    return answer;
  }

  /**
   * With the contradiction check on: the new record is stored pending, the memories it changes stay
   * active, and each pair goes to the owner's inbox ({@link
   * dev.memstack.vector.contradictions.ContradictionInbox#open}).
   */
  private ObjectNode contradict(ToolCall call, MemoryRecord pending, List<MemoryRecord> existing) {
    provider.parts().store().add(List.of(pending.toDocument()));
    List<Contradiction> opened =
        provider.parts().contradictions().open(pending, existing, call.actor(), provider.now());
    ObjectNode answer = itemJson.json().createObjectNode();
    answer.put("stored", true);
    answer.put("id", pending.id());
    answer.set("memory", itemJson.of(pending, null));
    answer.put("pending", true);
    ArrayNode contradicts = answer.putArray("contradicts");
    existing.forEach(r -> contradicts.add(r.id()));
    ArrayNode ids = answer.putArray("contradictions");
    opened.forEach(c -> ids.add(c.id()));
    return answer;
  }

  /** The longest name {@code remember} takes. */
  static final int MAX_NAME = 200;

  /** Metadata key of a record that replaced others: their ids, comma-separated. */
  static final String SUPERSEDES = "supersedes";

  /** Metadata key of a SUPERSEDED record: the id of the record that replaced it. */
  static final String SUPERSEDED_BY = "superseded_by";

  /** Metadata key of a SUPERSEDED record: when it was replaced (epoch millis). */
  static final String SUPERSEDED_AT = "superseded_at";

  /** How many nearest records (by vector, and by keywords) a new memory is compared with. */
  private static final int NEIGHBOURS = 5;

  /**
   * What the nearest records are to the new one: the first duplicate (nearest first), and the
   * ACTIVE records whose value it changes.
   */
  private record Verdicts(MemoryRecord duplicate, List<MemoryRecord> outdated) {}

  /**
   * Compares the new record with its nearest records in the same scope (and owner): the {@value
   * #NEIGHBOURS} nearest by vector and the {@value #NEIGHBOURS} best keyword hits, any status but
   * SUPERSEDED (history is not compared). Each pair is judged by {@link Supersession}, with the
   * vector hits' cosine against {@code dedupe-threshold}.
   */
  private Verdicts judgeNeighbours(MemoryRecord record) {
    MemoryVectorStore store = provider.parts().store();
    Filter.Expression candidates =
        MemoryFilters.and(
            sameScope(record),
            MemoryFilters.status(
                EnumSet.of(MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED, MemoryStatus.SUPPRESSED)));
    String text = MemoryTexts.undated(record.text());
    float[] vector =
        provider.parts().embedder().embedPassages(List.of(record.embeddingText())).get(0);
    Map<String, Document> neighbours = new java.util.LinkedHashMap<>();
    Map<String, Double> cosines = new java.util.HashMap<>();
    for (Document hit : store.vectorSearch(vector, candidates, NEIGHBOURS, -1)) {
      neighbours.put(hit.getId(), hit);
      if (hit.getScore() != null) {
        cosines.put(hit.getId(), hit.getScore());
      }
    }
    for (Document hit : store.keywordSearch(text, candidates, NEIGHBOURS)) {
      neighbours.putIfAbsent(hit.getId(), hit); // a keyword score is no cosine
    }
    double near = provider.parts().settings().dedupeThreshold();
    MemoryRecord duplicate = null;
    List<MemoryRecord> outdated = new ArrayList<>();
    for (Document hit : neighbours.values()) {
      MemoryRecord neighbour = MemoryRecord.fromDocument(hit);
      if (neighbour.id().equals(record.id())) {
        continue;
      }
      Supersession.Verdict verdict =
          Supersession.judge(
              MemoryTexts.undated(neighbour.text()),
              text,
              cosines.getOrDefault(neighbour.id(), Double.NaN),
              near);
      if (verdict == Supersession.Verdict.DUPLICATE && duplicate == null) {
        duplicate = neighbour;
      } else if (verdict == Supersession.Verdict.UPDATE
          && neighbour.status() == MemoryStatus.ACTIVE) {
        outdated.add(neighbour);
      }
    }
    return new Verdicts(duplicate, List.copyOf(outdated));
  }

  private void supersede(List<MemoryRecord> outdated, MemoryRecord by) {
    java.time.Instant now = provider.now();
    for (MemoryRecord old : outdated) {
      provider
          .parts()
          .store()
          .updateMetadata(
              old.id(),
              Map.of(
                  MemoryVectorStore.STATUS,
                  MemoryStatus.SUPERSEDED.name(),
                  SUPERSEDED_BY,
                  by.id(),
                  SUPERSEDED_AT,
                  now.toEpochMilli(),
                  MemoryAdminTools.UPDATED_AT,
                  now.toEpochMilli()));
      String newer = MemoryTexts.undated(by.text());
      String older = MemoryTexts.undated(old.text());
      admin.record(
          old,
          "superseded",
          null,
          now,
          Map.of(
              "other", by.id(), "text", newer, "status", "superseded", "previousStatus", "active"));
      admin.record(by, "supersedes", null, now, Map.of("other", old.id(), "previous", older));
    }
  }

  private static String supersedes(Map<String, Object> extra, List<MemoryRecord> outdated) {
    java.util.LinkedHashSet<String> ids = new java.util.LinkedHashSet<>();
    Object earlier = extra.get(SUPERSEDES);
    if (earlier != null && !earlier.toString().isBlank()) {
      ids.addAll(List.of(earlier.toString().split(",")));
    }
    outdated.forEach(r -> ids.add(r.id()));
    return String.join(",", ids);
  }

  private ObjectNode duplicateAnswer(MemoryRecord existing, List<MemoryRecord> outdated) {
    return answer(false, "duplicateOf", existing, outdated);
  }

  /**
   * The tool's answer: stored or not, the memory's id under {@code idKey}, and what it replaced.
   */
  private ObjectNode answer(
      boolean stored, String idKey, MemoryRecord memory, List<MemoryRecord> outdated) {
    ObjectNode answer = itemJson.json().createObjectNode();
    answer.put("stored", stored);
    answer.put(idKey, memory.id());
    answer.set("memory", itemJson.of(memory, null));
    supersededJson(answer, outdated);
    return answer;
  }

  private void supersededJson(ObjectNode answer, List<MemoryRecord> outdated) {
    if (outdated.isEmpty()) {
      return;
    }
    ArrayNode ids = answer.putArray("supersedes");
    ArrayNode items = answer.putArray("superseded");
    for (MemoryRecord old : outdated) {
      ids.add(old.id());
      items.add(itemJson.of(old.withStatus(MemoryStatus.SUPERSEDED), null));
    }
  }

  private static Filter.Expression sameScope(MemoryRecord record) {
    Filter.Expression scope = MemoryFilters.eq(MemoryVectorStore.SCOPE, record.scope().name());
    return switch (record.scope()) {
      case GLOBAL -> scope;
      case TEAM ->
          MemoryFilters.and(
              scope, MemoryFilters.eq(MemoryVectorStore.AGENT, record.agent().value()));
      case PERSONAL ->
          MemoryFilters.and(
              MemoryFilters.and(
                  scope, MemoryFilters.eq(MemoryVectorStore.AGENT, record.agent().value())),
              MemoryFilters.eq(MemoryVectorStore.OWNER, record.owner().value()));
    };
  }
}
