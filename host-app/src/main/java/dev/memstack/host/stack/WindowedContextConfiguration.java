package dev.memstack.host.stack;

import dev.memstack.host.window.ConversationWindows;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@link WindowedContext} bean: the stack's context call with the conversation window. */
@Configuration(proxyBeanMethods = false)
public class WindowedContextConfiguration {

  @Bean
  WindowedContext windowedContext(
      MemoryStack stack,
      ConversationWindows windows,
      org.springframework.beans.factory.ObjectProvider<WindowedContext.MorningCardSource> cards) {
    return new WindowedContext(
        stack, windows, cards.getIfAvailable(() -> (agent, owner) -> java.util.Optional.empty()));
  }
}
