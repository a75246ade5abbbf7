package dev.memstack.boot.autoconfigure;

import dev.memstack.client.TriggerSource;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code memstack.client.*}: where the memstack host is and who this application is to it.
 *
 * @param baseUrl Base URL of the memstack host, without /api.
 * @param token Bearer token the client sends (a member token, usually bound to owners such as
 *     "api:*"). Empty sends none, for a host with security turned off.
 * @param agentId Agent this application's memory belongs to: 1-64 characters of [A-Za-z0-9_-].
 *     Required.
 * @param timeout Longest wait for the host's answer to one call, once connected.
 * @param connectTimeout Longest wait for a connection to the host.
 * @param advisor The Spring AI advisor.
 * @param chatMemory Spring AI's chat memory kept by the host.
 */
@ConfigurationProperties(MemstackClientProperties.PREFIX)
public record MemstackClientProperties(
    @DefaultValue("http://127.0.0.1:8080") URI baseUrl,
    String token,
    String agentId,
    @DefaultValue("10s") Duration timeout,
    @DefaultValue("5s") Duration connectTimeout,
    @DefaultValue Advisor advisor,
    @DefaultValue ChatMemory chatMemory) {

  /** The properties' prefix. */
  public static final String PREFIX = "memstack.client";

  /**
   * {@code memstack.client.advisor.*}.
   *
   * @param autoRegister Whether the advisor is added to the auto-configured ChatClient.Builder, so
   *     that every ChatClient built from it has memory. Off: add it yourself with
   *     .defaultAdvisors(memstackAdvisor).
   * @param order Order of the advisor in the chain; by default Spring AI's chat-memory order,
   *     outside the tool-calling loop.
   * @param defaultConversationId Conversation of calls that give no ChatMemory.CONVERSATION_ID.
   *     Empty: a new conversation id for each ChatClient call.
   * @param triggerSource The triggerSource of the turns the advisor hands in.
   * @param limit Most recall items per context call, 1-200; 0 is the host's default.
   * @param handInTurns Whether the advisor hands each exchange in as a turn. Unset: yes, unless
   *     memstack.client.chat-memory.enabled is true (the chat memory hands the exchanges in, so
   *     they would be stored twice); the advisor then only recalls.
   */
  public record Advisor(
      @DefaultValue("false") boolean autoRegister,
      Integer order,
      String defaultConversationId,
      @DefaultValue("api") TriggerSource triggerSource,
      @DefaultValue("0") int limit,
      Boolean handInTurns) {}

  /**
   * {@code memstack.client.chat-memory.*}.
   *
   * @param enabled Whether Spring AI's chat memory (the ChatMemoryRepository behind
   *     MessageChatMemoryAdvisor) is kept by the host: its conversation log and window, with the
   *     window's compaction.
   * @param ownerKey Owner (end user) the chat memory belongs to, such as "user:42". Required when
   *     enabled, unless the application declares a MemstackOwnerResolver bean, which then decides
   *     the owner of each call.
   * @param triggerSource The triggerSource of the turns the chat memory stores.
   * @param maxMessages Most messages of the MessageWindowChatMemory the starter declares over the
   *     repository (when the application declares no ChatMemory of its own); the host's window
   *     decides what is read back.
   */
  public record ChatMemory(
      @DefaultValue("false") boolean enabled,
      String ownerKey,
      @DefaultValue("web") TriggerSource triggerSource,
      @DefaultValue("100") int maxMessages) {}
}
