package dev.memstack.host.security;

import dev.memstack.support.DaemonThreads;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * API tokens an admin makes and revokes through the API, beside the configured ones. A token is
 * {@code ms_<id>_<secret>}: a 12-character id of {@code [a-z0-9]} and a secret of 32 random bytes
 * in base64url, shown once when it is made; the {@link TokenStore} keeps the id, name, role, owner
 * binding and a salted digest of the secret ({@link StoredToken}). A presented token is looked up
 * by its id and its secret compared with the one digest in constant time.
 *
 * <p>A revocation is effective at once on this host (the token's id is remembered as revoked, so a
 * lookup already under way cannot bring it back), and within {@value #RECHECK_MILLIS} ms on every
 * other host of shared mode: a host keeps what it read of a token for that long, and a background
 * check looks that often for the revocation of each token it accepted. Either way the listeners of
 * {@link #onRevoked} hear of it once per host, so that the token's MCP sessions and open streams
 * end. When the store cannot be read, managed tokens are refused (never accepted from a stale
 * copy). A token's last use is written at most once a minute per host ({@value
 * #USE_INTERVAL_SECONDS} s), never once per request. Thread-safe.
 */
public final class ManagedTokens implements AutoCloseable {

  /** What every managed token starts with. */
  public static final String PREFIX = "ms_";

  /** Most managed tokens a host keeps. */
  public static final int MAX_TOKENS = 1000;

  /** Longest token name, in characters. */
  public static final int MAX_NAME = 100;

  static final int ID_LENGTH = 12;
  static final long RECHECK_MILLIS = 1000;
  static final long USE_INTERVAL_SECONDS = 60;

  private static final Logger log = LoggerFactory.getLogger(ManagedTokens.class);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
  private static final Pattern ID = Pattern.compile("[a-z0-9]{" + ID_LENGTH + "}");
  private static final int MAX_SECRET = 256;
  private static final int MAX_CACHED = 10_000;

  /**
   * A token just made.
   *
   * @param token the token as listed
   * @param value the whole token, {@code ms_<id>_<secret>}: shown this once, kept nowhere
   */
  public record Created(StoredToken token, String value) {
    @Override
    public String toString() {
      return "Created[token=" + token + ", value=******]";
    }
  }

  /** What this host last read of a token ({@code null} when unknown), and when. */
  private record Read(StoredToken token, long atNanos) {}

  private final TokenStore store;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final Map<String, Read> reads = new ConcurrentHashMap<>();
  private final Set<String> revoked = ConcurrentHashMap.newKeySet();
  private final Set<String> accepted = ConcurrentHashMap.newKeySet();
  private final Map<String, Instant> lastWritten = new ConcurrentHashMap<>();
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService checker;

  /**
   * @param store where the tokens are kept; in a shared store a background thread looks for
   *     revocations made on other hosts
   */
  public ManagedTokens(TokenStore store, Clock clock) {
    this(store, clock, System::nanoTime);
  }

  ManagedTokens(TokenStore store, Clock clock, LongSupplier nanoTime) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    if (store.shared()) {
      checker =
          Executors.newSingleThreadScheduledExecutor(
              DaemonThreads.named("memstack-token-revocations"));
      checker.scheduleWithFixedDelay(
          this::checkRevocations, RECHECK_MILLIS, RECHECK_MILLIS, TimeUnit.MILLISECONDS);
    } else {
      checker = null;
    }
  }

  /**
   * Makes a token.
   *
   * @param name what to call it, 1 to {@value #MAX_NAME} characters
   * @param owner its owner binding, or {@code null} for any owner
   * @throws IllegalStateException when {@value #MAX_TOKENS} tokens are kept already
   * @throws java.io.UncheckedIOException when the store fails (nothing is made)
   */
  public Created create(String name, Role role, OwnerBinding owner) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    if (store.all().size() >= MAX_TOKENS) {
      throw new IllegalStateException(
          "there are " + MAX_TOKENS + " managed tokens already; revoke one first");
    }
    String id = newId();
    String secret = ApiTokenFile.generate();
    StoredToken token = StoredToken.made(new Caller(name, role, owner, id), secret, now());
    store.add(token);
    log.info("API token {} ({}, {}) made", id, name, role.wireName());
    return new Created(token, PREFIX + id + "_" + secret);
  }

  /** Every managed token, oldest first, each with its latest known use. */
  public List<StoredToken> list() {
    List<StoredToken> tokens = new ArrayList<>();
    for (StoredToken token : store.all()) {
      tokens.add(token.usedAt(later(lastWritten.get(token.id()), token.lastUsedAt())));
    }
    return tokens;
  }

  /**
   * Revokes a token: refused from now on by this host, and by every other within a second; the
   * listeners of {@link #onRevoked} hear of it.
   *
   * @return whether a token of {@code id} was kept
   * @throws java.io.UncheckedIOException when the store fails (the token stays valid)
   */
  public boolean revoke(String id) {
    Objects.requireNonNull(id, "id");
    if (!store.remove(id)) {
      return false;
    }
    forget(id);
    log.info("API token {} revoked", id);
    return true;
  }

  /** Hears of every token revoked (on this host, or on another one in shared mode), by its id. */
  public void onRevoked(Consumer<String> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Whether {@code presented} has the form of a managed token ({@code ms_<id>_<secret>}). */
  public static boolean looksManaged(String presented) {
    return parse(presented) != null;
  }

  /** The caller of a managed token, or empty for any other, unknown or revoked token. */
  public Optional<Caller> authenticate(String presented) {
    String[] parts = parse(presented);
    if (parts == null) {
      return Optional.empty();
    }
    String id = parts[0];
    if (revoked.contains(id)) {
      return Optional.empty();
    }
    StoredToken token;
    try {
      token = read(id);
    } catch (RuntimeException e) {
      log.warn("Managed API token {} refused: its store cannot be read ({})", id, e.toString());
      return Optional.empty();
    }
    if (token == null || !token.matches(parts[1]) || revoked.contains(id)) {
      return Optional.empty();
    }
    accepted.add(id);
    recordUse(token);
    return Optional.of(token.caller());
  }

  /** The token of {@code id} as read within the last second, or read now; {@code null}: none. */
  private StoredToken read(String id) {
    long now = nanoTime.getAsLong();
    Read read = reads.get(id);
    if (read != null && now - read.atNanos() < TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)) {
      return read.token();
    }
    StoredToken token = store.find(id).orElse(null);
    if (reads.size() >= MAX_CACHED) {
      reads.clear(); // ids that were never tokens must not fill the memory
    }
    reads.put(id, new Read(token, now));
    if (token == null && accepted.contains(id)) {
      forget(id); // revoked on another host
    }
    return token;
  }

  /** Writes the token's use unless this host or the store has one from the last minute. */
  private void recordUse(StoredToken token) {
    Instant now = now();
    boolean[] due = new boolean[1];
    lastWritten.compute(
        token.id(),
        (id, written) -> {
          Instant last = later(written, token.lastUsedAt());
          if (last != null && now.isBefore(last.plusSeconds(USE_INTERVAL_SECONDS))) {
            return last;
          }
          due[0] = true;
          return now;
        });
    if (!due[0]) {
      return;
    }
    try {
      store.used(token.id(), now);
    } catch (RuntimeException e) {
      log.warn("The last use of API token {} was not recorded: {}", token.id(), e.toString());
    }
  }

  /** Looks for the revocation, on another host, of each token this host accepted. */
  void checkRevocations() {
    if (accepted.isEmpty()) {
      return;
    }
    try {
      Set<String> kept = store.existing(Set.copyOf(accepted));
      for (String id : Set.copyOf(accepted)) {
        if (!kept.contains(id)) {
          forget(id);
        }
      }
    } catch (RuntimeException e) {
      log.warn("Could not look for revoked API tokens: {}", e.toString());
    }
  }

  /** Refuses {@code id} from now on and tells the listeners, once. */
  private void forget(String id) {
    boolean first = revoked.add(id);
    reads.put(id, new Read(null, nanoTime.getAsLong()));
    accepted.remove(id);
    lastWritten.remove(id);
    if (!first) {
      return;
    }
    for (Consumer<String> listener : listeners) {
      try {
        listener.accept(id);
      } catch (RuntimeException e) {
        log.warn("A listener of the revocation of API token {} failed: {}", id, e.toString());
      }
    }
  }

  /** The clock's time to the millisecond, which every store keeps exactly. */
  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /** The later of two times, either of which may be {@code null}. */
  private static Instant later(Instant first, Instant second) {
    if (first == null) {
      return second;
    }
    return second == null || first.isAfter(second) ? first : second;
  }

  private static String newId() {
    StringBuilder id = new StringBuilder(ID_LENGTH);
    for (int i = 0; i < ID_LENGTH; i++) {
      id.append(ID_ALPHABET.charAt(RANDOM.nextInt(ID_ALPHABET.length())));
    }
    return id.toString();
  }

  /** {@code [id, secret]} of a managed token, or {@code null} for anything else. */
  private static String[] parse(String presented) {
    if (presented == null
        || !presented.startsWith(PREFIX)
        || presented.length() > PREFIX.length() + ID_LENGTH + 1 + MAX_SECRET
        || presented.length() <= PREFIX.length() + ID_LENGTH + 1
        || presented.charAt(PREFIX.length() + ID_LENGTH) != '_') {
      return null;
    }
    String id = presented.substring(PREFIX.length(), PREFIX.length() + ID_LENGTH);
    if (!ID.matcher(id).matches()) {
      return null;
    }
    return new String[] {id, presented.substring(PREFIX.length() + ID_LENGTH + 1)};
  }

  /** Whether {@code id} has the form of a managed token's id. */
  public static boolean isId(String id) {
    return id != null && ID.matcher(id).matches();
  }

  /** Stops the background check. */
  @Override
  public void close() {
    if (checker != null) {
      checker.shutdownNow();
    }
  }
}
