package dev.memstack.host.console;

import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.api.NotFoundException;
import dev.memstack.host.api.StandardRoute;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.Caller;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The owners the agent holds personal memories of, in owner-key order (Unicode code points), each
 * with its count in every running provider that claims {@link Capability#MEMORY_ADMIN} (their
 * standard tool {@code list_owners}). With one such provider a page is its page; with several, each
 * one's owners are read whole (in pages of {@value #PROVIDER_PAGE}, at most {@value #MAX_MERGED}
 * per provider) and merged, so the total counts every owner once. The tool calls run as the current
 * caller: a token bound to one owner key lists that owner alone (the call names it), a token bound
 * to a prefix the owners under it (the tool call carries the prefix). Thread-safe.
 *
 * @param providers finds the providers and calls their tools
 * @param access the current caller
 * @param json makes the tool arguments
 */
public record OwnerListing(CapabilityTools providers, AccessPolicy access, JsonMapper json) {

  /** The page size in which several providers' owner keys are read for merging. */
  static final int PROVIDER_PAGE = 10_000;

  /** Most owners read from each of several providers. */
  static final int MAX_MERGED = 100_000;

  /** Owner keys in Unicode code point order (their UTF-8 bytes), as the providers order them. */
  private static final Comparator<String> CODE_POINTS =
      (a, b) ->
          Arrays.compareUnsigned(
              a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  /**
   * One owner.
   *
   * @param ownerKey the owner key
   * @param counts the owner's personal memories per provider instance (those that hold any)
   * @param total the sum of {@code counts}
   */
  public record OwnerView(String ownerKey, Map<String, Long> counts, long total) {}

  /**
   * One page of owners.
   *
   * @param owners the page
   * @param offset the owners skipped
   * @param limit the most owners a page holds
   * @param total the owners there are, on every page
   */
  public record OwnersView(List<OwnerView> owners, int offset, int limit, long total) {}

  /**
   * The page {@code [offset, offset + limit)} of the agent's owners whose key holds {@code q} (any
   * case; {@code null} for every owner).
   *
   * @throws NotFoundException when no running provider claims the capability
   */
  public OwnersView page(AgentId agent, int offset, int limit, String q) {
    List<StackMember> members = providers.providers(Capability.MEMORY_ADMIN);
    if (members.isEmpty()) {
      throw new NotFoundException(
          "no running provider claims the capability " + Capability.MEMORY_ADMIN);
    }
    OwnerKey own = ownKey(access.caller());
    if (members.size() == 1) {
      StackMember member = members.get(0);
      JsonNode page = call(member, agent, own, q, offset, limit, true);
      List<OwnerView> owners = new ArrayList<>();
      page.path("owners")
          .forEach(
              owner -> {
                long count = owner.path("count").asLong(0);
                owners.add(
                    new OwnerView(
                        owner.path("ownerKey").asString(), Map.of(member.id(), count), count));
              });
      return new OwnersView(owners, offset, limit, page.path("total").asLong(0));
    }
    // every provider's keys, uncounted: the union orders the page and gives the total
    Map<StackMember, List<String>> keysOf = new LinkedHashMap<>();
    TreeSet<String> union = new TreeSet<>(CODE_POINTS);
    for (StackMember member : members) {
      List<String> keys = keys(member, agent, own, q);
      keysOf.put(member, keys);
      union.addAll(keys);
    }
    List<String> page = union.stream().skip(offset).limit(limit).toList();
    Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
    page.forEach(key -> counts.put(key, new LinkedHashMap<>()));
    if (!page.isEmpty()) {
      // the page's owners are one run of each provider's keys: counted in one call each
      for (Map.Entry<StackMember, List<String>> provider : keysOf.entrySet()) {
        List<String> keys = provider.getValue();
        int from = position(keys, page.get(0));
        int to = position(keys, page.get(page.size() - 1));
        to = to < keys.size() && keys.get(to).equals(page.get(page.size() - 1)) ? to + 1 : to;
        if (to > from) {
          call(provider.getKey(), agent, own, q, from, to - from, true)
              .path("owners")
              .forEach(
                  owner -> {
                    Map<String, Long> of = counts.get(owner.path("ownerKey").asString());
                    if (of != null) {
                      of.put(provider.getKey().id(), owner.path("count").asLong(0));
                    }
                  });
        }
      }
    }
    List<OwnerView> owners = new ArrayList<>();
    counts.forEach(
        (key, byProvider) ->
            owners.add(
                new OwnerView(
                    key,
                    byProvider,
                    byProvider.values().stream().mapToLong(Long::longValue).sum())));
    return new OwnersView(owners, offset, limit, union.size());
  }

  /** Every owner key the member lists, in its order, read in pages of keys without counts. */
  private List<String> keys(StackMember member, AgentId agent, OwnerKey own, String q) {
    List<String> keys = new ArrayList<>();
    for (int from = 0; from < MAX_MERGED; from += PROVIDER_PAGE) {
      JsonNode owners = call(member, agent, own, q, from, PROVIDER_PAGE, false).path("owners");
      owners.forEach(owner -> keys.add(owner.path("ownerKey").asString()));
      if (owners.size() < PROVIDER_PAGE) {
        break;
      }
    }
    return keys;
  }

  /** Where {@code key} is in the sorted {@code keys}, or where it would be inserted. */
  private static int position(List<String> keys, String key) {
    int found = Collections.binarySearch(keys, key, CODE_POINTS);
    return found >= 0 ? found : -found - 1;
  }

  /** The owner key a token bound to one owner key lists; {@code null} for any other caller. */
  private static OwnerKey ownKey(Caller caller) {
    return caller.ownerBound() && !caller.owner().isPrefix()
        ? OwnerKey.of(caller.owner().pattern())
        : null;
  }

  private JsonNode call(
      StackMember member,
      AgentId agent,
      OwnerKey owner,
      String q,
      int offset,
      int limit,
      boolean counts) {
    ObjectNode arguments = json.createObjectNode().put("offset", offset).put("limit", limit);
    if (!counts) {
      arguments.put("counts", false);
    }
    StandardRoute.putText(arguments, "q", q);
    JsonNode answer =
        providers.callStandard(
            Capability.MEMORY_ADMIN,
            member.id(),
            StandardTools.LIST_OWNERS,
            agent,
            owner,
            arguments);
    return answer == null ? json.createObjectNode() : answer;
  }
}
