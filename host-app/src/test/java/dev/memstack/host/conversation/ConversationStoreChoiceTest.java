package dev.memstack.host.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** Which conversation log the host builds for {@code memstack.conversations.store}. */
class ConversationStoreChoiceTest {

  @TempDir Path dir;

  private final ConversationConfiguration configuration = new ConversationConfiguration();

  private static DefaultListableBeanFactory beans(SharedStore store) {
    DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    if (store != null) {
      beans.registerSingleton("sharedStore", store);
    }
    return beans;
  }

  /** A store that never connects (the pool starts lazily). */
  private static SharedStore unreachable() {
    return new SharedStore(
        new SharedProperties(
            "jdbc:postgresql://127.0.0.1:1/none", null, null, 2, Duration.ofMillis(250)));
  }

  @Test
  void withoutSharedModeTheLogIsFilesAndPostgresIsRefused() {
    assertThat(
            configuration.conversationLog(dir, "", beans(null).getBeanProvider(SharedStore.class)))
        .isInstanceOf(FileConversationLog.class);
    assertThatThrownBy(
            () ->
                configuration.conversationLog(
                    dir, "postgres", beans(null).getBeanProvider(SharedStore.class)))
        .hasMessageContaining("memstack.conversations.store=postgres needs shared mode");
    assertThatThrownBy(
            () ->
                configuration.conversationLog(
                    dir, "sqlite", beans(null).getBeanProvider(SharedStore.class)))
        .hasMessageContaining("memstack.conversations.store must be files or postgres");
  }

  @Test
  void inSharedModeFilesAreRefusedNamingTheKey() {
    try (SharedStore store = unreachable()) {
      assertThatThrownBy(
              () ->
                  configuration.conversationLog(
                      dir, "files", beans(store).getBeanProvider(SharedStore.class)))
          .hasMessageContaining("memstack.conversations.store=files")
          .hasMessageContaining("shared mode");
    }
  }
}
