package dev.memstack.host.stack;

import dev.memstack.host.window.ConversationWindows;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@link WindowedContext} bean: the stack's context call with the conversation window. */
@Configuration(proxyBeanMethods = false)
public class WindowedContextConfiguration {

  @Bean
  WindowedContext windowedContext(MemoryStack stack, ConversationWindows windows) {
    return new WindowedContext(stack, windows);
  }
}
