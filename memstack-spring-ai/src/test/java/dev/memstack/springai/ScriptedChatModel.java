package dev.memstack.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import reactor.core.publisher.Flux;

/**
 * A chat model for tests: it answers the scripted messages in turn (the last one again once the
 * script is used up), records every prompt it receives, and streams an answer word by word with the
 * finish reason on the last chunk. Its options take tools, so Spring AI's tool-calling loop runs
 * over it.
 */
public final class ScriptedChatModel implements ChatModel {

  private final List<AssistantMessage> script;
  private final AtomicInteger next = new AtomicInteger();
  private final List<Prompt> prompts = new CopyOnWriteArrayList<>();

  private ScriptedChatModel(List<AssistantMessage> script) {
    if (script.isEmpty()) {
      throw new IllegalArgumentException("a script needs at least one answer");
    }
    this.script = List.copyOf(script);
  }

  /** A model that answers these texts in turn. */
  public static ScriptedChatModel replying(String... replies) {
    return new ScriptedChatModel(
        java.util.Arrays.stream(replies).map(text -> new AssistantMessage(text)).toList());
  }

  /** A model that answers these messages (tool calls among them) in turn. */
  public static ScriptedChatModel answering(AssistantMessage... answers) {
    return new ScriptedChatModel(List.of(answers));
  }

  /** An answer that asks for one tool call with these JSON arguments. */
  public static AssistantMessage toolCall(String tool, String arguments) {
    return AssistantMessage.builder()
        .content("")
        .toolCalls(List.of(new AssistantMessage.ToolCall("call-1", "function", tool, arguments)))
        .build();
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    prompts.add(prompt);
    return new ChatResponse(List.of(new Generation(nextAnswer(), finished())));
  }

  @Override
  public Flux<ChatResponse> stream(Prompt prompt) {
    prompts.add(prompt);
    AssistantMessage answer = nextAnswer();
    if (answer.hasToolCalls()) {
      return Flux.just(new ChatResponse(List.of(new Generation(answer, finished()))));
    }
    List<String> words = new ArrayList<>(List.of(answer.getText().split("(?<= )")));
    List<ChatResponse> chunks = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      ChatGenerationMetadata metadata =
          i == words.size() - 1 ? finished() : ChatGenerationMetadata.NULL;
      chunks.add(
          new ChatResponse(List.of(new Generation(new AssistantMessage(words.get(i)), metadata))));
    }
    return Flux.fromIterable(chunks);
  }

  @Override
  public ChatOptions getOptions() {
    return ToolCallingChatOptions.builder().build();
  }

  /** Every prompt received so far. */
  public List<Prompt> prompts() {
    return List.copyOf(prompts);
  }

  /** The last prompt received. */
  public Prompt lastPrompt() {
    if (prompts.isEmpty()) {
      throw new AssertionError("the model received no prompt");
    }
    return prompts.get(prompts.size() - 1);
  }

  /** The text of the last prompt's system message ("" when it has none). */
  public String lastSystemText() {
    return lastPrompt().getSystemMessage().getText();
  }

  /** The text of the last prompt's last user message. */
  public String lastUserText() {
    return lastPrompt().getUserMessage().getText();
  }

  /** The types of the last prompt's messages, in order. */
  public List<Class<? extends Message>> lastMessageTypes() {
    List<Class<? extends Message>> types = new ArrayList<>();
    for (Message message : lastPrompt().getInstructions()) {
      types.add(
          message instanceof SystemMessage
              ? SystemMessage.class
              : message instanceof UserMessage ? UserMessage.class : message.getClass());
    }
    return types;
  }

  private AssistantMessage nextAnswer() {
    int index = Math.min(next.getAndIncrement(), script.size() - 1);
    return script.get(index);
  }

  private static ChatGenerationMetadata finished() {
    return ChatGenerationMetadata.builder().finishReason("STOP").build();
  }
}
