package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallVector;
import dev.memstack.spi.Scope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link StackRelevance}: one cosine for every provider's items, within the call's time. */
class StackRelevanceTest {

  /** A two-dimensional model: the query is (1, 0); a passage's vector is looked up by text. */
  static final class TwoDimensions implements Embedder {
    final Map<String, float[]> passages = new HashMap<>();
    final Map<String, float[]> queryVectors = new HashMap<>();
    final List<String> embedded = new ArrayList<>();
    final List<String> askedQueries = new ArrayList<>();
    int queries;
    boolean fails;

    /** The threads that asked for query vectors, in order. */
    final List<String> queryThreads = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Runs as each query is embedded. */
    volatile Runnable onQuery = () -> {};

    @Override
    public String modelId() {
      return "two-d";
    }

    @Override
    public int dimension() {
      return 2;
    }

    @Override
    public List<float[]> embed(List<String> texts, Kind kind) {
      if (fails) {
        throw new IllegalStateException("model down");
      }
      if (kind == Kind.QUERY) {
        queries++;
        askedQueries.addAll(texts);
        queryThreads.add(Thread.currentThread().getName());
        onQuery.run();
        return List.of(queryVectors.getOrDefault(texts.get(0), new float[] {1f, 0f}));
      }
      List<float[]> out = new ArrayList<>();
      for (String text : texts) {
        embedded.add(text);
        out.add(passages.getOrDefault(text, new float[] {0f, 1f}));
      }
      return out;
    }
  }

  private static RecallItem item(String text) {
    return new RecallItem(text, 0.5, Scope.TEAM, null, "p", null, null);
  }

  private static RecallItem item(String text, String model, float... vector) {
    return item(text).withVector(new RecallVector(model, vector));
  }

  private static final long FAR = Long.MAX_VALUE;

  @Test
  @DisplayName("attached vectors of the host's model are used as they are; no passage is embedded")
  void usesAttachedVectors() {
    TwoDimensions model = new TwoDimensions();
    StackRelevance relevance = new StackRelevance(model, 8, 16, System::nanoTime);

    List<double[]> scores =
        relevance.score(
            "q",
            List.of(
                List.of(item("same way", "two-d", 2f, 0f)), List.of(item("half", "two-d", 1f, 1f))),
            FAR);

    assertThat(scores.get(0)[0]).isEqualTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(scores.get(1)[0])
        .isEqualTo(Math.sqrt(0.5), org.assertj.core.data.Offset.offset(1e-9));
    assertThat(model.embedded).isEmpty();
  }

