package dev.memstack.host.stack;

import dev.memstack.host.testing.SilentProvider;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/** An in-test provider whose hooks do what the test tells them and remember what they saw. */
final class FakeProvider extends SilentProvider {

  volatile Function<AgentId, String> block = agent -> "";
  volatile Function<RecallRequest, Recall> recall = request -> Recall.empty();
  volatile Consumer<Turn> sync = turn -> {};
  volatile java.util.function.BiFunction<AgentId, dev.memstack.spi.OwnerKey, String> ownerBlock;
  volatile java.util.function.Function<List<String>, Integer> feedback;
  final List<String> feedbackSeen = new CopyOnWriteArrayList<>();
  final AtomicInteger blockCalls = new AtomicInteger();
  final AtomicInteger recallCalls = new AtomicInteger();
  final List<RecallRequest> requests = new CopyOnWriteArrayList<>();
  final List<Turn> synced = new CopyOnWriteArrayList<>();
  final List<ClassLoader> loadersSeen = new CopyOnWriteArrayList<>();

  FakeProvider(String id) {
    super(id);
  }

  @Override
  public String systemPromptBlock(AgentId agent) {
    blockCalls.incrementAndGet();
    loadersSeen.add(Thread.currentThread().getContextClassLoader());
    return block.apply(agent);
  }

  @Override
  public java.util.Set<dev.memstack.spi.Capability> capabilities() {
    java.util.Set<dev.memstack.spi.Capability> caps =
        java.util.EnumSet.noneOf(dev.memstack.spi.Capability.class);
    if (ownerBlock != null) {
      caps.add(dev.memstack.spi.Capability.OWNER_PROMPT);
    }
    if (feedback != null) {
      caps.add(dev.memstack.spi.Capability.FEEDBACK);
    }
    return caps;
  }

  @Override
  public String ownerPromptBlock(AgentId agent, dev.memstack.spi.OwnerKey owner) {
    return ownerBlock.apply(agent, owner);
  }

  @Override
  public int feedback(AgentId agent, dev.memstack.spi.OwnerKey owner, List<String> ids) {
    feedbackSeen.addAll(ids);
    return feedback.apply(ids);
  }

  @Override
  public Recall prefetch(RecallRequest request) {
    recallCalls.incrementAndGet();
    requests.add(request);
    loadersSeen.add(Thread.currentThread().getContextClassLoader());
    return recall.apply(request);
  }

  @Override
  public void syncTurn(Turn turn) {
    loadersSeen.add(Thread.currentThread().getContextClassLoader());
    sync.accept(turn);
    synced.add(turn);
  }

  /** Answers every recall with these texts, scored 1.0, 0.9, ... in order, as TEAM memory. */
  FakeProvider recalls(String... texts) {
    recall =
        request -> {
          List<RecallItem> items = new java.util.ArrayList<>();
          for (int i = 0; i < texts.length; i++) {
            items.add(item(texts[i], 1.0 - i * 0.1));
          }
          return Recall.of(items);
        };
    return this;
  }

  /** Answers every recall with exactly these items. */
  FakeProvider recallsItems(RecallItem... items) {
    recall = request -> Recall.of(List.of(items));
    return this;
  }

  /**
   * Answers every recall after {@code millis} (interruptibly) with these texts, as {@link
   * #recalls}.
   */
  FakeProvider recallsAfter(long millis, String... texts) {
    recalls(texts);
    Function<RecallRequest, Recall> answer = recall;
    recall =
        request -> {
          sleep(millis);
          return answer.apply(request);
        };
    return this;
  }

  /** Throws an {@link IllegalStateException} with {@code message} from every recall. */
  FakeProvider failsRecalls(String message) {
    recall =
        request -> {
          throw new IllegalStateException(message);
        };
    return this;
  }

  /** Throws an {@link IllegalStateException} with {@code message} from every delivered turn. */
  FakeProvider failsSyncs(String message) {
    sync =
        turn -> {
          throw new IllegalStateException(message);
        };
    return this;
  }

  /** Never answers a recall until {@code release} is counted down, as {@link #hang}. */
  FakeProvider hangsRecalls(CountDownLatch release) {
    recall = request -> hang(release);
    return this;
  }

  /** Never takes a delivered turn until {@code release} is counted down, as {@link #hang}. */
  FakeProvider hangsSyncs(CountDownLatch release) {
    sync = turn -> hang(release);
    return this;
  }

  /**
   * An item of this provider with every field given ({@code at} and {@code metadata} may be null).
   */
  RecallItem item(
      String text,
      double score,
      Scope scope,
      dev.memstack.spi.OwnerKey owner,
      java.time.Instant at,
      java.util.Map<String, String> metadata) {
    return new RecallItem(text, score, scope, owner, id(), at, metadata);
  }

  RecallItem item(String text, double score) {
    return new RecallItem(text, score, Scope.TEAM, null, id(), null, null);
  }

  FakeProvider blocks(String text) {
    block = agent -> text;
    return this;
  }

  /** Never returns and ignores interrupts until {@code release} is counted down. */
  static <T> T hang(CountDownLatch release) {
    while (release.getCount() > 0) {
      try {
        release.await();
      } catch (InterruptedException ignored) {
        // a hung provider ignores interrupts
      }
    }
    throw new IllegalStateException("released");
  }

  /** Sleeps (interruptibly) and then answers. */
  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
