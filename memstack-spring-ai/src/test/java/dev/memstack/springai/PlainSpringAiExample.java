package dev.memstack.springai;

import dev.memstack.client.MemstackClient;
import java.net.URI;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;

/** The Spring AI example without Spring Boot of {@code docs/integrating.md}, run by its test. */
final class PlainSpringAiExample {

  private PlainSpringAiExample() {}

  static String ask(URI memstackUrl, String token, ChatModel chatModel) {
    // tag::plain[]
    MemstackClient memstack =
        MemstackClient.builder(memstackUrl).token(token).agentId("support-bot").build();
    MemstackAdvisor memory =
        MemstackAdvisor.builder(memstack)
            .defaultConversationId("support-desk") // for calls that give no conversation id
            .build(); // close() it at shutdown: it hands in the turns still queued
    ChatClient chat = ChatClient.builder(chatModel).defaultAdvisors(memory).build();

    String reply =
        chat.prompt()
            .user("What tea do I like?")
            .advisors(
                a ->
                    a.param(MemstackAdvisor.OWNER_KEY, "user:42")
                        .param(ChatMemory.CONVERSATION_ID, "c-2026-03-02"))
            .call()
            .content();
    // end::plain[]
    memory.close();
    return reply;
  }
}
