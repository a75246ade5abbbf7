package dev.memstack.host.items;

import dev.memstack.host.api.BadRequestException;
import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.security.AccessDeniedException;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The memory routes without a {@code provider}: one owner's memories across every running provider
 * that claims {@link Capability#MEMORY_ADMIN}, in stack order. A listing merges the providers'
 * pages newest first (by {@code createdAt}, then stack order, then each provider's own order; with
 * one such provider, its own page as it is), each item naming its {@code provider}; a count adds
 * the providers' counts up; a call by id goes to the provider that has the memory (the first in
 * stack order that does not answer "not found"), since an id names one provider's memory. A
 * provider that fails is listed under {@code failed} and the others answer; a bad argument or a
 * refused right is the caller's error and answers as it is.
 */
final class AcrossProviders {

  private static final Logger LOG = LoggerFactory.getLogger(AcrossProviders.class);

  /** The most a provider answers in one page ({@code list_memories}' own limit). */
  private static final int PAGE = 100;

  /** The most items a merged listing reads from each provider ({@code offset + limit}). */
  static final int MAX_DEPTH = 10_000;

  private static final String ORDER = "_order";
  private static final String POSITION = "_position";

  /**
   * Newest first; among memories of one instant, stack order, then each provider's own order: a
   * merge of lists each sorted newest first, so every page is a slice of one order.
   */
  private static final Comparator<JsonNode> NEWEST_FIRST =
      Comparator.comparing(AcrossProviders::createdAt)
          .reversed()
          .thenComparingInt(item -> item.path(ORDER).asInt())
          .thenComparingInt(item -> item.path(POSITION).asInt());

  private final CapabilityTools providers;
  private final JsonMapper json;

  AcrossProviders(CapabilityTools providers, JsonMapper json) {
    this.providers = providers;
    this.json = json;
  }

  /** Every running provider that claims the capability, with its {@code tool}, in stack order. */
  private List<CapabilityTools.Served> serving(String tool) {
    return providers.claiming(Capability.MEMORY_ADMIN, tool);
  }

  /**
   * A page of the merged listing: {@code offset} and {@code limit} (default 0 and 20, at most 100)
   * over every provider's memories matching {@code filters}.
   */
  JsonNode list(AgentId agent, OwnerKey owner, ObjectNode filters, int offset, int limit) {
    List<JsonNode> merged = new ArrayList<>();
    ObjectNode answer = json.createObjectNode();
    ArrayNode each = json.createArrayNode();
    ArrayNode failed = json.createArrayNode();
    long total = 0;
    List<CapabilityTools.Served> served = serving(StandardTools.LIST_MEMORIES);
    if (served.size() == 1) {
      // nothing to merge: the provider pages itself, however deep the page
      CapabilityTools.Served one = served.get(0);
      ObjectNode arguments = filters.deepCopy();
      arguments.put("offset", offset).put("limit", limit);
      ObjectNode page = (ObjectNode) providers.call(one, agent, owner, arguments);
      page.path("items").forEach(item -> ((ObjectNode) item).put("provider", one.member().id()));
      page.putArray("providers")
          .addObject()
          .put("provider", one.member().id())
          .put("total", page.path("total").asLong());
      return page;
    }
    if (offset + limit > MAX_DEPTH) {
      throw new BadRequestException(
          "offset",
          "across providers, offset + limit is at most "
              + MAX_DEPTH
              + "; name a provider to page further");
    }
    long[] skip = skips(served, agent, owner, filters, offset);
    long skipped = 0;
    for (int order = 0; order < served.size(); order++) {
      CapabilityTools.Served one = served.get(order);
      try {
        long providerTotal =
            readInto(merged, one, agent, owner, filters, (int) skip[order], offset + limit, order);
        total += providerTotal;
        skipped += Math.min(skip[order], providerTotal);
        each.addObject().put("provider", one.member().id()).put("total", providerTotal);
      } catch (RuntimeException e) {
        failed(failed, one, e);
      }
    }
    merged.sort(NEWEST_FIRST);
    answer.put("total", total).put("offset", offset).put("limit", limit);
    ArrayNode items = answer.putArray("items");
    int from = (int) Math.min(merged.size(), offset - skipped);
    merged
        .subList(from, Math.min(from + limit, merged.size()))
        .forEach(item -> items.add(((ObjectNode) item).without(List.of(ORDER, POSITION))));
    answer.set("providers", each);
    if (!failed.isEmpty()) {
      answer.set("failed", failed);
    }
    return answer;
  }

