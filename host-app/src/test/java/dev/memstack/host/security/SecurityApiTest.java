package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Authentication and authorisation over HTTP: the host with the fixture plugin only and one token
 * per kind of caller. Every answer the checks give is asserted here: 401 without or with a wrong
 * token, 403 for a missing role, another owner or a shared write by an owner-bound token.
 */
@HostTest
class SecurityApiTest {

  @Autowired HostClient api;

  private static final String USER_1 = "user1-token-0123456789abcdef";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.fixtureOnly("security")
          .patientDeadlines()
          .tokens(
              new String[] {TestTokens.ADMIN, "admin", null},
              new String[] {TestTokens.MEMBER, "member", null},
              new String[] {TestTokens.VIEWER, "viewer", null},
              new String[] {USER_1, "member", "api:1"},
              new String[] {TestTokens.PLATFORM, "member", "api:*"});

  @Autowired
  @Qualifier("requestMappingHandlerMapping")
  RequestMappingHandlerMapping mappings;

  // ---- helpers

  private Answer get(String path, String token) {
    return api.as(token).get(path);
  }

  private Answer post(String path, String token, String body) {
    return api.as(token).post(path, body);
  }

  private Answer delete(String path, String token) {
    return api.as(token).delete(path);
  }

  /** A GET with {@code authorization} as the whole header value. */
  private Answer getWith(String path, String authorization) {
    return api.send(api.as(null).request(path).header("Authorization", authorization).GET());
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
    assertThat(answer.status()).as(answer.body()).isEqualTo(401);
    assertThat(answer.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer realm=\"memstack\""));
    assertThat(answer.error()).isEqualTo("unauthorized");
    assertThat(answer.json().get("message").asString()).isNotBlank();
  }

  private static void assertForbidden(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(403);
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
      assertThat(answer.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"memstack\"");
    }
  }

  @Test
  void aWrongTokenIs401() {
    List<Answer> answers =
        List.of(
            get("/api/v1/plugins", "not-a-token"),
            get("/api/v1/plugins", TestTokens.ADMIN.substring(0, TestTokens.ADMIN.length() - 1)),
            get("/api/v1/plugins", TestTokens.ADMIN + "x"),
            getWith("/api/v1/plugins", "Basic YWRtaW46YWRtaW4="),
            getWith("/api/v1/plugins", "Bearer"));

    for (Answer answer : answers) {
      assertUnauthorized(answer);
    }
    assertThat(answers.get(0).headers().firstValue("WWW-Authenticate"))
        .hasValue("Bearer realm=\"memstack\", error=\"invalid_token\"");
  }

  // ---- health

  @Test
  void healthIsOpenWithTheStatusOnlyAndShowsItsDetailsToAnyToken() {
    Answer open = get("/actuator/health", null);
    Answer withToken = get("/actuator/health", TestTokens.VIEWER);
    Answer wrongToken = get("/actuator/health", "not-a-token");

    assertThat(open.status()).isEqualTo(200);
    assertThat(open.json().get("status").asString()).isEqualTo("UP");
    assertThat(open.json().has("components")).isFalse();
    assertThat(withToken.json().get("components").get("providers").get("details").has("fixture"))
        .isTrue();
    assertUnauthorized(wrongToken);
    // the readiness group is open the same way
    Answer readiness = get("/actuator/health/readiness", null).expect(200);
    assertThat(readiness.json().get("status").asString()).isEqualTo("UP");
    assertThat(readiness.json().has("components")).isFalse();
  }

  // ---- roles

  @Test
  void aViewerReadsButDoesNotWrite() {
    assertThat(context(TestTokens.VIEWER, "api:1").status()).isEqualTo(200);
    assertThat(get("/api/v1/plugins", TestTokens.VIEWER).status()).isEqualTo(200);
    assertThat(get("/api/v1/agents/a1/tools", TestTokens.VIEWER).status()).isEqualTo(200);
    Answer read =
        post("/api/v1/agents/a1/tools/fixture/search_echo?ownerKey=api:1", TestTokens.VIEWER, "{}");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().get("writable")).as("a viewer may change nothing").isEmpty();

    assertForbidden(turn(TestTokens.VIEWER, "api:1"));
    assertForbidden(
        post("/api/v1/agents/a1/tools/fixture/echo?ownerKey=api:1", TestTokens.VIEWER, "{}"));
    // a tool that declares no effect counts as destructive: not for a viewer
    assertForbidden(
        post("/api/v1/agents/a1/tools/fixture/conflict?ownerKey=api:1", TestTokens.VIEWER, "{}"));
    // the role is checked before the body is read
    Answer malformed = post("/api/v1/agents/a1/memory/turns", TestTokens.VIEWER, "{not json");
    assertForbidden(malformed);
    assertThat(malformed.json().get("message").asString())
        .isEqualTo("this call needs the member role; this token has viewer");
  }

  @Test
  void aMemberWritesMemoryForAnyOwner() {
    Answer accepted = turn(TestTokens.MEMBER, "user:5");
    Answer echo =
        post("/api/v1/agents/a1/tools/fixture/echo", TestTokens.MEMBER, "{\"scope\":\"team\"}");

    assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
    assertThat(echo.status()).as(echo.body()).isEqualTo(200);
    assertThat(echo.json().get("arguments").get("scope").asString()).isEqualTo("team");
    assertThat(echo.json().get("owner").isNull()).isTrue();
    // an unbound member may change every scope; without an owner there is no personal memory
    assertThat(echo.json().get("writable").toString()).isEqualTo("[\"team\",\"global\"]");
  }

  @Test
  void adminOnlyRoutesRejectMembersAndViewers() {
    for (String token : List.of(TestTokens.MEMBER, TestTokens.VIEWER, TestTokens.PLATFORM)) {
      assertForbidden(post("/api/v1/plugins/" + FixturePlugin.ID + "/reload", token, ""));
      assertForbidden(post("/api/v1/plugins/" + FixturePlugin.ID + "/stop", token, ""));
      assertForbidden(get("/api/v1/providers", token));
      assertForbidden(get("/api/v1/outbox", token));
      assertForbidden(get("/api/v1/outbox/dead-letters", token));
      assertForbidden(post("/api/v1/outbox/dead-letters/1.builtin/retry", token, ""));
      assertForbidden(delete("/api/v1/outbox/dead-letters/1.builtin", token));
    }
    assertThat(get("/api/v1/providers", TestTokens.ADMIN).status()).isEqualTo(200);
    assertThat(get("/api/v1/outbox", TestTokens.ADMIN).status()).isEqualTo(200);
    assertThat(get("/api/v1/outbox/dead-letters", TestTokens.ADMIN).status()).isEqualTo(200);
    assertThat(delete("/api/v1/outbox/dead-letters/1.builtin", TestTokens.ADMIN).status())
        .isEqualTo(404);
    // past the role check: the plugin does not exist
    assertThat(post("/api/v1/plugins/nope/reload", TestTokens.ADMIN, "").status()).isEqualTo(404);
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
    assertThat(context(TestTokens.PLATFORM, "api:9").status()).isEqualTo(200);
    assertThat(turn(TestTokens.PLATFORM, "api:end-user-7").status()).isEqualTo(202);

    assertForbidden(context(TestTokens.PLATFORM, "user:1"));
    assertForbidden(turn(TestTokens.PLATFORM, "user:1"));
    assertForbidden(context(TestTokens.PLATFORM, "system"));
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
            TestTokens.PLATFORM,
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
    assertThat(personal.status()).as(personal.body()).isEqualTo(200);
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
    assertForbidden(delete("/api/v1/owners/api:1/memory", TestTokens.MEMBER));
    assertForbidden(delete("/api/v1/owners/api:1/memory", TestTokens.VIEWER));
    assertForbidden(delete("/api/v1/owners/api:2/memory", USER_1));
    assertForbidden(delete("/api/v1/owners/user:2/memory", TestTokens.PLATFORM));

    Answer own = delete("/api/v1/owners/api:1/memory", USER_1);
    Answer platform = delete("/api/v1/owners/api:4/memory", TestTokens.PLATFORM);
    Answer admin = delete("/api/v1/owners/user:2/memory", TestTokens.ADMIN);

    for (Answer answer : List.of(own, platform, admin)) {
      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    }
  }

  @Test
  void conversationsAreListedByViewersAndClearedByMembersOfTheirOwner() {
    assertThat(turn(USER_1, "api:1").status()).isEqualTo(202);
    String list = "/api/v1/agents/a1/conversations?ownerKey=api:1";
    String one = "/api/v1/agents/a1/conversations/c1?ownerKey=api:1";

    Answer viewed = get(list, TestTokens.VIEWER);
    assertThat(viewed.status()).as(viewed.body()).isEqualTo(200);
    assertThat(viewed.json().get("conversations").get(0).get("conversationId").asString())
        .isEqualTo("c1");
    assertThat(get("/api/v1/agents/a1/conversations", USER_1).status()).isEqualTo(200);
    assertForbidden(get("/api/v1/agents/a1/conversations?ownerKey=api:2", USER_1));
    assertForbidden(get("/api/v1/agents/a1/conversations?ownerKey=user:1", TestTokens.PLATFORM));
    assertForbidden(delete(one, TestTokens.VIEWER));
    assertForbidden(delete("/api/v1/agents/a1/conversations/c1?ownerKey=api:2", USER_1));
    assertForbidden(
        delete("/api/v1/agents/a1/conversations/c1?ownerKey=user:1", TestTokens.PLATFORM));
    assertUnauthorized(delete(one, null));

    assertThat(delete(one, USER_1).status()).isEqualTo(204);
    // past the checks: nothing left to clear
    assertThat(delete(one, TestTokens.MEMBER).status()).isEqualTo(404);
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
