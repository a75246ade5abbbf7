package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tool reproductions of issue 15 against a real host with four tokens (admin; member bound to
 * {@code api:1}; member bound to {@code api:2}; viewer): an owner-bound token cannot delete or
 * suppress a GLOBAL or TEAM record it can see (403, the record unchanged), a viewer cannot call a
 * write tool, a tool argument error names its field, the same turn id from two owners reaches mem0
 * as two turns, and the tool list shows each tool's declared effect.
 */
class ToolTrustTest {

  private static final String API_1 = "proof-member-api-1-token-0123456789";
  private static final String API_2 = "proof-member-api-2-token-0123456789";
  private static final String VIEWER = "proof-viewer-token-0123456789abcdef";
  private static final String AGENT = "trust";

  @AutoClose private static final StoringMem0Server mem0 = new StoringMem0Server();

  @RegisterExtension
  static final TestHost HOST =
      TestHost.withTestEmbedder("tool-trust")
          .withMem0(mem0.baseUrl())
          .tokens(
              new String[] {TestTokens.ADMIN, "admin", null},
              new String[] {API_1, "member", "api:1"},
              new String[] {API_2, "member", "api:2"},
              new String[] {VIEWER, "viewer", null});

  private static final HostClient api = HOST.client();

  @Test
  void anOwnerBoundTokenCannotDeleteOrSuppressSharedRecordsItCanSee() {
    String global = remember(TestTokens.ADMIN, null, "global", "The lobby clock is kept slow mk1z");
    String team = remember(TestTokens.ADMIN, null, "team", "The team standup is at nine mk2z");
    List<String> seen = ids(tool(API_1, "vector", "list_memories", args("api:1")));
    assertThat(seen).as("api:1 sees both shared records").contains(global, team);

    for (String id : List.of(global, team)) {
      Answer delete = tool(API_1, "vector", "delete_memory", args("api:1").put("id", id));
      assertThat(delete.status()).as("api:1 delete_memory %s: %s", id, delete).isEqualTo(403);
      assertThat(delete.json().get("error").asString()).isEqualTo("forbidden");
      for (String status : List.of("suppressed", "archived")) {
        Answer update =
            tool(
                API_1,
                "vector",
                "update_memory_status",
                args("api:1").put("id", id).put("status", status));
        assertThat(update.status()).as("api:1 %s %s: %s", status, id, update).isEqualTo(403);
      }
      assertThat(statusOf(id)).as("record %s after the refused calls", id).isEqualTo("active");
    }
    Answer teamWrite =
        tool(API_1, "vector", "remember", args("api:1").put("scope", "team").put("text", "x"));
    assertThat(teamWrite.status()).as("api:1 remember scope team: %s", teamWrite).isEqualTo(403);

    // the same calls with full rights do change the records: the refusals above were the guard
    Answer suppressed =
        tool(
            TestTokens.ADMIN,
            "vector",
            "update_memory_status",
            args(null).put("id", team).put("status", "suppressed"));
    assertThat(suppressed.status()).as("admin suppresses: %s", suppressed).isEqualTo(200);
    assertThat(statusOf(team)).isEqualTo("suppressed");
    Answer deleted =
        tool(TestTokens.ADMIN, "vector", "delete_memory", args(null).put("id", global));
    assertThat(deleted.status()).as("admin deletes: %s", deleted).isEqualTo(200);
    assertThat(statusOf(global)).isEqualTo("absent");
  }

  @Test
  void anotherOwnersPersonalRecordLooksLikeNotFound() {
    String mine = remember(API_1, "api:1", "personal", "My locker code is 4417 mk3z");

    Answer delete = tool(API_2, "vector", "delete_memory", args("api:2").put("id", mine));
    assertThat(delete.status()).as("api:2 deletes api:1's record: %s", delete).isEqualTo(404);
    Answer own = tool(API_1, "vector", "delete_memory", args("api:1").put("id", mine));
    assertThat(own.status()).as("api:1 deletes its own record: %s", own).isEqualTo(200);
  }

  @Test
  void aViewerCannotCallAWriteToolButMayCallReadTools() {
    Answer remember =
        tool(VIEWER, "vector", "remember", args("api:1").put("text", "a viewer's note"));
    assertThat(remember.status()).as("viewer remember: %s", remember).isEqualTo(403);
    Answer write =
        tool(
            VIEWER,
            "builtin",
            "write_workspace_memory_file",
            args("api:1").put("filename", "MEMORY.md").put("content", "# overwritten"));
    assertThat(write.status()).as("viewer write_workspace_memory_file: %s", write).isEqualTo(403);
    Answer add = tool(VIEWER, "mem0", "mem0_add", args("api:1").put("text", "viewer fact"));
    assertThat(add.status()).as("viewer mem0_add: %s", add).isEqualTo(403);

    Answer list = tool(VIEWER, "vector", "list_memories", args("api:1"));
    assertThat(list.status()).as("viewer list_memories: %s", list).isEqualTo(200);
    // dreaming_status reads: the tool and its REST route need the same role (viewer)
    Answer statusTool = tool(VIEWER, "builtin", "dreaming_status", args(null));
    Answer statusRoute =
        send(VIEWER, api.request("/api/v1/memory/" + AGENT + "/dreaming/status").GET());
    assertThat(statusTool.status())
        .as("viewer dreaming_status tool: %s", statusTool)
        .isNotEqualTo(403);
    assertThat(statusRoute.status())
        .as("viewer dreaming status route: %s", statusRoute)
        .isEqualTo(statusTool.status());
  }

