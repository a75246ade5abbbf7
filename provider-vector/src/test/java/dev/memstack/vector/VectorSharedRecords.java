package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.SharedRecords;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.json.JsonMapper;

/**
 * The kit's write-guard fixture for the vector provider on any store: a shared record is made with
 * {@code remember}, the write tools tried on it are {@code delete_memory} and {@code
 * update_memory_status}, and its state is what {@code list_memories} (every status) shows.
 */
public final class VectorSharedRecords {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private VectorSharedRecords() {}

  /** A fresh fixture; each record it makes has its own text. */
  public static SharedRecords create() {
    AtomicInteger made = new AtomicInteger();
    return new SharedRecords() {
      @Override
      public String create(MemoryProvider provider, AgentId agent, Scope scope) {
        String answer =
            provider.callTool(
                new ToolCall(
                    agent,
                    null,
                    "remember",
                    "{\"scope\":\""
                        + scope.name().toLowerCase(Locale.ROOT)
                        + "\",\"text\":\"The lighthouse keeps logbook number "
                        + made.incrementAndGet()
                        + " in the cellar.\"}"));
        return JSON.readTree(answer).get("id").stringValue();
      }

      @Override
      public List<Attempt> attempts(Scope scope, String id) {
        return List.of(
            new Attempt("delete_memory", "{\"id\":\"" + id + "\"}"),
            new Attempt(
                "update_memory_status", "{\"id\":\"" + id + "\",\"status\":\"suppressed\"}"),
            new Attempt("update_memory_status", "{\"id\":\"" + id + "\",\"status\":\"archived\"}"));
      }

      @Override
      public String state(MemoryProvider provider, AgentId agent, Scope scope, String id) {
        return provider.callTool(
            new ToolCall(
                agent,
                null,
                "list_memories",
                "{\"status\":\"any\",\"limit\":100,\"scope\":\""
                    + scope.name().toLowerCase(Locale.ROOT)
                    + "\"}"));
      }
    };
  }
}
