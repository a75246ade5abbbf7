package dev.memstack.host.api;

import dev.memstack.host.chat.ChatReply;
import dev.memstack.host.chat.ChatService;
import dev.memstack.host.chat.ChatStreams;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.ChatRequest;
import io.swagger.v3.oas.annotations.Operation;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

  private static final Logger log = LoggerFactory.getLogger(ChatController.class);

  private final ChatService chat;
  private final ChatStreams streams;
  private final AccessPolicy access;

  public ChatController(ChatService chat, ChatStreams streams, AccessPolicy access) {
    this.chat = chat;
    this.streams = streams;
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
    return chat.chat(MemoryRequests.chat(JsonBody.agent(agentId), body, access));
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
    ChatRequest request = MemoryRequests.chat(JsonBody.agent(agentId), body, access);
    if (!chat.available()) {
      chat.chat(request); // answers the missing model as JSON before any event is sent
    }
    SseEmitter emitter = new SseEmitter(streams.timeout().toMillis());
    streams.run(
        () -> {
          try {
            ChatReply reply =
                chat.stream(request, piece -> send(emitter, "delta", Map.of("text", piece)));
            send(emitter, "done", reply);
            emitter.complete();
          } catch (RuntimeException e) {
            ApiError error = ApiExceptionHandler.errorOf(e);
            if (error.error().equals(ApiError.INTERNAL)) {
              log.error("A streamed chat failed", e);
            }
            send(emitter, "error", error);
            emitter.complete();
          }
        });
    return emitter;
  }

  /** Sends one event; whether the client is still there. */
  private static boolean send(SseEmitter emitter, String name, Object data) {
    try {
      emitter.send(SseEmitter.event().name(name).data(data, MediaType.APPLICATION_JSON));
      return true;
    } catch (IOException | IllegalStateException e) {
      return false;
    }
  }
}
