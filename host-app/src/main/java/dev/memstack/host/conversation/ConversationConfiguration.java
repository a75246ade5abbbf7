package dev.memstack.host.conversation;

import dev.memstack.host.shared.SharedStore;
import java.nio.file.Path;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The conversation log bean, keeping the last {@value #MAX_TURNS} turns per agent, owner and
 * conversation, each message cut at {@value #MAX_MESSAGE_CHARS} characters: {@link
 * FileConversationLog} under {@code memstack.data-dir}, or, in shared mode ({@code
 * memstack.shared.jdbc-url} set), {@link PostgresConversationLog} on the shared database. {@code
 * memstack.conversations.store} ({@code files} or {@code postgres}) names the store explicitly;
 * {@code postgres} needs shared mode, and {@code files} is refused in shared mode (the other hosts
 * would not see this host's conversations).
 */
@Configuration(proxyBeanMethods = false)
public class ConversationConfiguration {

  /** Turns kept per agent, owner and conversation. */
  public static final int MAX_TURNS = 200;

  /** Characters kept per message. */
  public static final int MAX_MESSAGE_CHARS = 20_000;

  /** The key that names the store. */
  public static final String STORE_KEY = "memstack.conversations.store";

  @Bean
  @ConditionalOnMissingBean
  ConversationLog conversationLog(
      @Value("${memstack.data-dir:./data}") Path dataDir,
      @Value("${" + STORE_KEY + ":}") String store,
      ObjectProvider<SharedStore> shared) {
    SharedStore database = shared.getIfAvailable();
    String chosen = store.isBlank() ? (database != null ? "postgres" : "files") : store.strip();
    switch (chosen) {
      case "files" -> {
        if (database != null) {
          throw new IllegalStateException(
              STORE_KEY
                  + "=files, but the host runs in shared mode (memstack.shared.jdbc-url is set):"
                  + " the other hosts would not see this host's conversations; remove the key"
                  + " (the shared database is then used) or set it to postgres");
        }
        return new FileConversationLog(dataDir, ConversationLimits.DEFAULT);
      }
      case "postgres" -> {
        if (database == null) {
          throw new IllegalStateException(
              STORE_KEY + "=postgres needs shared mode: set memstack.shared.jdbc-url");
        }
        return new PostgresConversationLog(database, ConversationLimits.DEFAULT);
      }
      default ->
          throw new IllegalStateException(
              STORE_KEY + " must be files or postgres, got '" + chosen + "'");
    }
  }
}
