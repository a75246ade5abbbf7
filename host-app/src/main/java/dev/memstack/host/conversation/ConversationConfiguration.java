package dev.memstack.host.conversation;

import java.nio.file.Path;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The conversation log bean: {@link FileConversationLog} under {@code memstack.data-dir}, keeping
 * the last {@value #MAX_TURNS} turns per agent, owner and conversation, each message cut at {@value
 * #MAX_MESSAGE_CHARS} characters.
 */
@Configuration(proxyBeanMethods = false)
public class ConversationConfiguration {

  /** Turns kept per agent, owner and conversation. */
  public static final int MAX_TURNS = 200;

  /** Characters kept per message. */
  public static final int MAX_MESSAGE_CHARS = 20_000;

  @Bean
  @ConditionalOnMissingBean
  ConversationLog conversationLog(@Value("${memstack.data-dir:./data}") Path dataDir) {
    return new FileConversationLog(dataDir, MAX_TURNS, MAX_MESSAGE_CHARS);
  }
}