  @Test
  void aToolArgumentErrorNamesTheField() {
    Answer limit =
        tool(API_1, "vector", "recall", args("api:1").put("query", "clock").put("limit", "ten"));
    assertThat(limit.status()).as("recall limit 'ten': %s", limit).isEqualTo(400);
    assertThat(limit.json().get("field").asString()).isEqualTo("limit");

    Answer missing = tool(API_1, "vector", "remember", args("api:1"));
    assertThat(missing.status()).as("remember without text: %s", missing).isEqualTo(400);
    assertThat(missing.json().get("field").asString()).isEqualTo("text");

    Answer unknown =
        tool(API_1, "builtin", "search_workspace_memory", args("api:1").put("qeury", "clock"));
    assertThat(unknown.status()).as("search with qeury: %s", unknown).isEqualTo(400);
    assertThat(unknown.json().get("field").asString()).isEqualTo("qeury");

    Answer mem0Limit =
        tool(API_1, "mem0", "mem0_search", args("api:1").put("query", "clock").put("limit", 0));
    assertThat(mem0Limit.status()).as("mem0_search limit 0: %s", mem0Limit).isEqualTo(400);
    assertThat(mem0Limit.json().get("field").asString()).isEqualTo("limit");
  }

  @Test
  void theToolListShowsEachToolsDeclaredEffect() {
    Answer listed =
        send(VIEWER, api.request("/api/v1/agents/" + AGENT + "/tools").GET()).expect(200);
    List<JsonNode> tools =
        StreamSupport.stream(listed.json().get("tools").spliterator(), false).toList();
    assertThat(tools).isNotEmpty();
    assertThat(tools)
        .as("every tool of the bundled providers declares its effect")
        .allSatisfy(
            t -> assertThat(t.get("effect").asString()).isIn("read", "write", "destructive"));
    assertThat(effectOf(tools, "vector", "delete_memory")).isEqualTo("destructive");
    assertThat(effectOf(tools, "vector", "list_memories")).isEqualTo("read");
    assertThat(effectOf(tools, "builtin", "dreaming_status")).isEqualTo("read");
    assertThat(effectOf(tools, "mem0", "mem0_add")).isEqualTo("write");
  }

  @Test
  void theSameTurnIdFromTwoOwnersReachesMem0AsTwoTurns() {
    String turnId = "shared-turn-" + System.nanoTime();
    Answer first = turn(API_1, "api:1", turnId, "My bicycle is teal mk5z");
    Answer second = turn(API_2, "api:2", turnId, "My kayak is amber mk6z");
    assertThat(first.status()).as("api:1 turn: %s", first).isEqualTo(202);
    assertThat(second.status()).as("api:2 turn: %s", second).isEqualTo(202);

    await("both owners' turns stored in mem0")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                mem0.memories().stream().anyMatch(m -> m.text().contains("mk5z"))
                    && mem0.memories().stream().anyMatch(m -> m.text().contains("mk6z")));
    assertThat(mem0.memories())
        .filteredOn(m -> m.text().contains("mk6z"))
        .allSatisfy(m -> assertThat(m.userId()).isEqualTo("api:2"));
  }

  // ---------------------------------------------------------------- helpers

  private static ObjectNode args(String owner) {
    ObjectNode args = HostClient.JSON.createObjectNode();
    if (owner != null) {
      args.put("ownerKey", owner);
    }
    return args;
  }

  private static Answer tool(String token, String provider, String tool, ObjectNode args) {
    return send(
        token,
        api.request("/api/v1/agents/" + AGENT + "/tools/" + provider + "/" + tool)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(args.toString(), StandardCharsets.UTF_8)));
  }

  private static Answer turn(String token, String owner, String turnId, String text) {
    ObjectNode body = args(owner);
    body.put("conversationId", "c-" + owner.replace(':', '-'));
    body.put("turnId", turnId);
    body.put("userMessage", text);
    body.put("assistantReply", "Noted.");
    body.put("triggerSource", "api");
    return send(
        token,
        api.request("/api/v1/agents/" + AGENT + "/memory/turns")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8)));
  }

  private static Answer send(String token, HttpRequest.Builder request) {
    return api.send(request.setHeader("Authorization", TestTokens.bearer(token)).build());
  }

  private static String remember(String token, String owner, String scope, String text) {
    Answer answer =
        tool(token, "vector", "remember", args(owner).put("scope", scope).put("text", text));
    assertThat(answer.status()).as("remember %s: %s", scope, answer).isEqualTo(200);
    return answer.json().get("id").asString();
  }

  private static List<String> ids(Answer list) {
    assertThat(list.status()).as("list_memories: %s", list).isEqualTo(200);
    return StreamSupport.stream(list.json().get("items").spliterator(), false)
        .map(item -> item.get("id").asString())
        .toList();
  }

  /** A record's status as the admin sees it, or {@code absent}. */
  private static String statusOf(String id) {
    Answer list =
        tool(
            TestTokens.ADMIN,
            "vector",
            "list_memories",
            args(null).put("status", "any").put("limit", 100));
    assertThat(list.status()).as("admin list_memories: %s", list).isEqualTo(200);
    for (JsonNode item : list.json().get("items")) {
      if (item.get("id").asString().equals(id)) {
        return item.get("status").asString();
      }
    }
    return "absent";
  }

  private static String effectOf(List<JsonNode> tools, String provider, String name) {
    return tools.stream()
        .filter(t -> t.get("provider").asString().equals(provider))
        .filter(t -> t.get("name").asString().equals(name))
        .findFirst()
        .map(t -> t.get("effect").asString())
        .orElse("missing");
  }
}