  @Test
  @DisplayName(
      "another model's vector or another dimension is never compared: the text is embedded")
  void ignoresOtherModels() {
    TwoDimensions model = new TwoDimensions();
    model.passages.put("other model", new float[] {1f, 0f});
    model.passages.put("other length", new float[] {0f, 1f});
    StackRelevance relevance = new StackRelevance(model, 8, 16, System::nanoTime);

    List<double[]> scores =
        relevance.score(
            "q",
            List.of(
                List.of(
                    item("other model", "bge", 0f, 1f), item("other length", "two-d", 1f, 0f, 0f))),
            FAR);

    assertThat(scores.get(0)[0]).isEqualTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(scores.get(0)[1]).isEqualTo(0.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(model.embedded).containsExactly("other model", "other length");
  }

  @Test
  @DisplayName("items without a vector are embedded one at a time, at most maxEmbeds, and kept")
  void embedsAndKeepsMissingVectors() {
    TwoDimensions model = new TwoDimensions();
    StackRelevance relevance = new StackRelevance(model, 2, 16, System::nanoTime);
    List<List<RecallItem>> answers = List.of(List.of(item("a"), item("b"), item("c")));

    List<double[]> first = relevance.score("q", answers, FAR);
    List<double[]> second = relevance.score("q", answers, FAR);

    assertThat(first.get(0)[0]).isZero();
    assertThat(first.get(0)[1]).isZero();
    assertThat(first.get(0)[2]).isNaN(); // past the two embeddings of the call
    assertThat(model.embedded).containsExactly("a", "b", "c"); // the second call embedded only c
    assertThat(second.get(0)).doesNotContain(Double.NaN);
    assertThat(relevance.kept()).isEqualTo(3);
  }

  @Test
  @DisplayName(
      "without the names the question asks about: the query with each name's direction projected"
          + " out, the name embedded once and kept")
  void scoresTheQueryWithoutNames() {
    TwoDimensions model = new TwoDimensions();
    model.queryVectors.put("What are Kate's hobbies?", new float[] {1f, 1f});
    model.queryVectors.put("Kate", new float[] {2f, 0f});
    StackRelevance relevance = new StackRelevance(model, 8, 16, System::nanoTime);
    List<List<RecallItem>> answers =
        List.of(List.of(item("along", "two-d", 1f, 0f)), List.of(item("across", "two-d", 0f, 3f)));

    StackRelevance.Scores both =
        relevance.score("What are Kate's hobbies?", List.of("Kate"), answers, FAR);

    assertThat(both.cosine().get(0)[0])
        .isEqualTo(Math.sqrt(0.5), org.assertj.core.data.Offset.offset(1e-9));
    // (1, 1) without its (1, 0) part is (0, 1)
    assertThat(both.unnamed().get(0)[0]).isEqualTo(0.0, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(both.unnamed().get(1)[0]).isEqualTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(model.askedQueries).containsExactly("What are Kate's hobbies?", "Kate");

    model.askedQueries.clear();
    relevance.score("Where does Kate work?", List.of("Kate"), answers, FAR);
    assertThat(model.askedQueries).containsExactly("Where does Kate work?"); // the name was kept

    StackRelevance.Scores none = relevance.score("q", null, answers, FAR);
    assertThat(none.unnamed()).isNull();
  }

  @Test
  @DisplayName("an item's speaker label is taken out of its vector the same way, embedded once")
  void takesTheSpeakerOutOfTheItem() {
    TwoDimensions model = new TwoDimensions();
    model.passages.put("user: emi:", new float[] {0f, 3f});
    StackRelevance relevance = new StackRelevance(model, 8, 16, System::nanoTime);
    List<List<RecallItem>> answers =
        List.of(
            List.of(
                item("**user:** emi: I paint", "two-d", 1f, 1f),
                item("user: emi: I draw", "two-d", 1f, 1f),
                item("a plain note", "two-d", 1f, 1f)));

    StackRelevance.Scores scores = relevance.score("q", List.of(), answers, FAR);

    assertThat(scores.cosine().get(0)[0])
        .isEqualTo(Math.sqrt(0.5), org.assertj.core.data.Offset.offset(1e-9));
    // (1, 1) without the label's (0, 3) direction is (1, 0): the query's own direction
    assertThat(scores.unnamed().get(0)[0])
        .isEqualTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(scores.unnamed().get(0)[1])
        .isEqualTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(scores.unnamed().get(0)[2])
        .isEqualTo(Math.sqrt(0.5), org.assertj.core.data.Offset.offset(1e-6));
    assertThat(model.embedded).containsExactly("user: emi:");
    assertThat(
            QuestionCues.speakerPrefix(
                "memory/a.md (personal) (line 3):\n### 08:58\n**user:** fahim khan: hi"))
        .isEqualTo("user: fahim khan:");
    assertThat(QuestionCues.speakerPrefix("a plain note")).isNull();
  }

  @Test
  @DisplayName("nothing is embedded once the call's deadline leaves no time")
  void respectsTheDeadline() {
    TwoDimensions model = new TwoDimensions();
    AtomicLong now = new AtomicLong(1_000_000_000L);
    StackRelevance relevance = new StackRelevance(model, 8, 16, now::get);

    List<double[]> scores =
        relevance.score("q", List.of(List.of(item("late"))), now.get() + 1_000_000L);

    assertThat(scores.get(0)[0]).isNaN();
    assertThat(model.embedded).isEmpty();
  }

  @Test
  @DisplayName("with no vector attached and no embedding allowed, not even the query is embedded")
  void costsNothingWithoutVectors() {
    TwoDimensions model = new TwoDimensions();
    StackRelevance relevance = new StackRelevance(model, 0, 16, System::nanoTime);

    List<double[]> scores = relevance.score("q", List.of(List.of(item("plain"))), FAR);

    assertThat(scores.get(0)[0]).isNaN();
    assertThat(model.queries).isZero();
  }

  @Test
  @DisplayName("a failing model leaves every item unscored instead of failing the call")
  void survivesAFailingModel() {
    TwoDimensions model = new TwoDimensions();
    model.fails = true;
    StackRelevance relevance = new StackRelevance(model, 8, 16, System::nanoTime);

    List<double[]> scores =
        relevance.score("q", List.of(List.of(item("x", "two-d", 1f, 0f), item("y"))), FAR);

    assertThat(scores.get(0)).containsOnly(Double.NaN);
  }
}
