package dev.memstack.host.security;

import dev.memstack.support.Digests;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The known API tokens, kept only as SHA-256 digests. A presented token is digested and compared
 * with every known digest by {@link MessageDigest#isEqual} (constant time, and over digests of
 * equal length, so neither the position of a mismatch nor the token's length shows in the time an
 * answer takes); the loop never stops early. {@link #off()} stands for a host that checks no tokens
 * ({@code memstack.security.enabled=false}).
 */
public final class BearerTokens {

  private record Entry(byte[] digest, Caller caller) {}

  private final List<Entry> entries;
  private final boolean checking;

  private BearerTokens(List<Entry> entries, boolean checking) {
    this.entries = List.copyOf(entries);
    this.checking = checking;
  }

  /** No checking: every request passes as {@link Caller#unchecked()}. */
  public static BearerTokens off() {
    return new BearerTokens(List.of(), false);
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
              digest(token.token()),
              new Caller(SecurityProperties.key(i), token.role(), token.binding())));
    }
    return new BearerTokens(entries, true);
  }

  /** One admin token for any owner, the generated one. */
  public static BearerTokens generatedAdmin(String token, String name) {
    return new BearerTokens(
        List.of(new Entry(digest(token), new Caller(name, Role.ADMIN, null))), true);
  }

  /** How many tokens are known. */
  public int size() {
    return entries.size();
  }

  /** The callers of the known tokens, for the start-up summary (no secrets). */
  public List<Caller> callers() {
    return entries.stream().map(Entry::caller).toList();
  }

  /** The caller a token belongs to, or empty for an unknown token. */
  public Optional<Caller> authenticate(String presented) {
    Objects.requireNonNull(presented, "presented");
    byte[] digest = digest(presented);
    Caller found = null;
    for (Entry entry : entries) {
      if (MessageDigest.isEqual(entry.digest(), digest) && found == null) {
        found = entry.caller();
      }
    }
    return Optional.ofNullable(found);
  }

  private static byte[] digest(String token) {
    return Digests.sha256(token);
  }
}
