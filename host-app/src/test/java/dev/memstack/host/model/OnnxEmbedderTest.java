package dev.memstack.host.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.memstack.spi.Embedder.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The in-process E5 embedder")
class OnnxEmbedderTest {

  private static final String GREYHOUND = "I adopted a retired greyhound named Biscuit last spring";
  private static final String TAX = "The quarterly tax report is due on Friday";
  private static final String BREAD = "I like to bake sourdough bread";
  private static final String DOG_QUESTION = "what kind of dog do I have?";

  private static OnnxEmbedder e5;

  @BeforeAll
  static void loadModel() {
    e5 = new OnnxEmbedder(BundledModel.E5_SMALL_V2, ModelProperties.Onnx.defaults());
  }

  @AfterAll
  static void closeModel() {
    e5.close();
  }

  @Test
  void isNamedE5AndGives384Floats() {
    assertThat(e5.modelId()).isEqualTo("e5-small-v2");
    assertThat(e5.dimension()).isEqualTo(384);
    assertThat(e5.embedQuery(DOG_QUESTION)).hasSize(384);
  }

  @Test
  void givesUnitLengthVectors() {
    for (float[] vector : e5.embed(List.of(GREYHOUND, TAX, "", "ok"), Kind.PASSAGE)) {
      assertThat(norm(vector)).isCloseTo(1.0, within(1e-5));
    }
  }

  @Test
  @DisplayName(
      "a prepared model is written on the first load, read on later ones, gives the same vectors,"
          + " and is made again when unreadable")
  void preparedModelGivesTheSameVectors(@TempDir Path folder) throws Exception {
    List<String> texts = List.of(GREYHOUND, TAX, BREAD, "");
    List<float[]> plain = e5.embed(texts, Kind.PASSAGE);
    float[] plainQuery = e5.embedQuery(DOG_QUESTION);
    ModelProperties.Onnx prepared =
        ModelProperties.Onnx.defaults().withPreparedDir(folder.toString());

    try (OnnxEmbedder first = new OnnxEmbedder(BundledModel.E5_SMALL_V2, prepared)) {
      first.load();
      assertSameVectors(first.embed(texts, Kind.PASSAGE), plain);
    }
    List<Path> files;
    try (Stream<Path> listing = Files.list(folder)) {
      files = listing.toList();
    }
    assertThat(files).hasSize(1); // no temporary file left
    Path file = files.get(0);
    assertThat(file.getFileName().toString()).startsWith("e5-small-v2-").endsWith(".onnx");
    FileTime written = Files.getLastModifiedTime(file);

    try (OnnxEmbedder second = new OnnxEmbedder(BundledModel.E5_SMALL_V2, prepared)) {
      assertSameVectors(second.embed(texts, Kind.PASSAGE), plain);
      assertThat(second.embedQuery(DOG_QUESTION)).containsExactly(plainQuery);
    }
    assertThat(Files.getLastModifiedTime(file)).isEqualTo(written); // read, not written again

    Files.write(file, new byte[] {1, 2, 3});
    try (OnnxEmbedder third = new OnnxEmbedder(BundledModel.E5_SMALL_V2, prepared)) {
      assertSameVectors(third.embed(texts, Kind.PASSAGE), plain);
    }
    assertThat(Files.size(file)).isGreaterThan(1_000_000); // prepared again
  }

