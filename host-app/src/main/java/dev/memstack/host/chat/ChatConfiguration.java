package dev.memstack.host.chat;

import dev.memstack.host.coordination.ProviderCoordination;
import dev.memstack.host.model.OllamaLanguageModel;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.host.window.ConversationWindows;
import dev.memstack.host.window.TokenCounter;
import dev.memstack.spi.LanguageModel;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The chat endpoints' service: the configured chat model (Spring AI's {@link ChatModel}: a bean of
 * the application's own if there is one, else the Ollama model of {@code memstack.models.chat}),
 * the stack, the conversation window and a coordination lock per conversation (the host's own
 * coordination name space, {@value #COORDINATION}, beside the providers').
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ChatProperties.class)
public class ChatConfiguration {

  /** The coordination name space of the chat locks. */
  static final String COORDINATION = "memstack-chat";

  @Bean
  ChatService chatService(
      MemoryStack stack,
      ConversationWindows windows,
      LanguageModel languageModel,
      ObjectProvider<ChatModel> chatModels,
      ProviderCoordination coordination,
      ChatProperties properties,
      TokenCounter counter) {
    ChatModel model =
        chatModels.getIfAvailable(
            () -> languageModel instanceof OllamaLanguageModel ollama ? ollama.chatModel() : null);
    return new ChatService(
        stack,
        windows,
        model,
        coordination.of(COORDINATION),
        properties.turnWait(),
        counter.calibration(languageModel.modelId()));
  }

  @Bean(destroyMethod = "close")
  ChatStreams chatStreams(ChatProperties properties) {
    return new ChatStreams(properties.streamTimeout());
  }
}
