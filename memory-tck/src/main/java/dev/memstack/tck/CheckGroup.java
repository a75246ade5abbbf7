package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What every check group of {@link MemoryProviderCompatibilityKit} shares: the kit whose provider
 * is under test, the owners and phrases of the checks, and the assertions several groups make.
 *
 * <p>Each group is an abstract class of its own ({@code *Checks}); the kit extends each one with a
 * {@code @Nested} inner class, so a provider's test that extends the kit runs every group. The
 * group reads the provider and its context through the kit at test time, after the kit's
 * {@code @BeforeEach} built them.
 */
abstract class CheckGroup {

  static final AgentId AGENT = MemoryProviderCompatibilityKit.AGENT;
  static final AgentId OTHER_AGENT = MemoryProviderCompatibilityKit.OTHER_AGENT;
  static final OwnerKey ALICE = MemoryProviderCompatibilityKit.ALICE;
  static final OwnerKey BOB = MemoryProviderCompatibilityKit.BOB;

  static final String ALICE_PHRASE = "marmalade zeppelin quartet";
  static final String BOB_PHRASE = "tangerine submarine orchestra";
  static final String SHARED_WORD = "saffron";

  final MemoryProviderCompatibilityKit kit;

  CheckGroup(MemoryProviderCompatibilityKit kit) {
    this.kit = kit;
  }

  MemoryProvider provider() {
    return kit.provider();
  }

  TestProviderContext context() {
    return kit.providerContext();
  }

  void closeProvider() {
    kit.closeProvider();
  }

  /** Closes the provider and builds it again on the same data with {@code coordination}. */
  void recreateWith(Coordination coordination) {
    kit.recreateWith(coordination);
  }

  void awaitIndexed(MemoryProvider provider) {
    kit.awaitIndexed(provider);
  }

  void writeShared(MemoryProvider provider, AgentId agent, Scope scope, String text) {
    kit.writeShared(provider, agent, scope, text);
  }

  SharedRecords sharedRecords() {
    return kit.sharedRecords();
  }

  Turn turn(AgentId agent, OwnerKey owner, String userMessage, String reply) {
    return kit.turn(agent, owner, userMessage, reply);
  }

  void sync(Turn... turns) {
    kit.sync(turns);
  }

  void syncBatch(Turn... turns) {
    kit.syncBatch(turns);
  }

  List<RecallItem> recall(AgentId agent, OwnerKey owner, String query, int limit) {
    return kit.recall(agent, owner, query, limit);
  }

  RecallRequest request(AgentId agent, OwnerKey owner, String query, int limit) {
    return kit.request(agent, owner, query, limit);
  }

  boolean has(Capability capability) {
    return provider().capabilities().contains(capability);
  }

  void assumeCapability(Capability capability) {
    assumeTrue(
        has(capability),
        () -> provider().id() + " does not declare " + capability + "; test skipped");
  }

  static boolean mentions(RecallItem item, String phrase) {
    return mentions(item.text(), phrase);
  }

  static boolean mentions(String text, String phrase) {
    return text.toLowerCase(Locale.ROOT).contains(phrase.toLowerCase(Locale.ROOT));
  }

  static long countMentions(List<RecallItem> items, String phrase) {
    return items.stream().filter(item -> mentions(item, phrase)).count();
  }

  Turn aliceTurn(AgentId agent) {
    return turn(
        agent,
        ALICE,
        "Remember that my band is called the " + ALICE_PHRASE + ".",
        "Noted: your band is the " + ALICE_PHRASE + ".");
  }

  Turn bobTurn(AgentId agent) {
    return turn(
        agent,
        BOB,
        "My favourite ensemble is the " + BOB_PHRASE + ".",
        "I will remember the " + BOB_PHRASE + ".");
  }

  List<Turn> sharedWordTurns(OwnerKey owner, int count) {
    List<Turn> turns = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      turns.add(
          turn(
              AGENT,
              owner,
              "Recipe note " + i + ": dish " + i + " uses " + SHARED_WORD + " and rice.",
              "Saved recipe note " + i + " with " + SHARED_WORD + "."));
    }
    return turns;
  }

  /**
   * Asserts that {@code owner}'s recall in {@code agent} for {@code phrase} finds an item that
   * mentions it; returns the items.
   */
  List<RecallItem> assertRecalled(
      AgentId agent, OwnerKey owner, String phrase, int limit, String description, Object... args) {
    List<RecallItem> items = recall(agent, owner, phrase, limit);
    assertThat(items).as(description, args).anyMatch(item -> mentions(item, phrase));
    return items;
  }

  /**
   * Asserts that no item of {@code owner}'s recall in {@code agent} for {@code phrase} mentions it;
   * returns the items.
   */
  List<RecallItem> assertNotRecalled(
      AgentId agent, OwnerKey owner, String phrase, int limit, String description, Object... args) {
    List<RecallItem> items = recall(agent, owner, phrase, limit);
    assertThat(items).as(description, args).noneMatch(item -> mentions(item, phrase));
    return items;
  }

  /**
   * {@link #assertRecalled} where the provider claims {@link Capability#RECALLS_TURNS}: the control
   * that a check which finds nothing elsewhere is not passed by a provider that finds nothing.
   */
  void assertRecalledIfItRecallsTurns(
      AgentId agent, OwnerKey owner, String phrase, int limit, String description) {
    if (has(Capability.RECALLS_TURNS)) {
      assertRecalled(agent, owner, phrase, limit, description);
    }
  }

  /** Checks the basic contract every answer keeps, whatever the query. */
  void assertWellFormed(List<RecallItem> items, OwnerKey requester, int limit) {
    assertThat(items).as("items of a recall limited to %d", limit).hasSizeLessThanOrEqualTo(limit);
    for (RecallItem item : items) {
      assertThat(item.source()).as("source of %s", item).isEqualTo(provider().id());
      if (item.scope() == Scope.PERSONAL) {
        assertThat(requester)
            .as("a PERSONAL item was returned to a request without owner: %s", item)
            .isNotNull();
        assertThat(item.owner()).as("owner of PERSONAL item %s", item).isEqualTo(requester);
      }
    }
  }
}