  private static void assertSameVectors(List<float[]> actual, List<float[]> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      assertThat(actual.get(i)).as("text %d", i).containsExactly(expected.get(i));
    }
  }

  @Test
  void givesTheSameVectorForTheSameTextEveryTime() {
    float[] first = e5.embed(List.of(GREYHOUND), Kind.PASSAGE).get(0);
    float[] second = e5.embed(List.of(GREYHOUND), Kind.PASSAGE).get(0);
    assertThat(second).containsExactly(first);
  }

  @Test
  void findsTheDogPassageCloserToTheDogQuestionThanUnrelatedPassages() {
    float[] query = e5.embedQuery(DOG_QUESTION);
    List<float[]> passages = e5.embed(List.of(GREYHOUND, TAX, BREAD), Kind.PASSAGE);
    double dog = dot(query, passages.get(0));
    assertThat(dog).isGreaterThan(dot(query, passages.get(1)) + 0.05);
    assertThat(dog).isGreaterThan(dot(query, passages.get(2)) + 0.05);
  }

  @Test
  void embedsABatchExactlyAsItEmbedsEachTextAlone() {
    List<String> texts = List.of(GREYHOUND, TAX, BREAD, "ok", "a much longer text " + TAX + BREAD);
    List<float[]> batch = e5.embed(texts, Kind.PASSAGE);
    assertThat(batch).hasSize(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      float[] alone = e5.embed(List.of(texts.get(i)), Kind.PASSAGE).get(0);
      assertThat(batch.get(i)).containsExactly(alone);
    }
  }

  @Test
  void keepsTheOrderOfTheTexts() {
    List<String> texts = new ArrayList<>(List.of(GREYHOUND, TAX, BREAD, "ok"));
    List<float[]> forward = e5.embed(texts, Kind.PASSAGE);
    Collections.reverse(texts);
    List<float[]> backward = e5.embed(texts, Kind.PASSAGE);
    for (int i = 0; i < texts.size(); i++) {
      assertThat(backward.get(i)).containsExactly(forward.get(texts.size() - 1 - i));
    }
  }

  @Test
  void prefixesQueriesAndPassagesDifferently() {
    float[] query = e5.embed(List.of(GREYHOUND), Kind.QUERY).get(0);
    float[] passage = e5.embed(List.of(GREYHOUND), Kind.PASSAGE).get(0);
    assertThat(dot(query, passage)).isLessThan(0.999).isGreaterThan(0.8);
  }

  @Test
  void cutsTextsLongerThanTheModelTakes() {
    String endless = "memory ".repeat(3000);
    assertThat(norm(e5.embed(List.of(endless), Kind.PASSAGE).get(0))).isCloseTo(1.0, within(1e-5));
  }

  @Test
  void givesNoVectorsForNoTexts() {
    assertThat(e5.embed(List.of(), Kind.PASSAGE)).isEmpty();
  }

  @Test
  void refusesNullTextsNamingTheirIndex() {
    List<String> texts = new ArrayList<>(List.of("fine"));
    texts.add(null);
    assertThatThrownBy(() -> e5.embed(texts, Kind.PASSAGE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("texts[1]");
  }

  @Test
  void servesCallsFromManyThreadsAtOnce() throws Exception {
    float[] expected = e5.embed(List.of(GREYHOUND), Kind.PASSAGE).get(0);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<float[]>> calls = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        calls.add(pool.submit(() -> e5.embed(List.of(GREYHOUND), Kind.PASSAGE).get(0)));
      }
      for (Future<float[]> call : calls) {
        assertThat(call.get()).containsExactly(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void spreadsTheTextsOfOneCallOverHelperThreadsAndKeepsTheirOrder() throws Exception {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      texts.add(i % 3 == 0 ? GREYHOUND + " " + i : (i % 3 == 1 ? TAX : BREAD + " number " + i));
    }
    OnnxEmbedder parallel =
        new OnnxEmbedder(
            BundledModel.E5_SMALL_V2, new ModelProperties.Onnx(1, 512, 1, 3, true, false, ""));
    try {
      List<float[]> vectors = parallel.embed(texts, Kind.PASSAGE);
      assertThat(vectors).hasSize(texts.size());
      for (int i = 0; i < texts.size(); i++) {
        float[] alone = e5.embed(List.of(texts.get(i)), Kind.PASSAGE).get(0);
        assertThat(vectors.get(i)).as("text %d", i).containsExactly(alone);
      }
      assertThat(embedderThreads()).isNotEmpty().allMatch(Thread::isDaemon);
    } finally {
      parallel.close();
    }
    for (Thread helper : embedderThreads()) {
      helper.join(5_000);
    }
    assertThat(embedderThreads()).isEmpty();
  }

  private static List<Thread> embedderThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("memstack-embedder-") && t.isAlive())
        .toList();
  }

  @Test
  void batchesOfSeveralTextsStayCloseToSingleTextVectors() {
    OnnxEmbedder batched =
        new OnnxEmbedder(
            BundledModel.E5_SMALL_V2, new ModelProperties.Onnx(8, 512, 1, 0, true, false, ""));
    try {
      List<String> texts = List.of(GREYHOUND, TAX, BREAD, "ok");
      List<float[]> batch = batched.embed(texts, Kind.PASSAGE);
      for (int i = 0; i < texts.size(); i++) {
        float[] alone = e5.embed(List.of(texts.get(i)), Kind.PASSAGE).get(0);
        assertThat(dot(batch.get(i), alone)).isGreaterThan(0.98);
      }
    } finally {
      batched.close();
    }
  }

  @Test
  void refusesCallsOnceClosed() {
    OnnxEmbedder closed =
        new OnnxEmbedder(BundledModel.E5_SMALL_V2, ModelProperties.Onnx.defaults());
    closed.close();
    assertThatThrownBy(() -> closed.embedQuery("anything"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }

  static double norm(float[] vector) {
    return Math.sqrt(dot(vector, vector));
  }
}
