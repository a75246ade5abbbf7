package dev.memstack.host.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The committed inputs of the property and fuzz tests: the files of {@code
 * src/test/resources/fuzz/<name>}, in name order, replayed before the generated tries and used as
 * the seeds the mutators start from. A file is one input, byte for byte.
 */
public final class FuzzCorpus {

  private FuzzCorpus() {}

  /** The bytes of every file of corpus {@code name}. */
  public static List<byte[]> files(String name) {
    URL folder = FuzzCorpus.class.getResource("/fuzz/" + name);
    if (folder == null) {
      throw new IllegalStateException("no fuzz corpus " + name + " on the test class path");
    }
    try (Stream<Path> files = Files.list(Path.of(folder.toURI()))) {
      return files.sorted().map(FuzzCorpus::read).toList();
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
}
