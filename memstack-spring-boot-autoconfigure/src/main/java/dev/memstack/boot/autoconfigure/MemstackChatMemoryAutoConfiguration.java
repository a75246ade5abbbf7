package dev.memstack.boot.autoconfigure;

import dev.memstack.client.MemstackClient;
import dev.memstack.springai.MemstackChatMemoryRepository;
import dev.memstack.springai.MemstackOwnerResolver;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * With {@code memstack.client.chat-memory.enabled=true}: Spring AI's chat memory kept by the host,
 * a {@link MemstackChatMemoryRepository} for the client's agent and the owner of a {@link
 * MemstackOwnerResolver} bean or, without one, of {@code memstack.client.chat-memory.owner-key};
 * and, unless the application has one, a {@link MessageWindowChatMemory} over it for {@code
 * MessageChatMemoryAdvisor}. Runs before Spring AI's own chat-memory auto-configuration, whose
 * in-memory repository then backs off.
 */
@AutoConfiguration(
    after = MemstackClientAutoConfiguration.class,
    beforeName =
        "org.springframework.ai.model.chat.memory.autoconfigure.ChatMemoryAutoConfiguration")
@ConditionalOnClass({ChatMemoryRepository.class, MemstackChatMemoryRepository.class})
@ConditionalOnBean(MemstackClient.class)
@ConditionalOnProperty(
    prefix = MemstackClientProperties.PREFIX + ".chat-memory",
    name = "enabled",
    havingValue = "true")
public class MemstackChatMemoryAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(ChatMemoryRepository.class)
  MemstackChatMemoryRepository memstackChatMemoryRepository(
      MemstackClient client,
      MemstackClientProperties properties,
      ObjectProvider<MemstackOwnerResolver> resolver) {
    MemstackClientProperties.ChatMemory settings = properties.chatMemory();
    MemstackChatMemoryRepository.Builder builder =
        MemstackChatMemoryRepository.builder(client).triggerSource(settings.triggerSource());
    MemstackOwnerResolver owners = resolver.getIfUnique();
    if (owners != null) {
      builder.ownerResolver(owners);
    } else if (settings.ownerKey() != null && !settings.ownerKey().isBlank()) {
      builder.ownerKey(settings.ownerKey());
    } else {
      throw new IllegalStateException(
          MemstackClientProperties.PREFIX
              + ".chat-memory.enabled is true but the chat memory has no owner: set "
              + MemstackClientProperties.PREFIX
              + ".chat-memory.owner-key or declare a MemstackOwnerResolver bean");
    }
    return builder.build();
  }

  @Bean
  @ConditionalOnMissingBean(ChatMemory.class)
  ChatMemory memstackChatMemory(
      ChatMemoryRepository repository, MemstackClientProperties properties) {
    int maxMessages = properties.chatMemory().maxMessages();
    if (maxMessages < 1) {
      throw new IllegalStateException(
          MemstackClientProperties.PREFIX
              + ".chat-memory.max-messages must be at least 1, got: "
              + maxMessages);
    }
    return MessageWindowChatMemory.builder()
        .chatMemoryRepository(repository)
        .maxMessages(maxMessages)
        .build();
  }
}
