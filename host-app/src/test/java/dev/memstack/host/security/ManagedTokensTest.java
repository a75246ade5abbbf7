package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.OwnerKey;
import dev.memstack.tck.MutableClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * Managed tokens without a host: the token's form and lookup, the secret kept only as a salted
 * digest, the last use written at most once a minute, a revocation effective at once here and
 * within a second on another host sharing the store, and a store that fails refusing rather than
 * trusting what was read before.
 */
class ManagedTokensTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at(Instant.parse("2026-05-01T10:00:00Z"));
  private final AtomicLong nanos = new AtomicLong();
  private final List<ManagedTokens> opened = new ArrayList<>();

  @AfterEach
  void close() {
    opened.forEach(ManagedTokens::close);
  }

  private ManagedTokens tokens(TokenStore store) {
    ManagedTokens tokens = new ManagedTokens(store, clock, nanos::get);
    opened.add(tokens);
    return tokens;
  }

  /** A store in memory that other "hosts" share, counting its writes of a use. */
  static final class SharedMemoryStore implements TokenStore {
    final Map<String, StoredToken> rows = new LinkedHashMap<>();
    final AtomicInteger uses = new AtomicInteger();
    volatile boolean failing;

    private void check() {
      if (failing) {
        throw new UncheckedIOException(new IOException("database down"));
      }
    }

    @Override
    public synchronized List<StoredToken> all() {
      check();
      return List.copyOf(rows.values());
    }

    @Override
    public synchronized Optional<StoredToken> find(String id) {
      check();
      return Optional.ofNullable(rows.get(id));
    }

    @Override
    public synchronized Set<String> existing(Collection<String> ids) {
      check();
      Set<String> kept = new HashSet<>(ids);
      kept.retainAll(rows.keySet());
      return kept;
    }

    @Override
    public synchronized void add(StoredToken token) {
      check();
      rows.put(token.id(), token);
    }

    @Override
    public synchronized boolean remove(String id) {
      check();
      return rows.remove(id) != null;
    }

    @Override
    public synchronized void used(String id, Instant at) {
      check();
      uses.incrementAndGet();
      rows.computeIfPresent(id, (k, token) -> token.usedAt(at));
    }

    @Override
    public boolean shared() {
      return true;
    }
  }

  @Test
  @DisplayName("a made token is accepted with its role and binding; any other token is not")
  void aMadeTokenIsAcceptedAndNothingElse() {
    ManagedTokens tokens = tokens(new FileTokenStore(dir, JSON));
    ManagedTokens.Created created =
        tokens.create("end user", Role.MEMBER, OwnerBinding.of("api:7"));
    String value = created.value();

    Caller caller = tokens.authenticate(value).orElseThrow();
    assertThat(caller.name()).isEqualTo("end user");
    assertThat(caller.role()).isEqualTo(Role.MEMBER);
    assertThat(caller.mayActFor(OwnerKey.of("api:7"))).isTrue();
    assertThat(caller.mayActFor(OwnerKey.of("api:8"))).isFalse();
    assertThat(caller.source()).isEqualTo("api");
    assertThat(caller.identity()).isEqualTo("ms_" + created.token().id());
    assertThat(ManagedTokens.looksManaged(value)).isTrue();
    assertThat(created.toString()).doesNotContain(value.substring(16));

    String id = created.token().id();
    String secret = value.substring(16);
    String otherSecret = ApiTokenFile.generate();
    for (String wrong :
        List.of(
            "ms_" + id + "_" + otherSecret,
            "ms_" + id + "_" + secret + "x",
            "ms_" + id + "_",
            "ms_" + id.toUpperCase() + "_" + secret,
            "ms_abcdefghijkl_" + secret,
            "ms_" + id + secret,
            "xs_" + id + "_" + secret,
            value.substring(0, value.length() - 1))) {
      assertThat(tokens.authenticate(wrong)).as(wrong).isEmpty();
    }
  }

  @Test
  @DisplayName("the store keeps a salted digest: no secret, and two tokens never share a digest")
  void theStoreKeepsASaltedDigestOnly() throws IOException {
    ManagedTokens tokens = tokens(new FileTokenStore(dir, JSON));
    ManagedTokens.Created first = tokens.create("a", Role.VIEWER, null);
    ManagedTokens.Created second = tokens.create("b", Role.VIEWER, null);

    String file = Files.readString(dir.resolve(FileTokenStore.NAME));
    assertThat(file)
        .doesNotContain(first.value().substring(16))
        .doesNotContain(second.value().substring(16))
        .contains(first.token().digest());
    String firstSalt = first.token().digest().split(":")[0];
    assertThat(firstSalt).isNotEqualTo(second.token().digest().split(":")[0]);
    assertThat(first.token().digest()).isNotEqualTo(second.token().digest());
    assertThat(first.token().toString()).doesNotContain(first.token().digest());
    assertThat(
            PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve(FileTokenStore.NAME))))
        .isEqualTo("rw-------");
  }

  @Test
  @DisplayName("tokens survive a restart on the same data dir; a broken file stops the start")
  void tokensSurviveARestart() throws IOException {
    ManagedTokens.Created created =
        tokens(new FileTokenStore(dir, JSON)).create("kept", Role.ADMIN, OwnerBinding.of("api:*"));

    ManagedTokens restarted = tokens(new FileTokenStore(dir, JSON));
    assertThat(restarted.authenticate(created.value())).isPresent();
    assertThat(restarted.list())
        .extracting(StoredToken::caller)
        .containsExactly(created.token().caller());
    assertThat(restarted.list().get(0).caller().owner()).isEqualTo(OwnerBinding.of("api:*"));

    Files.writeString(dir.resolve(FileTokenStore.NAME), "{\"version\":1,\"tokens\":[{");
    assertThatThrownBy(() -> new FileTokenStore(dir, JSON))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(dir.resolve(FileTokenStore.NAME).toString());
  }

  @Test
  @DisplayName("a token's last use is written once a minute, not once per request")
  void theLastUseIsWrittenOnceAMinute() {
    SharedMemoryStore store = new SharedMemoryStore();
    ManagedTokens tokens = tokens(store);
    ManagedTokens.Created created = tokens.create("busy", Role.VIEWER, null);

    for (int i = 0; i < 50; i++) {
      assertThat(tokens.authenticate(created.value())).isPresent();
      clock.advance(Duration.ofSeconds(1));
      nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));
    }

    assertThat(store.uses.get()).isOne();
    assertThat(tokens.list().get(0).lastUsedAt()).isEqualTo(Instant.parse("2026-05-01T10:00:00Z"));
    clock.advance(Duration.ofSeconds(11));
    tokens.authenticate(created.value());
    assertThat(store.uses.get()).isEqualTo(2);
    assertThat(tokens.list().get(0).lastUsedAt()).isEqualTo(clock.instant());
  }

  @Test
  @DisplayName(
      "a revocation is effective at once on its host and within a second on another host, whose"
          + " listeners hear of it once")
  void aRevocationReachesAnotherHostWithinASecond() {
    SharedMemoryStore store = new SharedMemoryStore();
    ManagedTokens hostA = tokens(store);
    ManagedTokens hostB = tokens(store);
    List<String> heardOnB = new java.util.concurrent.CopyOnWriteArrayList<>();
    hostB.onRevoked(heardOnB::add);
    List<String> heardOnA = new java.util.concurrent.CopyOnWriteArrayList<>();
    hostA.onRevoked(heardOnA::add);
    ManagedTokens.Created created = hostA.create("roaming", Role.MEMBER, null);
    String id = created.token().id();
    assertThat(hostB.authenticate(created.value())).isPresent();

    assertThat(hostA.revoke(id)).isTrue();

    assertThat(hostA.authenticate(created.value())).isEmpty();
    assertThat(heardOnA).containsExactly(id);
    // host b read the token a moment ago and keeps that read for up to a second
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ManagedTokens.RECHECK_MILLIS));
    assertThat(hostB.authenticate(created.value())).isEmpty();
    assertThat(heardOnB).containsExactly(id);
    hostB.checkRevocations();
    assertThat(heardOnB).as("heard once").containsExactly(id);
    assertThat(hostA.revoke(id)).isFalse();
  }

  @Test
  @DisplayName(
      "the background check ends a revoked token's streams on a host that never asks again")
  void theBackgroundCheckFindsARevocationWithoutARequest() {
    SharedMemoryStore store = new SharedMemoryStore();
    ManagedTokens hostA = tokens(store);
    ManagedTokens hostB = tokens(store);
    List<String> heardOnB = new java.util.concurrent.CopyOnWriteArrayList<>();
    hostB.onRevoked(heardOnB::add);
    ManagedTokens.Created created = hostA.create("streaming", Role.MEMBER, null);
    hostB.authenticate(created.value()).orElseThrow();

    hostA.revoke(created.token().id());
    hostB.checkRevocations();

    assertThat(heardOnB).containsExactly(created.token().id());
  }

  @Test
  @DisplayName("when the store cannot be read, a managed token is refused, not taken from before")
  void aFailingStoreRefuses() {
    SharedMemoryStore store = new SharedMemoryStore();
    ManagedTokens tokens = tokens(store);
    ManagedTokens.Created created = tokens.create("fragile", Role.VIEWER, null);
    assertThat(tokens.authenticate(created.value())).isPresent();

    store.failing = true;
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ManagedTokens.RECHECK_MILLIS));

    assertThat(tokens.authenticate(created.value())).isEmpty();
    assertThatThrownBy(() -> tokens.revoke(created.token().id()))
        .isInstanceOf(UncheckedIOException.class);
    store.failing = false;
    assertThat(tokens.authenticate(created.value())).as("back once it answers").isPresent();
  }

  @Test
  @DisplayName(
      "configured tokens come first and a managed-looking one is looked up among those made")
  void bearerTokensAskTheManagedTokensLast() {
    ManagedTokens managed = tokens(new FileTokenStore(dir, JSON));
    ManagedTokens.Created created = managed.create("made", Role.VIEWER, null);
    String configuredValue = "ms_aaaaaaaaaaaa_configured-token-value";
    BearerTokens bearer =
        BearerTokens.configured(
                List.of(new SecurityProperties.Token(configuredValue, Role.ADMIN, null)))
            .withManaged(managed);

    assertThat(bearer.authenticate(configuredValue).orElseThrow().name())
        .isEqualTo("memstack.security.tokens[0]");
    assertThat(bearer.authenticate(created.value()).orElseThrow().tokenId())
        .isEqualTo(created.token().id());
    assertThat(bearer.configured()).hasSize(1);
    assertThat(bearer.configured().get(0).lastUsedAt()).isNotNull();
    assertThat(bearer.authenticate("ms_bbbbbbbbbbbb_nothing")).isEmpty();
  }
}
