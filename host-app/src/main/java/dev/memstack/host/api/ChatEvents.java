package dev.memstack.host.api;

import dev.memstack.host.chat.ChatReply;
import dev.memstack.host.chat.ChatService;
import dev.memstack.host.chat.ChatStreams;
import dev.memstack.host.stack.ChatRequest;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The chat service with the threads its streams run on, and a streamed chat as server-sent events:
 * {@code delta} pieces, then {@code done} with the whole answer, or {@code error} with the API's
 * error body. When the client has gone away, the chat is told so by the failed send of its next
 * piece.
 *
 * @param chat the chat service
 * @param streams the threads of streamed chats and how long one may last
 */
record ChatEvents(ChatService chat, ChatStreams streams) {

  private static final Logger log = LoggerFactory.getLogger(ChatEvents.class);

  /**
   * Starts the chat of {@code request} on a thread of its own and answers the emitter its events go
   * to. Without a chat model it throws before any event is sent, so that the answer is JSON.
   */
  SseEmitter open(ChatRequest request) {
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
