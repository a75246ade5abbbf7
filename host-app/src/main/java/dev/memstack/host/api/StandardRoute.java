package dev.memstack.host.api;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import io.swagger.v3.oas.annotations.Parameter;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the routes over one capability's standard tools share: the tool arguments built from query
 * parameters (each bad value a {@link BadRequestException} naming its parameter) and the call of a
 * standard tool of the provider the {@code provider} parameter names, or of the first that claims
 * the capability ({@link CapabilityTools#callStandard}). Thread-safe.
 *
 * @param providers finds the provider and calls its tools
 * @param json makes the arguments
 * @param capability the capability of the routes
 */
public record StandardRoute(CapabilityTools providers, JsonMapper json, Capability capability) {

  /** Longest id a route takes in its path. */
  private static final int MAX_ID = 512;

  /** Empty arguments. */
  public ObjectNode arguments() {
    return json.createObjectNode();
  }

  /** Arguments holding {@code id}, checked: 1 to 512 characters, else a 400 naming {@code id}. */
  public ObjectNode byId(String id, String what) {
    if (id == null || id.isBlank() || id.length() > MAX_ID) {
      throw new BadRequestException("id", "a " + what + " id is 1 to " + MAX_ID + " characters");
    }
    return arguments().put("id", id);
  }

  /**
   * The query parameters of every route over standard tools: whose memory ({@code ownerKey}; an
   * owner-bound token's own owner when absent) and which provider instance ({@code provider}; the
   * first running one that claims the capability when absent).
   */
  public record Target(
      @Parameter(description = "the owner whose memory it is (default: the token's bound owner)")
          String ownerKey,
      @Parameter(description = "the provider instance (default: the first that claims it)")
          String provider) {}

  /** The paging query parameters of a listing route, as given (checked by {@link #paged}). */
  public record Page(
      @Parameter(description = "how many to skip (default 0)") String offset,
      @Parameter(description = "how many at most") String limit) {}

  /** A JSON body's fields, only those a route allows, and the owner it names or the target's. */
  public record Body(JsonNode fields, OwnerKey owner) {}

  /**
   * Reads a route's JSON body: a field it does not allow is a 400 naming it; {@code ownerKey} in
   * the body wins over the query parameter.
   */
  public static Body body(JsonNode body, Set<String> allowed, Target target) {
    JsonNode fields = JsonBody.of(body).onlyFields(allowed).node();
    return new Body(fields, JsonBody.owner(fields.get("ownerKey"), target.ownerKey()));
  }

  /** Puts {@code page}'s offset and limit into {@code arguments}, each a whole number or a 400. */
  public static ObjectNode paged(ObjectNode arguments, Page page) {
    putInt(arguments, "offset", page.offset());
    return putInt(arguments, "limit", page.limit());
  }

  /** Calls the standard tool {@code tool} for the target's owner, of the target's provider. */
  public JsonNode call(String agentId, Target target, String tool, ObjectNode arguments) {
    return call(agentId, target.ownerKey(), target.provider(), tool, arguments);
  }

  /** Calls the standard tool {@code tool} for the body's owner, of the target's provider. */
  public JsonNode call(
      String agentId, Body body, Target target, String tool, ObjectNode arguments) {
    return call(agentId, body.owner(), target.provider(), tool, arguments);
  }

  /** Calls the standard tool {@code tool} for {@code agentId} and {@code owner}. */
  public JsonNode call(
      String agentId, OwnerKey owner, String provider, String tool, ObjectNode arguments) {
    AgentId agent = JsonBody.agent(agentId);
    return providers.callStandard(capability, provider, tool, agent, owner, arguments);
  }

  /** {@link #call} for the owner of the {@code ownerKey} query parameter. */
  public JsonNode call(
      String agentId, String ownerKey, String provider, String tool, ObjectNode arguments) {
    return call(agentId, JsonBody.owner(null, ownerKey), provider, tool, arguments);
  }

  /** Puts a non-blank {@code value} under {@code name}, stripped. */
  public static ObjectNode putText(ObjectNode arguments, String name, String value) {
    if (value != null && !value.isBlank()) {
      arguments.put(name, value.strip());
    }
    return arguments;
  }

  /** Puts the comma-separated parts of a non-blank {@code value} under {@code name} as a list. */
  public static ObjectNode putList(ObjectNode arguments, String name, String value) {
    if (value != null && !value.isBlank()) {
      ArrayNode list = arguments.putArray(name);
      for (String part : value.split(",")) {
        if (!part.isBlank()) {
          list.add(part.strip());
        }
      }
    }
    return arguments;
  }

  /** Puts a whole number under {@code name}; anything else is a 400 naming {@code name}. */
  public static ObjectNode putInt(ObjectNode arguments, String name, String value) {
    if (value != null && !value.isBlank()) {
      arguments.put(name, wholeNumber(name, value));
    }
    return arguments;
  }

  /**
   * The query parameter {@code name} as a whole number from {@code min} to {@code max}, {@code
   * fallback} when absent or blank; anything else is a 400 naming {@code name}.
   */
  public static int intParam(String name, String value, int min, int max, int fallback) {
    if (value == null || value.isBlank()) {
      return fallback;
    }
    int number = wholeNumber(name, value);
    if (number < min || number > max) {
      throw new BadRequestException(
          name, name + " must be from " + min + " to " + max + ", got: " + number);
    }
    return number;
  }

  private static int wholeNumber(String name, String value) {
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw new BadRequestException(name, name + " must be a whole number, got: " + value);
    }
  }

  /** The string field {@code name} of a body, required: else a 400 naming it. */
  public static String requiredString(JsonNode fields, String name, String message) {
    JsonNode value = fields.get(name);
    if (value == null || !value.isString() || value.stringValue().isBlank()) {
      throw new BadRequestException(name, message);
    }
    return value.stringValue();
  }
}
