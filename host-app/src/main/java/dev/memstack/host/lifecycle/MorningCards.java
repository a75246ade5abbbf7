package dev.memstack.host.lifecycle;

import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.coordination.ProviderCoordination;
import dev.memstack.host.stack.WindowedContext;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import java.time.Clock;
import java.time.LocalDate;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The morning card a context call carries ({@code "morningCard": true}): on the owner's first such
 * call of the day (in {@code memstack.lifecycle.zone}), claimed once per agent, owner and day
 * through the coordination port, so that across hosts only one call carries it; the card is the
 * {@code dream_morning_card} answer of the provider that claims {@link Capability#LIFECYCLE},
 * carried only when it has items. Without such a provider, or when the claim or the card fails, the
 * call goes on without a card (a card is never worth a failed context call). The recall preview
 * {@link #peek peeks}: the card as it stands, nothing claimed.
 */
public final class MorningCards implements WindowedContext.MorningCardSource {

  private static final Logger log = LoggerFactory.getLogger(MorningCards.class);

  private final CapabilityTools providers;
  private final Coordination coordination;
  private final LifecycleProperties properties;
  private final Clock clock;
  private final JsonMapper json;

  public MorningCards(
      CapabilityTools providers,
      ProviderCoordination coordination,
      LifecycleProperties properties,
      Clock clock,
      JsonMapper json) {
    this.providers = providers;
    this.coordination = coordination.of("lifecycle");
    this.properties = properties;
    this.clock = clock;
    this.json = json;
  }

  @Override
  public Optional<JsonNode> firstOfDay(AgentId agent, OwnerKey owner) {
    return card(agent, owner, true);
  }

  /** The card without claiming the day's showing (the recall preview's card). */
  @Override
  public Optional<JsonNode> peek(AgentId agent, OwnerKey owner) {
    return card(agent, owner, false);
  }

  /** The card when it has items; {@code claim}: only on the owner's first claim of the day. */
  private Optional<JsonNode> card(AgentId agent, OwnerKey owner, boolean claim) {
    if (providers.provider(Capability.LIFECYCLE, null).isEmpty()) {
      return Optional.empty();
    }
    LocalDate today = clock.instant().atZone(properties.zoneId()).toLocalDate();
    try {
      if (claim
          && !coordination.claimRun(
              "morning-card:" + agent.value() + ":" + owner.value(), today.toString())) {
        return Optional.empty();
      }
      JsonNode card =
          providers.callStandard(
              Capability.LIFECYCLE,
              null,
              StandardTools.DREAM_MORNING_CARD,
              agent,
              owner,
              json.createObjectNode().put("zone", properties.zone()));
      JsonNode items = card == null ? null : card.get("items");
      return items != null && items.isArray() && !items.isEmpty()
          ? Optional.of(card)
          : Optional.empty();
    } catch (RuntimeException e) { // ProviderUnavailableException included
      log.warn("The morning card of {} for agent {} was left out: {}", owner, agent, e.toString());
      return Optional.empty();
    }
  }
}
