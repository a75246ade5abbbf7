package dev.memstack.host.api;

import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import java.util.List;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.customizers.OperationCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI document of the REST API ({@code GET /v3/api-docs}, Swagger UI at {@code
 * /swagger-ui.html}; both need no token, they hold no data). springdoc reads the controllers; this
 * adds what it cannot see: the bearer scheme every route needs, the {@link ApiError} answers, and
 * JSON trees ({@link JsonNode}: tool arguments, provider answers) as plain JSON objects rather than
 * as Jackson's node class. Request bodies are documented by {@link ApiRequests}, named by each
 * route's {@link JsonRequestBody}. The committed copy is {@code docs/openapi.json}, checked against
 * the running host by a test.
 */
@Configuration(proxyBeanMethods = false)
public class OpenApiConfiguration {

  /** The name of the security scheme in the document. */
  public static final String BEARER = "bearer";

  static {
    SpringDocUtils.getConfig()
        .replaceWithSchema(JsonNode.class, new ObjectSchema())
        .replaceWithSchema(ObjectNode.class, new ObjectSchema());
  }

  @Bean
  OpenAPI memstackOpenApi(@Value("${info.app.version:0.1.0}") String version) {
    return new OpenAPI()
        .info(
            new Info()
                .title("memstack")
                .version(version)
                .description(
                    "Long-term memory for AI agents: a context call before the model runs, a turn"
                        + " after it answered, memory tools, and the host's plugins. Reference:"
                        + " docs/rest-api.md. Every route needs `Authorization: Bearer <token>`.")
                .license(new License().name("Apache-2.0")))
        .servers(List.of(new Server().url("http://127.0.0.1:8080").description("the default")))
        .components(
            new Components()
                .addSecuritySchemes(
                    BEARER,
                    new SecurityScheme()
                        .type(SecurityScheme.Type.HTTP)
                        .scheme("bearer")
                        .description(
                            "An API token from memstack.security.tokens, or the generated admin"
                                + " token in <memstack.data-dir>/api-token.")))
        .addSecurityItem(new SecurityRequirement().addList(BEARER));
  }

  /**
   * Adds the {@link ApiError} schema and, to every operation, the error answers it can give: 400
   * when it takes parameters or a body, 401 and 403 always, 404 when its path names a plugin,
   * provider, tool, conversation, owner or file, and {@code default} for the rest (405, 406, 415,
   * 500, 502, 503). Tags lose springdoc's {@code -controller} suffix.
   */
  @Bean
  OpenApiCustomizer apiErrorResponses() {
    return openApi -> {
      ModelConverters.getInstance()
          .read(ApiError.class)
          .forEach((name, schema) -> openApi.getComponents().addSchemas(name, schema));
      if (openApi.getPaths() == null) {
        return;
      }
      for (PathItem path : openApi.getPaths().values()) {
        for (Operation operation : path.readOperations()) {
          addErrors(operation);
          if (operation.getTags() != null) {
            // "memory-controller" -> "memory": tags name the part of the API, not a class
            operation.setTags(
                operation.getTags().stream().map(t -> t.replaceFirst("-controller$", "")).toList());
          }
        }
      }
    };
  }

  private static void addErrors(Operation operation) {
    ApiResponses responses = operation.getResponses();
    List<Parameter> parameters =
        operation.getParameters() == null ? List.of() : operation.getParameters();
    if (!parameters.isEmpty() || operation.getRequestBody() != null) {
      responses.addApiResponse(
          "400", error("a malformed body or an invalid field or parameter; `field` names it"));
    }
    responses.addApiResponse("401", error("no bearer token, or one the host does not know"));
    responses.addApiResponse("403", error("the token's role or owner binding does not allow it"));
    // an agent needs no registration, so only the other path variables name something that may be
    // missing (a plugin, provider, tool, conversation, owner, file)
    if (parameters.stream()
        .anyMatch(p -> "path".equals(p.getIn()) && !"agentId".equals(p.getName()))) {
      responses.addApiResponse(
          "404", error("what the path names does not exist or is not running"));
    }
    responses.addApiResponse(
        "default", error("any other error (405, 406, 415, 500, 502, 503), same body"));
  }

  /**
   * The request body of every {@link JsonRequestBody} route: a reference to the schema of its
   * record under each media type the route consumes; the schemas themselves are added to the
   * components by {@link #requestSchemas()}.
   */
  @Bean
  OperationCustomizer jsonRequestBodies() {
    return (operation, handler) -> {
      JsonRequestBody body = handler.getMethodAnnotation(JsonRequestBody.class);
      if (body == null) {
        return operation;
      }
      RequestMapping mapping =
          AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(), RequestMapping.class);
      String[] consumes =
          mapping == null || mapping.consumes().length == 0
              ? new String[] {org.springframework.http.MediaType.APPLICATION_JSON_VALUE}
              : mapping.consumes();
      Content content = new Content();
      for (String type : consumes) {
        content.addMediaType(
            type, new MediaType().schema(new Schema<>().$ref(schemaRef(body.value()))));
      }
      operation.setRequestBody(
          new RequestBody().content(content).required(body.required() ? Boolean.TRUE : null));
      return operation;
    };
  }

  /** The schemas of the {@link ApiRequests} records, which {@link JsonRequestBody} routes name. */
  @Bean
  OpenApiCustomizer requestSchemas() {
    return openApi -> {
      for (Class<?> request : ApiRequests.class.getDeclaredClasses()) {
        if (request.isRecord()) {
          ModelConverters.getInstance(true)
              .readAll(new AnnotatedType(request))
              .forEach((name, schema) -> openApi.getComponents().addSchemas(name, schema));
        }
      }
    };
  }

  private static String schemaRef(Class<?> type) {
    io.swagger.v3.oas.annotations.media.Schema named =
        type.getAnnotation(io.swagger.v3.oas.annotations.media.Schema.class);
    String name = named == null || named.name().isEmpty() ? type.getSimpleName() : named.name();
    return "#/components/schemas/" + name;
  }

  private static ApiResponse error(String description) {
    Schema<?> ref = new Schema<>().$ref("#/components/schemas/" + ApiError.class.getSimpleName());
    return new ApiResponse()
        .description(description)
        .content(
            new Content()
                .addMediaType(
                    org.springframework.http.MediaType.APPLICATION_JSON_VALUE,
                    new MediaType().schema(ref)));
  }
}
