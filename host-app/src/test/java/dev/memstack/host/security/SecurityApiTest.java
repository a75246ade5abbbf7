package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Authentication and authorisation over HTTP: the host with the fixture plugin only and one token
 * per kind of caller. Every answer the checks give is asserted here: 401 without or with a wrong
 * token, 403 for a missing role, another owner or a shared write by an owner-bound token.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SecurityApiTest {

  private static final String ADMIN = "admin-token-0123456789abcdef";
  private static final String MEMBER = "member-token-0123456789abcdef";
  private static final String VIEWER = "viewer-token-0123456789abcdef";
  private static final String USER_1 = "user1-token-0123456789abcdef";
  private static final String PLATFORM = "platform-token-0123456789abcdef";

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  @Autowired
  @Qualifier("requestMappingHandlerMapping")
  RequestMappingHandlerMapping mappings;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-security-test");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    Path plugins = TEMP.resolve("plugins");
    FixturePlugin.build(plugins, ">=0.1.0");
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", () -> TEMP.resolve("data").toString());
    registry.add("memstack.providers.builtin.enabled", () -> "false");
    registry.add("memstack.providers.vector.enabled", () -> "false");
    registry.add("memstack.providers.fixture.type", () -> "fixture");
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    registry.add("memstack.stack.context.provider-timeout", () -> "5s");
    registry.add("memstack.stack.context.deadline", () -> "8s");
    String[][] tokens = {
      {ADMIN, "admin", null},
      {MEMBER, "member", null},
      {VIEWER, "viewer", null},
      {USER_1, "member", "api:1"},
      {PLATFORM, "member", "api:*"}
    };
    TestTokens.configure(registry, tokens);
  }

  @AfterAll
  static void cleanUp() throws IOException {
    FileSystemUtils.deleteRecursively(TEMP);
  }

  @TestConfiguration
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder testEmbedder() {
      return new HashingEmbedder();
    }
  }

  // ---- helpers

  private record Answer(int status, JsonNode json, HttpResponse<String> raw) {
    String error() {
      return json == null || json.get("error") == null ? null : json.get("error").asString();
    }
  }

  private Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode json = response.body().isEmpty() ? null : JSON.readTree(response.body());
      return new Answer(response.statusCode(), json, response);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpRequest.Builder request(String path, String authorization) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20));
    return authorization == null ? request : request.header("Authorization", authorization);
  }

  private Answer get(String path, String token) {
    return send(request(path, token == null ? null : "Bearer " + token).GET());
  }

  private Answer post(String path, String token, String body) {
    return send(
        request(path, token == null ? null : "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private Answer delete(String path, String token) {
    return send(request(path, "Bearer " + token).DELETE());
  }

  private Answer context(String token, String owner) {
    return post(
        "/api/v1/agents/a1/memory/context",
        token,
        "{\"ownerKey\":\"" + owner + "\",\"query\":\"hello\"}");
  }

  private Answer turn(String token, String owner) {
    return post(
        "/api/v1/agents/a1/memory/turns",
        token,
        "{\"ownerKey\":\""
            + owner
            + "\",\"conversationId\":\"c1\",\"userMessage\":\"I like tea\","
            + "\"assistantReply\":\"Noted.\",\"triggerSource\":\"api\"}");
  }

  private static void assertUnauthorized(Answer answer) {
    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(401);
    assertThat(answer.raw().headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer realm=\"memstack\""));
    assertThat(answer.error()).isEqualTo("unauthorized");
    assertThat(answer.json().get("message").asString()).isNotBlank();
  }

  private static void assertForbidden(Answer answer) {
    assertThat(answer.status()).as(answer.raw().body()).isEqualTo(403);
    assertThat(answer.error()).isEqualTo("forbidden");
    assertThat(answer.json().get("message").asString()).isNotBlank();
  }

  // ---- 401

  @Test
  void aCallWithoutATokenIs401WithABearerChallengeAndAJsonBody() {
    for (Answer answer :
        List.of(
            get("/api/v1/plugins", null),
            context(null, "api:1"),
            get("/api/v1/no-such-route", null),
            get("/actuator/metrics", null),
            get("/actuator/info", null))) {
      assertUnauthorized(answer);
      assertThat(answer.raw().headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"memstack\"");
    }
  }

  @Test
  void aWrongTokenIs401() {
    List<Answer> answers =
        List.of(
            get("/api/v1/plugins", "not-a-token"),
            get("/api/v1/plugins", ADMIN.substring(0, ADMIN.length() - 1)),
            get("/api/v1/plugins", ADMIN + "x"),
            send(request("/api/v1/plugins", "Basic YWRtaW46YWRtaW4=").GET()),
            send(request("/api/v1/plugins", "Bearer").GET()));

    for (Answer answer : answers) {
      assertUnauthorized(answer);
    }
    assertThat(answers.get(0).raw().headers().firstValue("WWW-Authenticate"))
        .hasValue("Bearer realm=\"memstack\", error=\"invalid_token\"");
  }

  // ---- health

  @Test
  void healthIsOpenWithTheStatusOnlyAndShowsItsDetailsToAnyToken() {
    Answer open = get("/actuator/health", null);
    Answer withToken = get("/actuator/health", VIEWER);
    Answer wrongToken = get("/actuator/health", "not-a-token");

    assertThat(open.status()).isEqualTo(200);
    assertThat(open.json().get("status").asString()).isEqualTo("UP");
    assertThat(open.json().has("components")).isFalse();
    assertThat(withToken.json().get("components").get("providers").get("details").has("fixture"))
        .isTrue();
    assertUnauthorized(wrongToken);
    // the readiness group is open the same way
    Answer readiness = get("/actuator/health/readiness", null);
    assertThat(readiness.status()).isEqualTo(200);
    assertThat(readiness.json().get("status").asString()).isEqualTo("UP");
    assertThat(readiness.json().has("components")).isFalse();
  }

  // ---- roles

  @Test
  void aViewerReadsButDoesNotWrite() {
    assertThat(context(VIEWER, "api:1").status()).isEqualTo(200);
    assertThat(get("/api/v1/plugins", VIEWER).status()).isEqualTo(200);
    assertThat(get("/api/v1/agents/a1/tools", VIEWER).status()).isEqualTo(200);
    Answer read = post("/api/v1/agents/a1/tools/fixture/search_echo?ownerKey=api:1", VIEWER, "{}");
    assertThat(read.status()).as(read.raw().body()).isEqualTo(200);
    assertThat(read.json().get("writable")).as("a viewer may change nothing").isEmpty();

    assertForbidden(turn(VIEWER, "api:1"));
    assertForbidden(post("/api/v1/agents/a1/tools/fixture/echo?ownerKey=api:1", VIEWER, "{}"));
    // a tool that declares no effect counts as destructive: not for a viewer
    assertForbidden(post("/api/v1/agents/a1/tools/fixture/conflict?ownerKey=api:1", VIEWER, "{}"));
    // the role is checked before the body is read
    Answer malformed = post("/api/v1/agents/a1/memory/turns", VIEWER, "{not json");
    assertForbidden(malformed);
    assertThat(malformed.json().get("message").asString())
        .isEqualTo("this call needs the member role; this token has viewer");
  }

  @Test
  void aMemberWritesMemoryForAnyOwner() {
    Answer accepted = turn(MEMBER, "user:5");
    Answer echo = post("/api/v1/agents/a1/tools/fixture/echo", MEMBER, "{\"scope\":\"team\"}");

    assertThat(accepted.status()).as(accepted.raw().body()).isEqualTo(202);
    assertThat(echo.status()).as(echo.raw().body()).isEqualTo(200);
    assertThat(echo.json().get("arguments").get("scope").asString()).isEqualTo("team");
    assertThat(echo.json().get("owner").isNull()).isTrue();
    // an unbound member may change every scope; without an owner there is no personal memory
    assertThat(echo.json().get("writable").toString()).isEqualTo("[\"team\",\"global\"]");
  }

  @Test
  void adminOnlyRoutesRejectMembersAndViewers() {
    for (String token : List.of(MEMBER, VIEWER, PLATFORM)) {
      assertForbidden(post("/api/v1/plugins/" + FixturePlugin.ID + "/reload", token, ""));
      assertForbidden(post("/api/v1/plugins/" + FixturePlugin.ID + "/stop", token, ""));
      assertForbidden(get("/api/v1/providers", token));
      assertForbidden(get("/api/v1/outbox", token));
    }
    assertThat(get("/api/v1/providers", ADMIN).status()).isEqualTo(200);
    assertThat(get("/api/v1/outbox", ADMIN).status()).isEqualTo(200);
    // past the role check: the plugin does not exist
    assertThat(post("/api/v1/plugins/nope/reload", ADMIN, "").status()).isEqualTo(404);
  }

  // ---- owner bindings

  @Test
  void aTokenBoundToApi1ActsForApi1AndGets403ForApi2() {
    assertThat(context(USER_1, "api:1").status()).isEqualTo(200);
    assertThat(turn(USER_1, "api:1").status()).isEqualTo(202);

    Answer otherContext = context(USER_1, "api:2");
    assertForbidden(otherContext);
    assertThat(otherContext.json().get("message").asString())
        .isEqualTo("this token may act for api:1 only, not for api:2");
    assertForbidden(turn(USER_1, "api:2"));
    assertForbidden(context(USER_1, "system"));
    assertForbidden(
        post("/api/v1/agents/a1/tools/fixture/search_echo?ownerKey=api:2", USER_1, "{}"));
  }

  @Test
  void aPrefixBindingCoversItsPrefixOnly() {
    assertThat(context(PLATFORM, "api:9").status()).isEqualTo(200);
    assertThat(turn(PLATFORM, "api:end-user-7").status()).isEqualTo(202);

    assertForbidden(context(PLATFORM, "user:1"));
    assertForbidden(turn(PLATFORM, "user:1"));
    assertForbidden(context(PLATFORM, "system"));
  }

  @Test
  void anOwnerBoundTokenNeverWritesSharedMemory() {
    Answer noOwner = post("/api/v1/agents/a1/tools/fixture/echo", USER_1, "{\"text\":\"x\"}");
    Answer team =
        post(
            "/api/v1/agents/a1/tools/fixture/echo",
            USER_1,
            "{\"ownerKey\":\"api:1\",\"scope\":\"team\"}");
    Answer platformGlobal =
        post(
            "/api/v1/agents/a1/tools/fixture/echo?ownerKey=api:3",
            PLATFORM,
            "{\"scope\":\"global\"}");
    Answer personal =
        post(
            "/api/v1/agents/a1/tools/fixture/echo",
            USER_1,
            "{\"ownerKey\":\"api:1\",\"text\":\"mine\"}");
    Answer sharedRead = post("/api/v1/agents/a1/tools/fixture/search_echo", USER_1, "{}");

    assertForbidden(noOwner);
    assertThat(noOwner.json().get("message").asString()).contains("may not write shared");
    assertForbidden(team);
    assertForbidden(platformGlobal);
    assertThat(personal.status()).as(personal.raw().body()).isEqualTo(200);
    assertThat(personal.json().get("owner").asString()).isEqualTo("api:1");
    // kept to the owner's personal memory: the tool takes a scope, so the host sets it
    assertThat(personal.json().get("arguments").get("scope").asString()).isEqualTo("personal");
    assertThat(personal.json().get("writable").toString())
        .as("what the provider is told the caller may change")
        .isEqualTo("[\"personal\"]");
    assertThat(sharedRead.status()).isEqualTo(200);
    assertThat(sharedRead.json().get("arguments").has("scope"))
        .as("no scope is filled in for a read")
        .isFalse();
  }

  @Test
  void erasureIsForAdminsAndForMembersBoundToThatOwner() {
    assertForbidden(delete("/api/v1/owners/api:1/memory", MEMBER));
    assertForbidden(delete("/api/v1/owners/api:1/memory", VIEWER));
    assertForbidden(delete("/api/v1/owners/api:2/memory", USER_1));
    assertForbidden(delete("/api/v1/owners/user:2/memory", PLATFORM));

    Answer own = delete("/api/v1/owners/api:1/memory", USER_1);
    Answer platform = delete("/api/v1/owners/api:4/memory", PLATFORM);
    Answer admin = delete("/api/v1/owners/user:2/memory", ADMIN);

    for (Answer answer : List.of(own, platform, admin)) {
      assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
    }
  }

  // ---- the route table

  @Test
  void everyApiRouteHasTheRoleTheRestReferenceLists() throws IOException {
    Map<String, String> routes = new TreeMap<>();
    for (Map.Entry<RequestMappingInfo, HandlerMethod> entry :
        mappings.getHandlerMethods().entrySet()) {
      RequestMappingInfo info = entry.getKey();
      for (String path : info.getPatternValues()) {
        if (!path.startsWith("/api/")) {
          continue;
        }
        for (var method : info.getMethodsCondition().getMethods()) {
          RequiresRole rule = AccessInterceptor.rule(entry.getValue());
          routes.put(method + " " + path, rule == null ? "none" : rule.value().wireName());
        }
      }
    }

    assertThat(routes).isNotEmpty().doesNotContainValue("none");
    assertThat(routes).isEqualTo(documentedRoutes());
  }

  /** The rows of the route table under "## Authentication" in docs/rest-api.md. */
  private static Map<String, String> documentedRoutes() throws IOException {
    String docs = Files.readString(Path.of("..", "docs", "rest-api.md"));
    int start = docs.indexOf("\n## Authentication");
    assertThat(start).as("docs/rest-api.md has an Authentication section").isPositive();
    int end = docs.indexOf("\n## ", start + 1);
    String section = docs.substring(start, end < 0 ? docs.length() : end);
    Matcher row =
        Pattern.compile("(?m)^\\| `(GET|POST|DELETE|PUT|PATCH)` \\| `(/api/[^`]+)` \\| `(\\w+)`")
            .matcher(section);
    Map<String, String> documented = new TreeMap<>();
    while (row.find()) {
      documented.put(row.group(1) + " " + row.group(2), row.group(3));
    }
    return documented;
  }
}
