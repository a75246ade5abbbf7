package dev.memstack.client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;
import tools.jackson.databind.JsonNode;

/** The Java client example of {@code docs/integrating.md}, compiled and run by its test. */
final class ClientExample {

  private ClientExample() {}

  static MemstackClient connect(URI baseUrl, String token) {
    // tag::client[]
    MemstackClient memstack =
        MemstackClient.builder(baseUrl) // e.g. URI.create("http://127.0.0.1:8080")
            .token(token) // a member token, e.g. bound to "api:*"
            .agentId("support-bot")
            .timeout(Duration.ofSeconds(5))
            .build();
    // end::client[]
    return memstack;
  }

  // tag::loop[]
  /** One turn: context, model, turn. {@code model} takes (system text, user text). */
  static String reply(
      MemstackClient memstack,
      BinaryOperator<String> model,
      String ownerKey,
      String conversationId,
      String message) {
    ContextAnswer memory;
    try {
      memory = memstack.context(ContextRequest.of(ownerKey, conversationId, message));
    } catch (MemstackConnectionException e) {
      memory = ContextAnswer.empty(); // the host is down: answer without memory
    }
    String user = memory.context().isEmpty() ? message : memory.context() + "\n\n" + message;
    String reply = model.apply(memory.systemText(), user);
    // 202: the host delivers it to its providers in the background
    memstack.postTurn(TurnRequest.of(ownerKey, conversationId, message, reply, TriggerSource.WEB));
    return reply;
  }

  // end::loop[]

  // tag::more[]
  /** The tools, one tool call and an erasure; returns what happened, line by line. */
  static List<String> toolsAndErasure(MemstackClient memstack, String ownerKey) {
    List<String> log = new ArrayList<>();
    for (Tool tool : memstack.tools()) {
      log.add(tool.provider() + "/" + tool.name());
    }
    JsonNode file =
        memstack.callTool(
            "builtin", "read_workspace_memory_file", ownerKey, Map.of("filename", "MEMORY.md"));
    log.add("MEMORY.md: " + file.path("content").asString());
    try {
      Erasure erasure = memstack.eraseOwner(ownerKey);
      erasure.providers().forEach(p -> log.add(p.id() + ": " + p.outcome()));
    } catch (MemstackApiException e) {
      // e.status() 403, e.error() "forbidden", e.field() null: this token may not erase the owner
      log.add(e.status() + " " + e.error() + ": " + e.hostMessage());
    }
    return log;
  }

  // end::more[]
}
