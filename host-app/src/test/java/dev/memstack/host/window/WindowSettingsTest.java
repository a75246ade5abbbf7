package dev.memstack.host.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code memstack.window.*} as the host binds it: the seeds' defaults, per-agent overrides, and a
 * wrong value stops the start with a message naming its key.
 */
class WindowSettingsTest {

  @TempDir Path dataDir;

  private ApplicationContextRunner context() {
    return new ApplicationContextRunner()
        .withUserConfiguration(WindowConfiguration.class)
        .withBean(ConversationLog.class, ConversationLog::none)
        .withBean(LanguageModel.class, LanguageModel::none)
        .withPropertyValues("memstack.data-dir=" + dataDir);
  }

  @Test
  void theDefaultsAreTheSeedsAndAnAgentOverridesThem() {
    context()
        .withPropertyValues(
            "memstack.window.agents.support.default-max-input-tokens=8000",
            "memstack.window.agents.support.short-term-memory-size=6")
        .run(
            app -> {
              assertThat(app).hasNotFailed();
              WindowProperties properties = app.getBean(WindowProperties.class);
              WindowProperties.Settings defaults = properties.settings(AgentId.of("a1"));
              assertThat(defaults.maxInputTokens()).isEqualTo(128_000);
              assertThat(defaults.trigger()).isEqualTo(96_000);
              assertThat(defaults.minRecentMessages()).isEqualTo(10);
              assertThat(defaults.summaryMaxTokens()).isEqualTo(300);
              assertThat(defaults.summaryCacheTtl()).hasMinutes(30);
              assertThat(defaults.shortTermMemorySize()).isEqualTo(20);
              WindowProperties.Settings support = properties.settings(AgentId.of("support"));
              assertThat(support.maxInputTokens()).isEqualTo(8_000);
              assertThat(support.trigger()).isEqualTo(6_000);
              assertThat(support.shortTermMemorySize()).isEqualTo(6);
              assertThat(support.summaryMaxTokens()).isEqualTo(300);
              assertThat(app.getBean(ConversationWindows.class)).isInstanceOf(Windows.class);
              assertThat(app.getBean(SummaryStore.class)).isInstanceOf(FileSummaryStore.class);
            });
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "memstack.window.default-max-input-tokens, 100",
    "memstack.window.compact-trigger-ratio, 1.5",
    "memstack.window.preserve-recent-pairs, 0",
    "memstack.window.protect-last-min-messages, -1",
    "memstack.window.summary-max-tokens, 8",
    "memstack.window.summary-cache-ttl, 0s",
    "memstack.window.short-term-memory-size, 1",
    "memstack.window.agents.a1.compact-trigger-ratio, 0",
    "memstack.window.agents.a1.summary-max-tokens, 200000"
  })
  void aWrongValueStopsTheStartNamingItsKey(String key, String value) {
    context()
        .withPropertyValues(key + "=" + value)
        .run(
            app -> {
              assertThat(app).hasFailed();
              assertThat(app.getStartupFailure()).hasStackTraceContaining(key);
            });
  }
}