  /**
   * How many of each provider's newest items lie before the page for sure, and need not be read: an
   * item at a provider's position {@code i} has at most the other providers' totals before it in
   * the merge, so with {@code i < offset - others} it comes before {@code offset}. A page of one
   * provider among providers that hold little starts right at its offset; the totals cost one small
   * call per provider, made only for a page past the first. A provider whose total cannot be read
   * counts as holding everything, so that the others skip nothing (its failure shows when it is
   * read).
   */
  private long[] skips(
      List<CapabilityTools.Served> served,
      AgentId agent,
      OwnerKey owner,
      ObjectNode filters,
      int offset) {
    long[] totals = new long[served.size()];
    long[] skip = new long[served.size()];
    if (offset == 0) {
      return skip;
    }
    long all = 0;
    for (int i = 0; i < served.size(); i++) {
      try {
        ObjectNode first = filters.deepCopy().put("offset", 0).put("limit", 1);
        totals[i] = providers.call(served.get(i), agent, owner, first).path("total").asLong();
      } catch (RuntimeException e) {
        totals[i] = Long.MAX_VALUE / served.size(); // unknown: as if it held everything
      }
      all += totals[i];
    }
    for (int i = 0; i < served.size(); i++) {
      skip[i] = Math.max(0, offset - (all - totals[i]));
    }
    return skip;
  }

  /**
   * Reads one provider's items at positions {@code from} to {@code depth} into {@code merged}; its
   * total.
   */
  private long readInto(
      List<JsonNode> merged,
      CapabilityTools.Served one,
      AgentId agent,
      OwnerKey owner,
      ObjectNode filters,
      int from,
      int depth,
      int order) {
    long total = 0;
    if (from >= depth) {
      ObjectNode arguments = filters.deepCopy().put("offset", 0).put("limit", 1);
      return providers.call(one, agent, owner, arguments).path("total").asLong();
    }
    for (int read = from; read < depth; ) {
      ObjectNode arguments = filters.deepCopy();
      arguments.put("offset", read).put("limit", Math.min(PAGE, depth - read));
      JsonNode page = providers.call(one, agent, owner, arguments);
      total = page.path("total").asLong();
      JsonNode items = page.path("items");
      int position = read;
      for (JsonNode item : items) {
        ObjectNode copy = ((ObjectNode) item).deepCopy();
        copy.put("provider", one.member().id());
        copy.put(ORDER, order);
        copy.put(POSITION, position++);
        merged.add(copy);
      }
      read += items.size();
      if (items.isEmpty() || read >= total) {
        break;
      }
    }
    return total;
  }

  /** The providers' counts added up: {@code total}, {@code byStatus}, {@code byType}. */
  JsonNode count(AgentId agent, OwnerKey owner, ObjectNode filters) {
    ObjectNode answer = json.createObjectNode();
    long total = 0;
    ObjectNode byStatus = json.createObjectNode();
    ObjectNode byType = json.createObjectNode();
    ObjectNode byProvider = json.createObjectNode();
    ArrayNode failed = json.createArrayNode();
    for (CapabilityTools.Served one : serving(StandardTools.COUNT_MEMORIES)) {
      try {
        JsonNode counted = providers.call(one, agent, owner, filters.deepCopy());
        total += counted.path("total").asLong();
        byProvider.put(one.member().id(), counted.path("total").asLong());
        add(byStatus, counted.path("byStatus"));
        add(byType, counted.path("byType"));
      } catch (RuntimeException e) {
        failed(failed, one, e);
      }
    }
    answer.put("total", total);
    answer.set("byStatus", byStatus);
    answer.set("byType", byType);
    answer.set("byProvider", byProvider);
    if (!failed.isEmpty()) {
      answer.set("failed", failed);
    }
    return answer;
  }

  /**
   * Calls {@code tool} on the provider that has the memory {@code arguments.id}: the first in stack
   * order that does not answer "not found"; its answer names it as {@code provider}.
   *
   * @throws ToolException the first "not found" when no provider has the memory
   */
  JsonNode byId(AgentId agent, OwnerKey owner, String tool, ObjectNode arguments) {
    ToolException notFound = null;
    for (CapabilityTools.Served one : serving(tool)) {
      try {
        JsonNode answer = providers.call(one, agent, owner, arguments.deepCopy());
        if (answer instanceof ObjectNode object && !object.has("provider")) {
          object.put("provider", one.member().id());
        }
        return answer;
      } catch (ToolException e) {
        if (e.kind() != ToolException.Kind.NOT_FOUND) {
          throw e;
        }
        notFound = notFound == null ? e : notFound;
      }
    }
    throw notFound;
  }

  private static Instant createdAt(JsonNode item) {
    try {
      return Instant.parse(item.path("createdAt").asString(""));
    } catch (DateTimeParseException e) {
      return Instant.MIN;
    }
  }

  private static void add(ObjectNode sums, JsonNode counts) {
    counts
        .properties()
        .forEach(
            entry ->
                sums.put(
                    entry.getKey(),
                    sums.path(entry.getKey()).asLong() + entry.getValue().asLong()));
  }

  /** A provider that failed: the caller's own errors answer as they are, others are listed. */
  private static void failed(ArrayNode failed, CapabilityTools.Served one, RuntimeException e) {
    if (e instanceof BadRequestException
        || e instanceof AccessDeniedException
        || (e instanceof ToolException t && t.kind() == ToolException.Kind.INVALID_ARGUMENT)) {
      throw e;
    }
    LOG.warn("Provider {} left out of a memory listing: {}", one.member().id(), e.toString());
    failed
        .addObject()
        .put("provider", one.member().id())
        .put("error", String.valueOf(e.getMessage()));
  }
}
