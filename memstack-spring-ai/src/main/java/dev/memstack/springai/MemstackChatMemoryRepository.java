package dev.memstack.springai;

import dev.memstack.client.ConversationSummary;
import dev.memstack.client.ConversationTurn;
import dev.memstack.client.ConversationWindow;
import dev.memstack.client.MemstackApiException;
import dev.memstack.client.MemstackClient;
import dev.memstack.client.TriggerSource;
import dev.memstack.client.TurnRequest;
import dev.memstack.client.WindowMessage;
import dev.memstack.springai.ChatTurns.Pair;
import dev.memstack.springai.ChatTurns.Reading;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Spring AI's chat memory kept by a memstack host: the repository behind a {@code
 * MessageWindowChatMemory} (and so behind {@code MessageChatMemoryAdvisor}), bound to one agent
 * (the client's) and one owner (a fixed owner key or a {@link MemstackOwnerResolver} asked on every
 * call).
 *
 * <ul>
 *   <li>{@link #findConversationIds()}: the owner's conversations on the host, the newest first;
 *   <li>{@link #findByConversationId(String)}: the host's conversation window, so the application
 *       gets the host's compaction for free: the summary of the earlier turns as a user message
 *       that starts with {@link #SUMMARY_PREFIX}, then the recent turns; against a host without the
 *       window route (it answers 404) the turns of the host's conversation log. A question still
 *       waiting for its answer (saved by this instance) comes last;
 *   <li>{@link #saveAll(String, List)}: appends as turns ({@code POST .../memory/turns}) only the
 *       exchanges newer than the host's newest turn of the conversation, each user message paired
 *       with the next assistant message; it never deletes what the list lacks, and never stores a
 *       system or tool message, the window's summary, or a message holding a {@code
 *       <memory-context>} fence (recalled or summarised text never comes back as a new memory). A
 *       trailing user message waits in this instance until its answer is saved with it. Saving the
 *       same list twice stores nothing twice: what is new is decided from what the host has, and
 *       the turn ids are derived from the conversation, the turn before and the messages, so a
 *       retry carries the same ids and the host keeps each once;
 *   <li>{@link #deleteByConversationId(String)}: clears the owner's conversation on the host (its
 *       log and the window's summaries).
 * </ul>
 *
 * <p>A host that fails or cannot be reached fails the call with the client's {@code
 * MemstackException}, as any chat memory store would. Thread-safe.
 */
public final class MemstackChatMemoryRepository implements ChatMemoryRepository {

  /** The start of the window's summary message; such a message is never stored as a turn. */
  public static final String SUMMARY_PREFIX = ConversationWindow.SUMMARY_PREFIX;

  /** Questions without an answer kept at most, across owners and conversations. */
  static final int MAX_WAITING = 1_000;

  /** The window's kinds that are not the conversation (the host's own prompt parts). */
  private static final Set<String> NOT_CONVERSATION = Set.of("system", "workspace", "current");

  private static final Logger log = LoggerFactory.getLogger(MemstackChatMemoryRepository.class);

  private final MemstackClient client;
  private final MemstackOwnerResolver owner;
  private final TriggerSource triggerSource;

  /** Per owner and conversation, the user messages saved without an answer yet. */
  private final Map<String, List<Message>> waiting =
      Collections.synchronizedMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, List<Message>> eldest) {
              return size() > MAX_WAITING;
            }
          });

  private MemstackChatMemoryRepository(Builder builder) {
    this.client = builder.client;
    this.owner = builder.owner;
    this.triggerSource = builder.triggerSource;
  }

  /** A builder for a repository on {@code client}'s host and agent. */
  public static Builder builder(MemstackClient client) {
    return new Builder(client);
  }

  @Override
  public List<String> findConversationIds() {
    return client.conversations(ownerKey()).stream()
        .map(ConversationSummary::conversationId)
        .toList();
  }

  @Override
  public List<Message> findByConversationId(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    String ownerKey = ownerKey();
    List<Message> messages = new ArrayList<>();
    try {
      for (WindowMessage message : client.window(ownerKey, conversationId).messages()) {
        Message converted = fromWindow(message);
        if (converted != null) {
          messages.add(converted);
        }
      }
    } catch (MemstackApiException e) {
      if (e.status() != 404) {
        throw e;
      }
      messages.addAll(fromLog(storedTurns(ownerKey, conversationId)));
    }
    messages.addAll(waiting.getOrDefault(key(ownerKey, conversationId), List.of()));
    return messages;
  }

  @Override
  public void saveAll(String conversationId, List<Message> messages) {
    Objects.requireNonNull(conversationId, "conversationId");
    Objects.requireNonNull(messages, "messages");
    String ownerKey = ownerKey();
    Reading reading = ChatTurns.read(messages);
    if (reading.pairs().isEmpty() && reading.unanswered().isEmpty()) {
      warnWhenFenced(messages);
      waiting.remove(key(ownerKey, conversationId));
      return;
    }
    if (!reading.pairs().isEmpty()) {
      List<ConversationTurn> stored = storedTurns(ownerKey, conversationId);
      String previous = stored.isEmpty() ? "" : stored.get(stored.size() - 1).turnId();
      for (Pair pair : ChatTurns.newPairs(reading.pairs(), stored)) {
        String turnId = ChatTurns.turnId(conversationId, previous, pair);
        client.postTurn(
            TurnRequest.of(
                    ownerKey,
                    conversationId,
                    pair.userMessage(),
                    pair.assistantReply(),
                    triggerSource)
                .withTurnId(turnId));
        previous = turnId;
      }
    }
    if (reading.unanswered().isEmpty()) {
      waiting.remove(key(ownerKey, conversationId));
    } else {
      waiting.put(key(ownerKey, conversationId), reading.unanswered());
    }
  }

  @Override
  public void deleteByConversationId(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    String ownerKey = ownerKey();
    waiting.remove(key(ownerKey, conversationId));
    client.deleteConversation(ownerKey, conversationId);
  }

  private List<ConversationTurn> storedTurns(String ownerKey, String conversationId) {
    try {
      return client.conversation(ownerKey, conversationId).turns();
    } catch (MemstackApiException e) {
      if (e.status() == 404) {
        return List.of();
      }
      throw e;
    }
  }

  /** A window message as Spring AI's message; {@code null} for the host's own prompt parts. */
  private static Message fromWindow(WindowMessage message) {
    if (message.summary()) {
      String text = message.content();
      return new UserMessage(text.startsWith(SUMMARY_PREFIX) ? text : SUMMARY_PREFIX + text);
    }
    if (NOT_CONVERSATION.contains(message.kind())) {
      return null;
    }
    return switch (message.role()) {
      case "user" -> new UserMessage(message.content());
      case "assistant" -> new AssistantMessage(message.content());
      default -> null;
    };
  }

  private static List<Message> fromLog(List<ConversationTurn> turns) {
    List<Message> messages = new ArrayList<>();
    for (ConversationTurn turn : turns) {
      if (!turn.userMessage().isEmpty()) {
        messages.add(new UserMessage(turn.userMessage()));
      }
      if (!turn.assistantReply().isEmpty()) {
        messages.add(new AssistantMessage(turn.assistantReply()));
      }
    }
    return messages;
  }

  private void warnWhenFenced(List<Message> messages) {
    if (messages.stream()
        .anyMatch(m -> m instanceof UserMessage && ChatTurns.text(m).contains(ChatTurns.FENCE))) {
      log.warn(
          "memstack chat memory: a user message holds a {} block and is not stored; order the"
              + " chat memory advisor before MemstackAdvisor so it sees the user's own text",
          ChatTurns.FENCE);
    }
  }

  private String ownerKey() {
    String key = owner.ownerKey();
    if (key == null || key.isBlank()) {
      throw new IllegalStateException(
          "memstack chat memory: the owner resolver gave no owner key for this call");
    }
    return key;
  }

  private static String key(String ownerKey, String conversationId) {
    return ownerKey + "\u0000" + conversationId;
  }

  /** Settings of a {@link MemstackChatMemoryRepository}; an owner is required. */
  public static final class Builder {

    private final MemstackClient client;
    private MemstackOwnerResolver owner;
    private TriggerSource triggerSource = TriggerSource.WEB;

    private Builder(MemstackClient client) {
      this.client = Objects.requireNonNull(client, "client");
    }

    /** Binds the repository to this owner ({@code user:42}). */
    public Builder ownerKey(String ownerKey) {
      if (ownerKey == null || ownerKey.isBlank()) {
        throw new IllegalArgumentException("ownerKey must not be blank");
      }
      String fixed = ownerKey.strip();
      this.owner = () -> fixed;
      return this;
    }

    /** Asks {@code resolver} for the owner on every call, for an application of many users. */
    public Builder ownerResolver(MemstackOwnerResolver resolver) {
      this.owner = Objects.requireNonNull(resolver, "resolver");
      return this;
    }

    /** The {@code triggerSource} of the turns the repository stores; default {@code web}. */
    public Builder triggerSource(TriggerSource source) {
      this.triggerSource = Objects.requireNonNull(source, "source");
      return this;
    }

    public MemstackChatMemoryRepository build() {
      if (owner == null) {
        throw new IllegalStateException(
            "an owner is required: .ownerKey(\"user:42\") or .ownerResolver(...)");
      }
      return new MemstackChatMemoryRepository(this);
    }
  }
}
