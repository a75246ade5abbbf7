package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.ConversationBufferConformance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;

/** The conversation buffer of {@code store=files}: JSON files under the data directory. */
@DisplayName("FileConversationBuffer")
class FileConversationBufferTest extends ConversationBufferConformance {

  @TempDir Path dir;

  @Override
  protected ConversationBuffer open(int maxMessages, int messageMaxChars) {
    return new FileConversationBuffer(dir, maxMessages, messageMaxChars);
  }

  @Override
  protected long storedCopies(String text) {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(
              file -> {
                try {
                  return Files.readString(file, StandardCharsets.UTF_8).contains(text);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
