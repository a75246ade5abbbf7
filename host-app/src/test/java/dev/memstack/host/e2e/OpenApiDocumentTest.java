package dev.memstack.host.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.api.ApiRequests;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 16's OpenAPI contract: {@code GET /v3/api-docs} of a real host matches the committed {@code
 * docs/openapi.json} (with {@code -Dmemstack.openapi.write=true} the test rewrites the file
 * instead), needs no token, declares the bearer scheme for every operation, documents the request
 * bodies by their records (not as Jackson's node class) and every error as {@code ApiError}.
 */
@DisplayName("The OpenAPI document")
class OpenApiDocumentTest {

  @AutoClose private static TestHost host;
  private static HostClient api;
  private static JsonNode served;

  @BeforeAll
  static void startHost() {
    // the document does not depend on the providers; without vector no model loads
    host = TestHost.create("openapi").with("memstack.providers.vector.enabled", "false").start();
    api = host.client();
    HostClient.Answer answer = api.get("/v3/api-docs", null);
    assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
    served = answer.json();
  }

  @Test
  void matchesTheCommittedCopyInDocs() throws Exception {
    Path committed = OpenApiDocument.committed();
    if (Boolean.getBoolean(OpenApiDocument.WRITE_PROPERTY)) {
      OpenApiDocument.write(committed, served);
      System.out.println("wrote " + committed);
    }
    assertThat(committed).as("%s is missing: %s", committed, OpenApiDocument.REGENERATE).exists();
    List<String> differences = OpenApiDocument.differences(OpenApiDocument.read(committed), served);
    assertThat(differences)
        .as(
            "the running host's /v3/api-docs differs from %s; %s",
            committed, OpenApiDocument.REGENERATE)
        .isEmpty();
    assertThat(Files.readString(committed))
        .as("%s is not in canonical form; %s", committed, OpenApiDocument.REGENERATE)
        .isEqualTo(OpenApiDocument.canonicalText(served));
  }

  @Test
  void isOpenWithoutATokenButRefusesAWrongOne() {
    HostClient.Answer ui = api.get("/swagger-ui/index.html", null);
    assertThat(ui.status()).as(ui.toString()).isEqualTo(200);
    assertThat(ui.body()).contains("swagger-ui");
    HostClient.Answer uiConfig = api.get("/v3/api-docs/swagger-config", null);
    assertThat(uiConfig.status()).as(uiConfig.toString()).isEqualTo(200);
    assertThat(uiConfig.json().get("url").asString()).isEqualTo("/v3/api-docs");
    assertThat(api.get("/swagger-ui.html", null).status()).isEqualTo(302);

    HostClient.Answer wrong = api.get("/v3/api-docs", "not-a-known-token-0123456789");
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.json().get("error").asString()).isEqualTo("unauthorized");
    // the document is no key to the data: the API itself still needs a token
    assertThat(api.get("/api/v1/plugins", null).status()).isEqualTo(401);
  }

  @Test
  void declaresTheBearerSchemeForEveryOperation() {
    JsonNode scheme = served.at("/components/securitySchemes/bearer");
    assertThat(scheme.get("type").asString()).isEqualTo("http");
    assertThat(scheme.get("scheme").asString()).isEqualTo("bearer");
    assertThat(served.at("/security/0/bearer").isArray()).isTrue();
    assertThat(OpenApiDocument.operations(served))
        .allSatisfy(
            (name, operation) ->
                assertThat(operation.has("security"))
                    .as("%s overrides the document's security", name)
                    .isFalse());
  }

  @Test
  void documentsEveryRouteOfTheRestReference() {
    assertThat(OpenApiDocument.operations(served).keySet())
        .contains(
            "POST /api/v1/agents/{agentId}/memory/context",
            "POST /api/v1/agents/{agentId}/memory/turns",
            "POST /api/v1/agents/{agentId}/memory/feedback",
            "GET /api/v1/agents/{agentId}/tools",
            "POST /api/v1/agents/{agentId}/tools/{providerId}/{tool}",
            "GET /api/v1/agents/{agentId}/conversations/{conversationId}",
            "GET /api/v1/agents/{agentId}/conversations/{conversationId}/window",
            "GET /api/v1/plugins",
            "POST /api/v1/plugins/{pluginId}/reload",
            "GET /api/v1/providers",
            "GET /api/v1/outbox",
            "GET /api/v1/outbox/dead-letters",
            "POST /api/v1/agents/{agentId}/chat",
            "POST /api/v1/agents/{agentId}/chat/stream",
            "POST /api/v1/outbox/dead-letters/{id}/retry",
            "DELETE /api/v1/outbox/dead-letters/{id}",
            "DELETE /api/v1/owners/{ownerKey}/memory",
            "POST /api/v1/agents/{agentId}/workspace/search",
            "POST /api/v1/memory/{agentId}/emergence")
        .allSatisfy(name -> assertThat(name).contains(" /api/v1/"));
    assertThat(OpenApiDocument.operations(served))
        .allSatisfy(
            (name, operation) ->
                assertThat(operation.path("summary").asString("")).as(name).isNotBlank());
  }

  @Test
  void documentsTheRequestBodiesByTheirRecords() {
    assertBody("POST /api/v1/agents/{agentId}/memory/context", ApiRequests.ContextRequest.class);
    assertBody("POST /api/v1/agents/{agentId}/memory/turns", ApiRequests.TurnRequest.class);
    assertBody("POST /api/v1/agents/{agentId}/memory/feedback", ApiRequests.FeedbackRequest.class);
    assertBody("POST /api/v1/agents/{agentId}/workspace/search", ApiRequests.WorkspaceSearch.class);

    JsonNode turn = served.at("/components/schemas/TurnRequest");
    assertThat(names(turn.get("required")))
        .containsExactlyInAnyOrder(
            "ownerKey", "conversationId", "userMessage", "assistantReply", "triggerSource");
    assertThat(names(turn.at("/properties/triggerSource/enum")))
        .containsExactlyInAnyOrder("web", "channel", "api", "cron");
    assertThat(turn.at("/properties/time/format").asString()).isEqualTo("date-time");
    assertThat(turn.get("additionalProperties").asBoolean(true)).isFalse();
    assertThat(served.at("/components/schemas/FeedbackRequest/properties/used/maxItems").asInt())
        .isEqualTo(200);
  }

  @Test
  void showsJsonTreesAsPlainObjectsNotAsJacksonsNodeClass() {
    JsonNode schemas = served.at("/components/schemas");
    assertThat(schemas.propertyNames()).noneMatch(name -> name.contains("Node"));
    assertThat(served.toString()).doesNotContain("nodeType").doesNotContain("containerNode");
    assertThat(served.at("/components/schemas/ToolView/properties/inputSchema/type").asString())
        .isEqualTo("object");
  }

  @Test
  void answersEveryErrorWithApiError() {
    JsonNode error = served.at("/components/schemas/ApiError");
    assertThat(error.at("/properties").propertyNames())
        .containsExactlyInAnyOrder("error", "field", "message");
    assertThat(names(error.get("required"))).containsExactlyInAnyOrder("error", "message");
    for (Map.Entry<String, JsonNode> operation : OpenApiDocument.operations(served).entrySet()) {
      JsonNode responses = operation.getValue().get("responses");
      for (String status : List.of("401", "403", "default")) {
        assertThat(responses.at("/" + status + "/content/application~1json/schema/$ref").asString())
            .as("%s answers %s", operation.getKey(), status)
            .isEqualTo("#/components/schemas/ApiError");
      }
    }
    JsonNode context =
        OpenApiDocument.operations(served).get("POST /api/v1/agents/{agentId}/memory/context");
    assertThat(context.at("/responses/400/content/application~1json/schema/$ref").asString())
        .isEqualTo("#/components/schemas/ApiError");
    assertThat(context.at("/responses/200/content/application~1json/schema/$ref").asString())
        .isEqualTo("#/components/schemas/ContextResponse");
  }

  private static void assertBody(String operation, Class<? extends Record> record) {
    JsonNode body = OpenApiDocument.operations(served).get(operation).get("requestBody");
    String name = record.getSimpleName();
    assertThat(body.at("/content/application~1json/schema/$ref").asString())
        .as(operation)
        .isEqualTo("#/components/schemas/" + name);
    JsonNode schema = served.at("/components/schemas/" + name);
    assertThat(schema.get("properties").propertyNames())
        .as("%s documents exactly the fields the route takes", name)
        .containsExactlyInAnyOrderElementsOf(ApiRequests.fields(record));
  }

  private static Set<String> names(JsonNode array) {
    Set<String> names = new TreeSet<>();
    StreamSupport.stream(array.spliterator(), false).forEach(n -> names.add(n.asString()));
    return names;
  }
}
