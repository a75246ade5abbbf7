package dev.memstack.builtin.tools;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.support.ToolArguments;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The two arguments every builtin tool takes about its caller: {@code agentId} (optional, a string
 * or an integer, must be the calling agent) and {@code ownerKey} (the owner, when the host set
 * none; given both ways, the two must be equal), and the two fields every answer starts with.
 */
final class CallerArguments {

  /** The JSON schema of the {@code agentId} argument, a property of a tool's parameters. */
  static final String AGENT_ID_SCHEMA =
      "\"agentId\": {\"type\": [\"string\", \"integer\"], \"description\": \"Optional; must be"
          + " the calling agent.\"}";

  /** The JSON schema of the {@code ownerKey} argument, a property of a tool's parameters. */
  static final String OWNER_KEY_SCHEMA =
      "\"ownerKey\": {\"type\": \"string\", \"description\": \"The owner, e.g. user:42.\"}";

  private CallerArguments() {}

  /**
   * Refuses an {@code agentId} that is not the call's agent.
   *
   * @throws ToolException FORBIDDEN for another agent, INVALID_ARGUMENT for a value that is no id
   */
  static void checkAgent(ToolCall call, ToolArguments args) {
    String given = args.optionalId("agentId");
    if (given != null && !given.equals(call.agent().value())) {
      throw new ToolException(
          ToolException.Kind.FORBIDDEN,
          "agentId " + given + " is not the agent of this call (" + call.agent() + ")");
    }
  }

  /**
   * The owner the call acts for: the call's own, or the {@code ownerKey} argument; {@code null} for
   * neither.
   *
   * @throws ToolException INVALID_ARGUMENT for a malformed key, FORBIDDEN for another owner than
   *     the call's
   */
  static OwnerKey owner(ToolCall call, ToolArguments args) {
    String given = args.optionalString("ownerKey");
    if (given == null) {
      return call.owner();
    }
    OwnerKey owner;
    try {
      owner = OwnerKey.of(given);
    } catch (IllegalArgumentException e) {
      throw ToolException.invalidArgument("ownerKey", "ownerKey " + e.getMessage());
    }
    if (call.owner() != null && !call.owner().equals(owner)) {
      throw new ToolException(
          ToolException.Kind.FORBIDDEN,
          "ownerKey " + owner + " is not the owner this call is made for");
    }
    return owner;
  }

  /** An answer that starts with the caller: {@code agentId}, and {@code ownerKey} or null. */
  static ObjectNode answer(JsonMapper json, AgentId agent, OwnerKey owner) {
    ObjectNode answer = json.createObjectNode();
    answer.put("agentId", agent.value());
    if (owner == null) {
      answer.putNull("ownerKey");
    } else {
      answer.put("ownerKey", owner.value());
    }
    return answer;
  }
}
