package dev.memstack.host.api;

import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.OwnerBinding;
import dev.memstack.host.stack.ContextQuery;
import dev.memstack.host.window.ConversationWindows;
import dev.memstack.host.window.WindowRequest;
import dev.memstack.host.window.WindowView;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The checks of a window request, shared by the window route ({@link WindowController}) and the MCP
 * tool {@code memory_window}: the conversation id as the context call checks it, the budget ({@code
 * maxInputTokens}, {@value #MIN_MAX_INPUT_TOKENS}-{@value #MAX_MAX_INPUT_TOKENS}), each refused
 * with 400 naming the field.
 */
public final class WindowRequests {

  /** The smallest budget a request may name. */
  public static final int MIN_MAX_INPUT_TOKENS = 256;

  /** The largest budget a request may name. */
  public static final int MAX_MAX_INPUT_TOKENS = 100_000_000;

  /** The arguments of the MCP tool {@code memory_window}. */
  public static final Set<String> TOOL_FIELDS =
      Set.of("ownerKey", "conversationId", "maxInputTokens");

  private WindowRequests() {}

  /**
   * The window of {@code owner}'s conversation (no system prompt, no current message), {@code
   * maxInputTokens} ({@code null}: the configured default) checked.
   */
  public static WindowView window(
      ConversationWindows windows,
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      String maxInputTokens) {
    // the conversation id is checked as the context call checks it (400 naming conversationId)
    new ContextQuery(agent, null, conversationId, "", 0, false);
    WindowRequest request =
        new WindowRequest(agent, owner, conversationId, "", "", null, budget(maxInputTokens));
    return WindowView.of(request, windows.window(request));
  }

  /**
   * The tool's arguments: {@code ownerKey} (required), {@code conversationId}, {@code
   * maxInputTokens}.
   */
  public static WindowView window(
      ConversationWindows windows, AgentId agent, JsonNode arguments, AccessPolicy access) {
    JsonBody json = JsonBody.of(arguments).onlyFields(TOOL_FIELDS);
    String ownerKey = json.optionalString("ownerKey");
    if (ownerKey == null) {
      throw ownerKeyRequired();
    }
    OwnerKey owner = JsonBody.storedOwnerKey(ownerKey, access.caller());
    access.requireOwner(owner);
    String conversationId = json.requiredString("conversationId");
    JsonNode budget = json.node().get("maxInputTokens");
    String tokens = budget == null || budget.isNull() ? null : budget.asString();
    if (budget != null && !budget.isNull() && !budget.isIntegralNumber()) {
      tokens = "not a whole number: " + budget;
    }
    return window(windows, agent, owner, conversationId, tokens);
  }

  /**
   * The owner of a conversation route: {@code ownerKey} checked against the token; a token of one
   * owner key may omit it.
   */
  static OwnerKey owner(String ownerKey, AccessPolicy access) {
    if (ownerKey != null) {
      OwnerKey owner = JsonBody.storedOwnerKey(ownerKey, access.caller());
      access.requireOwner(owner);
      return owner;
    }
    OwnerBinding binding = access.caller().owner();
    if (binding == null || binding.isPrefix()) {
      throw ownerKeyRequired();
    }
    return OwnerKey.of(binding.pattern());
  }

  private static BadRequestException ownerKeyRequired() {
    return new BadRequestException(
        "ownerKey",
        "ownerKey is required: a conversation is kept per owner, and this token is not bound to"
            + " one owner key");
  }

  static Integer budget(String maxInputTokens) {
    if (maxInputTokens == null) {
      return null;
    }
    int tokens;
    try {
      tokens = Integer.parseInt(maxInputTokens.strip());
    } catch (NumberFormatException e) {
      tokens = -1;
    }
    if (tokens < MIN_MAX_INPUT_TOKENS || tokens > MAX_MAX_INPUT_TOKENS) {
      throw new BadRequestException(
          "maxInputTokens",
          "maxInputTokens must be a whole number from "
              + MIN_MAX_INPUT_TOKENS
              + " to "
              + MAX_MAX_INPUT_TOKENS
              + ", got: '"
              + maxInputTokens
              + "'");
    }
    return tokens;
  }
}
