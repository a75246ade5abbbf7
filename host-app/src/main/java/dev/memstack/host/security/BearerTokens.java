package dev.memstack.host.security;

import dev.memstack.support.Digests;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The known API tokens: the configured ones (or the generated admin token), kept only as SHA-256
 * digests, and the {@link ManagedTokens managed} ones. A presented token is digested and compared
 * with every configured digest by {@link MessageDigest#isEqual} (constant time, and over digests of
 * equal length, so neither the position of a mismatch nor the token's length shows in the time an
 * answer takes); the loop never stops early. A token none of them is, but of the managed form
 * ({@code ms_<id>_<secret>}), is looked up by its id among the managed tokens. The last use of a
 * configured token is kept in memory (per host, to the minute). {@link #off()} stands for a host
 * that checks no tokens ({@code memstack.security.enabled=false}).
 */
public final class BearerTokens {

  /** The id under which the generated admin token is listed (named after its file). */
  public static final String GENERATED_ID = ApiTokenFile.NAME;

  /**
   * A configured or generated token as an admin sees it.
   *
   * @param id its configuration key ({@code memstack.security.tokens[0]}), or {@link #GENERATED_ID}
   * @param caller who it makes the caller
   * @param lastUsedAt when this host last accepted it (to the minute), or {@code null}
   */
  public record Configured(String id, Caller caller, Instant lastUsedAt) {}

  private record Entry(String id, byte[] digest, Caller caller) {}

  private final List<Entry> entries;
  private final boolean checking;
  private final ManagedTokens managed;
  private final Map<String, Instant> lastUsed;

  private BearerTokens(
      List<Entry> entries, boolean checking, ManagedTokens managed, Map<String, Instant> lastUsed) {
    this.entries = List.copyOf(entries);
    this.checking = checking;
    this.managed = managed;
    this.lastUsed = lastUsed;
  }

  private BearerTokens(List<Entry> entries, boolean checking) {
    this(entries, checking, null, new ConcurrentHashMap<>());
  }

  /** No checking: every request passes as {@link Caller#unchecked()}. */
  public static BearerTokens off() {
    return new BearerTokens(List.of(), false);
  }

  /** These tokens and the {@code managed} ones. */
  public BearerTokens withManaged(ManagedTokens managedTokens) {
    return new BearerTokens(
        entries, checking, Objects.requireNonNull(managedTokens, "managedTokens"), lastUsed);
  }

  /** Whether tokens are checked at all. */
  public boolean checking() {
    return checking;
  }

  /** The tokens of {@code memstack.security.tokens}, named by their configuration key. */
  public static BearerTokens configured(List<SecurityProperties.Token> tokens) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      SecurityProperties.Token token = tokens.get(i);
      entries.add(
          new Entry(
              SecurityProperties.key(i),
              digest(token.token()),
              new Caller(SecurityProperties.key(i), token.role(), token.binding())));
    }
    return new BearerTokens(entries, true);
  }

  /** One admin token for any owner, the generated one. */
  public static BearerTokens generatedAdmin(String token, String name) {
    return new BearerTokens(
        List.of(new Entry(GENERATED_ID, digest(token), new Caller(name, Role.ADMIN, null))), true);
  }

  /** How many tokens are known. */
  public int size() {
    return entries.size();
  }

  /** The callers of the known tokens, for the start-up summary (no secrets). */
  public List<Caller> callers() {
    return entries.stream().map(Entry::caller).toList();
  }

  /** The managed tokens these tokens ask last. */
  public Optional<ManagedTokens> managed() {
    return Optional.ofNullable(managed);
  }

  /** The configured or generated tokens (no secrets), in configuration order. */
  public List<Configured> configured() {
    return entries.stream()
        .map(e -> new Configured(e.id(), e.caller(), lastUsed.get(e.id())))
        .toList();
  }

  /**
   * The caller a token belongs to, or empty for an unknown (or revoked) token.
   *
   * @throws java.io.UncheckedIOException never: a managed token whose store fails is refused
   */
  public Optional<Caller> authenticate(String presented) {
    Objects.requireNonNull(presented, "presented");
    byte[] digest = digest(presented);
    Entry found = null;
    for (Entry entry : entries) {
      if (MessageDigest.isEqual(entry.digest(), digest) && found == null) {
        found = entry;
      }
    }
    if (found != null) {
      Instant now = Instant.now().truncatedTo(ChronoUnit.MINUTES);
      lastUsed.merge(found.id(), now, (earlier, later) -> later.isAfter(earlier) ? later : earlier);
      return Optional.of(found.caller());
    }
    return managed == null ? Optional.empty() : managed.authenticate(presented);
  }

  private static byte[] digest(String token) {
    return Digests.sha256(token);
  }
}
