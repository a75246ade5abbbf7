package dev.memstack.host.security;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where the managed API tokens are kept: a file in the data directory ({@link FileTokenStore}), or
 * a table of the shared database in shared mode ({@link PostgresTokenStore}), so that every host
 * accepts a token any host made and refuses one any host revoked. Thread-safe. A failure of the
 * store throws {@link java.io.UncheckedIOException} naming it.
 */
interface TokenStore {

  /** Every token, oldest first. */
  List<StoredToken> all();

  /** The token of {@code id}, or empty. */
  Optional<StoredToken> find(String id);

  /** Of {@code ids}, those still kept. */
  Set<String> existing(Collection<String> ids);

  /** Keeps a new token (its id is new). */
  void add(StoredToken token);

  /** Removes the token of {@code id}; whether it was kept. */
  boolean remove(String id);

  /** Records that the token of {@code id} was used at {@code at}. */
  void used(String id, Instant at);

  /** Whether other hosts share this store (then their revocations must be looked for). */
  boolean shared();
}
