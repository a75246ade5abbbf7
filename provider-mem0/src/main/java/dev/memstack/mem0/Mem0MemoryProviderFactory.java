package dev.memstack.mem0;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.ProviderContext;
import org.pf4j.Extension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code mem0} provider type: validates {@code memstack.providers.<id>.config.*} (see {@link
 * Mem0Settings}), opens the instance's sent-turn log in its data directory and builds a {@link
 * Mem0MemoryProvider} around a {@link Mem0Client}. No server call is made here, so a server that is
 * down at start does not keep the host from starting; {@code health()} reports it.
 */
@Extension
public final class Mem0MemoryProviderFactory implements MemoryProviderFactory {

  private static final Logger log = LoggerFactory.getLogger(Mem0MemoryProviderFactory.class);

  /** How many sent turn ids are remembered for idempotency. */
  static final int SENT_TURNS_REMEMBERED = 100_000;

  @Override
  public String type() {
    return "mem0";
  }

  @Override
  public MemoryProvider create(ProviderContext context) {
    Mem0Settings settings = Mem0Settings.from(context.config());
    String apiKeyName = context.config().fullKey(Mem0Settings.API_KEY);
    Mem0Client client =
        new Mem0Client(
            new Mem0Exchange(context.instanceId(), settings, apiKeyName, System::nanoTime));
    try {
      SentTurnLog sent = SentTurnLog.open(context.dataDir(), SENT_TURNS_REMEMBERED);
      RejectedTurnLog rejected = new RejectedTurnLog(context.dataDir(), client.json());
      warnAboutPlainHttp(context.instanceId(), settings);
      log.info(
          "mem0 provider {}: {} server at {}, search {}, sync {}",
          context.instanceId(),
          settings.flavor().wireName(),
          settings.baseUrl(),
          settings.searchEnabled() ? "on" : "off",
          settings.syncEnabled() ? "on" : "off");
      return new Mem0MemoryProvider(client, sent, rejected, context.clock());
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  private static void warnAboutPlainHttp(String instanceId, Mem0Settings settings) {
    if (settings.apiKey() == null || !"http".equals(settings.baseUrl().getScheme())) {
      return;
    }
    String host = settings.baseUrl().getHost();
    // No DNS look-up at start: only names that are loopback by definition count.
    boolean loopback = host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]");
    if (!loopback) {
      log.warn(
          "mem0 provider {}: the api key travels unencrypted over http to {}; use https",
          instanceId,
          settings.baseUrl().getHost());
    }
  }
}
