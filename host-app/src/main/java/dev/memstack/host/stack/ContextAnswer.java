package dev.memstack.host.stack;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.memstack.host.window.WindowView;
import dev.memstack.support.Require;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * The stack's answer to a {@link ContextQuery}, as the REST context route and the MCP tool {@code
 * memory_context} return it (JSON schema {@code ContextResponse}).
 *
 * @param systemPrompt the providers' system-prompt blocks, joined and cut to the budget; never
 *     {@code null}, empty when no provider has one
 * @param ownerPrompt the owner's standing memory (the providers' owner-prompt blocks, joined and
 *     cut to {@code memstack.stack.system-prompt.owner-budget}), to put into the system message
 *     after {@code systemPrompt}; never {@code null}, empty when no provider has one
 * @param recall the recalled items exactly as they appear in {@code context} (fence tags stripped,
 *     duplicates removed, cut to the budget), never {@code null}
 * @param context the fenced {@code <memory-context>} block to put in front of the user message;
 *     empty when there is no item
 * @param providers one report per provider, in stack order, then the disabled ones; never {@code
 *     null}
 * @param window the conversation window when the query asked for it ({@link ContextQuery#window}),
 *     else {@code null} and left out of the JSON
 */
@Schema(name = "ContextResponse")
public record ContextAnswer(
    String systemPrompt,
    String ownerPrompt,
    List<RecalledMemory> recall,
    String context,
    List<ProviderReport> providers,
    @JsonInclude(JsonInclude.Include.NON_NULL) WindowView window,
    @JsonInclude(JsonInclude.Include.NON_NULL) tools.jackson.databind.JsonNode morningCard) {

  /** An answer without the conversation window. */
  public ContextAnswer(
      String systemPrompt,
      String ownerPrompt,
      List<RecalledMemory> recall,
      String context,
      List<ProviderReport> providers) {
    this(systemPrompt, ownerPrompt, recall, context, providers, null, null);
  }

  /** This answer with {@code newWindow}. */
  public ContextAnswer withWindow(WindowView newWindow) {
    return new ContextAnswer(
        systemPrompt, ownerPrompt, recall, context, providers, newWindow, morningCard);
  }

  /** This answer with the owner's morning card. */
  public ContextAnswer withMorningCard(tools.jackson.databind.JsonNode card) {
    return new ContextAnswer(systemPrompt, ownerPrompt, recall, context, providers, window, card);
  }

  public ContextAnswer {
    Require.nonNull("systemPrompt ownerPrompt context", systemPrompt, ownerPrompt, context);
    recall = List.copyOf(recall);
    providers = List.copyOf(providers);
  }
}
