package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.ToolException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The snapshot importer ({@code import_workspace_memory}) under arbitrary and mutated bytes: ZIP,
 * tar, gzip and JSON from the corpus under {@code fuzz/snapshots}, those archives with bytes
 * flipped, inserted, removed or cut off, and random bytes. An archive is imported or refused with
 * {@link ToolException.Kind#INVALID_ARGUMENT} on {@code zipBase64}, never another exception; a
 * refused archive and every preview leave the stored workspace files byte for byte as they were; an
 * accepted one wrote only whitelisted files. The seeds fix the generated runs.
 */
class SnapshotImportProperties {

  private static final String AGENT = "fuzz-agent";
  private static Path dir;
  private static Fixture fx;

  @BeforeContainer
  static void open() throws IOException {
    dir = Files.createTempDirectory("snapshot-fuzz");
    fx = Fixture.open(dir.resolve("builtin"));
    // the corpus's valid archive once, so its replays and mutations mostly find their files there
    fx.tool(AGENT, null, "import_workspace_memory", Map.of("zipBase64", base64(corpus().get(0))));
  }

  @AfterContainer
  static void close() throws IOException {
    fx.close();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  @Example
  void theCorpusIsImportedOrRefusedCleanly() {
    List<byte[]> corpus = corpus();
    assertThat(corpus).hasSizeGreaterThan(10);
    int refused = 0;
    for (byte[] archive : corpus) {
      refused += importOrRefuse(archive) ? 0 : 1;
    }
    // only the valid archive (already imported) and the fence-text one are taken
    assertThat(refused).isGreaterThanOrEqualTo(corpus.size() - 2);
  }

  @Property(tries = 300, seed = "250910")
  void mutatedArchivesAreImportedOrRefusedCleanly(@ForAll("mutated") byte[] archive) {
    importOrRefuse(archive);
  }

  @Property(tries = 200, seed = "250911")
  void randomBytesAreRefusedCleanly(@ForAll("random") byte[] bytes) {
    assertThat(importOrRefuse(bytes)).as("random bytes taken as an archive").isFalse();
  }

  /**
   * Previews, then imports {@code archive}: true when it was imported. A preview never changes the
   * stored files; a refusal is an INVALID_ARGUMENT on zipBase64 and changes nothing either. An
   * import writes whitelisted files only, and the history month in which the entries it added to or
   * dropped from PROFILE.md and MEMORY.md are logged.
   */
  static boolean importOrRefuse(byte[] archive) {
    Map<String, String> before = workspace();
    String encoded = base64(archive);
    boolean previewed = call(Map.of("zipBase64", encoded, "preview", true));
    assertThat(workspace()).as("the files after a preview").isEqualTo(before);
    boolean imported = call(Map.of("zipBase64", encoded, "preview", false));
    assertThat(imported).as("an import agrees with its preview").isEqualTo(previewed);
    Map<String, String> after = workspace();
    if (!imported) {
      assertThat(after).as("the files after a refused archive").isEqualTo(before);
    }
    for (String file : after.keySet()) {
      assertThat(file)
          .as("a file an import may write")
          .matches(
              "agents/"
                  + AGENT
                  + "/(AGENTS|MEMORY|PROFILE|SOUL|KNOWLEDGE)\\.md"
                  + "|agents/"
                  + AGENT
                  + "/memory/\\d{4}-\\d{2}-\\d{2}\\.md"
                  + "|agents/"
                  + AGENT
                  + "/history/\\d{4}-\\d{2}\\.md");
    }
    return imported;
  }

  private static boolean call(Map<String, ?> arguments) {
    try {
      fx.tool(AGENT, null, "import_workspace_memory", arguments);
      return true;
    } catch (ToolException refused) {
      assertThat(refused.kind())
          .as(refused.getMessage())
          .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
      assertThat(refused.getMessage()).startsWith("zipBase64").doesNotContain("\tat ");
      return false;
    }
  }

  /** The agent's workspace Markdown files and their content: the memory an import may change. */
  private static Map<String, String> workspace() {
    Map<String, String> files = new TreeMap<>();
    fx.tree()
        .forEach(
            (path, hash) -> {
              String normal = path.replace('\\', '/');
              if (normal.startsWith("agents/") && normal.endsWith(".md")) {
                files.put(normal, hash);
              }
            });
    return files;
  }

  // ---- generators

  @Provide
  Arbitrary<byte[]> mutated() {
    Arbitrary<List<int[]>> edits =
        Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 1_000_000),
                Arbitraries.integers().between(0, 255))
            .as((kind, at, value) -> new int[] {kind, at, value})
            .list()
            .ofMinSize(1)
            .ofMaxSize(4);
    return Combinators.combine(Arbitraries.of(corpus()), edits)
        .as(SnapshotImportProperties::mutate);
  }

  @Provide
  Arbitrary<byte[]> random() {
    Arbitrary<byte[]> noise = Arbitraries.bytes().array(byte[].class).ofMaxSize(2048);
    // a ZIP's local header signature in front of noise gets past the first check
    Arbitrary<byte[]> zipLike =
        noise.map(
            tail -> {
              byte[] out = new byte[tail.length + 4];
              out[0] = 'P';
              out[1] = 'K';
              out[2] = 3;
              out[3] = 4;
              System.arraycopy(tail, 0, out, 4, tail.length);
              return out;
            });
    return Arbitraries.oneOf(noise, zipLike);
  }

  /** Flips, inserts or removes a byte, or cuts the archive off, at each edit. */
  static byte[] mutate(byte[] seed, List<int[]> edits) {
    List<Byte> bytes = new ArrayList<>(seed.length + 8);
    for (byte b : seed) {
      bytes.add(b);
    }
    for (int[] edit : edits) {
      if (bytes.isEmpty()) {
        bytes.add((byte) edit[2]);
        continue;
      }
      int at = edit[1] % bytes.size();
      switch (edit[0]) {
        case 0 -> bytes.set(at, (byte) edit[2]);
        case 1 -> bytes.add(at, (byte) edit[2]);
        case 2 -> bytes.remove(at);
        default -> bytes.subList(at, bytes.size()).clear();
      }
    }
    byte[] out = new byte[bytes.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = bytes.get(i);
    }
    return out;
  }

  static List<byte[]> corpus() {
    try (Stream<Path> files =
        Files.list(
            Path.of(SnapshotImportProperties.class.getResource("/fuzz/snapshots").toURI()))) {
      return files.sorted().map(SnapshotImportProperties::read).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }
}
