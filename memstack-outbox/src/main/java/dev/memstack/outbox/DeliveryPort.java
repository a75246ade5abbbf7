package dev.memstack.outbox;

import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.util.List;
import java.util.Optional;

/**
 * How the outbox reaches providers; the host implements it over its own call path (class loader,
 * metrics, breaker). The outbox looks a provider up by id at each delivery, so a reloaded plugin
 * gets what was queued before the reload. Implementations are thread-safe: every lane calls from
 * its own thread.
 */
public interface DeliveryPort {

  /** The running, enabled providers, in stack order; never {@code null}. */
  List<Recipient> enabled();

  /** Ids of providers that are configured but not running; erasures are kept for them. */
  default List<String> disabled() {
    return List.of();
  }

  /**
   * How the outbox treats the backlog of provider {@code providerId}, running or not (a provider
   * that is down is exactly the one whose backlog grows); the default: {@link
   * ProviderPolicy#REQUIRED}.
   */
  default ProviderPolicy policy(String providerId) {
    return ProviderPolicy.REQUIRED;
  }

  /** The running provider with this id, if any. */
  Optional<Recipient> find(String providerId);

  /**
   * One running provider. Each call runs the provider's hook and throws whatever the hook threw;
   * the outbox never interrupts a call.
   */
  interface Recipient {

    /** The provider id. */
    String id();

    /** Whether the provider claims {@code capability}; may throw if the provider does. */
    boolean claims(Capability capability);

    /** Hands turns to the provider in one call ({@code syncTurns}). */
    void syncTurns(List<Turn> turns);

    /** Hands one turn to the provider ({@code syncTurn}). */
    void syncTurn(Turn turn);

    /** Asks the provider to forget the owner; how many memories it removed. */
    long forget(OwnerKey owner);
  }
}
