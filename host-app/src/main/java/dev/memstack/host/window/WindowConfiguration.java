package dev.memstack.host.window;

import dev.memstack.host.conversation.ConversationConfiguration;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.spi.LanguageModel;
import java.nio.file.Path;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The conversation window's beans: the {@link TokenCounter}, the summary cache beside the
 * conversation log ({@link FileSummaryStore} under {@code memstack.data-dir}, or {@link
 * PostgresSummaryStore} on the shared database when the log is there: {@code
 * memstack.conversations.store} decides both) and {@link ConversationWindows}, which summarises
 * with the host's {@link LanguageModel} ({@code memstack.models.chat}) and falls back to the
 * sliding window without one.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WindowProperties.class)
public class WindowConfiguration {

  @Bean
  @ConditionalOnMissingBean
  TokenCounter windowTokenCounter() {
    return new TokenCounter();
  }

  @Bean
  @ConditionalOnMissingBean
  SummaryStore windowSummaryStore(
      @Value("${memstack.data-dir:./data}") Path dataDir,
      @Value("${" + ConversationConfiguration.STORE_KEY + ":}") String store,
      ObjectProvider<SharedStore> shared) {
    SharedStore database = shared.getIfAvailable();
    boolean postgres =
        store.isBlank() ? database != null : "postgres".equals(store.strip()) && database != null;
    // a wrong value of the key is refused, naming it, by the conversation log's configuration
    return postgres ? new PostgresSummaryStore(database) : new FileSummaryStore(dataDir);
  }

  @Bean
  @ConditionalOnMissingBean
  ConversationWindows conversationWindows(
      ConversationLog conversations,
      ObjectProvider<LanguageModel> model,
      TokenCounter counter,
      SummaryStore summaries,
      WindowProperties properties) {
    return new Windows(
        conversations,
        model.getIfAvailable(LanguageModel::none),
        counter,
        summaries,
        properties,
        Clock.systemUTC());
  }
}
