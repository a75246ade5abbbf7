package dev.memstack.host.api;

import dev.memstack.host.chat.ChatReply;
import dev.memstack.host.chat.ChatService;
import dev.memstack.host.chat.ChatStreams;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;

/**
 * Chat with memory: {@code POST /api/v1/agents/{agentId}/chat} answers one message with the
 * configured chat model and the whole stack (context, conversation window, the turn stored), and
 * {@code /chat/stream} does the same as server-sent events ({@code delta} pieces, then {@code done}
 * with the whole answer, or {@code error}). The body names exactly one of {@code ownerKey} and
 * {@code endUserId}; an owner-bound token chats only as its own owner (403). Without a chat model
 * both answer 409 naming {@code memstack.models.chat}. Needs {@code member}.
 */
@RestController
@RequestMapping(path = "/api/v1/agents/{agentId}")
public class ChatController {

  private final ChatEvents chats;
  private final AccessPolicy access;

  public ChatController(ChatService chat, ChatStreams streams, AccessPolicy access) {
    this.chats = new ChatEvents(chat, streams);
    this.access = access;
  }

  @Operation(summary = "Chat: the configured chat model answers with the whole stack's memory")
  @JsonRequestBody(ApiRequests.ChatRequest.class)
  @RequiresRole(Role.MEMBER)
  @PostMapping(
      path = "/chat",
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ChatReply chat(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    return chats.chat().chat(MemoryRequests.chat(JsonBody.agent(agentId), body, access));
  }

  @Operation(
      summary =
          "Chat as server-sent events: delta pieces, then done with the whole answer, or error")
  @JsonRequestBody(ApiRequests.ChatRequest.class)
  @RequiresRole(Role.MEMBER)
  @PostMapping(
      path = "/chat/stream",
      consumes = MediaType.APPLICATION_JSON_VALUE,
      produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  public SseEmitter stream(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    return chats.open(MemoryRequests.chat(JsonBody.agent(agentId), body, access));
  }
}
