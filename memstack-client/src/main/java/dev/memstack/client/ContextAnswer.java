package dev.memstack.client;

import java.util.List;

/**
 * The answer of a context call. Put {@code systemPrompt} and then {@code ownerPrompt} into the
 * system message and {@code context} in front of the user's message.
 *
 * @param systemPrompt the agent's shared memory (TEAM and GLOBAL files); empty when none, never
 *     {@code null}
 * @param ownerPrompt the owner's standing memory (their enabled personal files); empty when none,
 *     never {@code null}
 * @param recall the recalled items exactly as {@code context} shows them; never {@code null}
 * @param context the fenced {@code <memory-context>} block; empty when nothing was recalled, never
 *     {@code null}
 * @param providers one report per configured provider; never {@code null}
 */
public record ContextAnswer(
    String systemPrompt,
    String ownerPrompt,
    List<RecallItem> recall,
    String context,
    List<ProviderReport> providers,
    tools.jackson.databind.JsonNode morningCard) {

  /** An answer without a morning card. */
  public ContextAnswer(
      String systemPrompt,
      String ownerPrompt,
      List<RecallItem> recall,
      String context,
      List<ProviderReport> providers) {
    this(systemPrompt, ownerPrompt, recall, context, providers, null);
  }

  public ContextAnswer {
    systemPrompt = systemPrompt == null ? "" : systemPrompt;
    ownerPrompt = ownerPrompt == null ? "" : ownerPrompt;
    context = context == null ? "" : context;
    recall = recall == null ? List.of() : List.copyOf(recall);
    providers = providers == null ? List.of() : List.copyOf(providers);
  }

  /** An answer with nothing in it: what to use when the host cannot be asked. */
  public static ContextAnswer empty() {
    return new ContextAnswer("", "", List.of(), "", List.of());
  }

  /**
   * {@code systemPrompt} and {@code ownerPrompt} joined by a blank line, the empty ones left out:
   * the text for the system message.
   */
  public String systemText() {
    if (systemPrompt.isEmpty()) {
      return ownerPrompt;
    }
    return ownerPrompt.isEmpty() ? systemPrompt : systemPrompt + "\n\n" + ownerPrompt;
  }
}
