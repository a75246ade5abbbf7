package dev.memstack.host.security;

import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The managed API tokens of a host on its own: {@code <memstack.data-dir>/api-tokens.json}, read
 * once at start and rewritten whole and atomically on every change ({@link
 * AtomicFiles#writeOwnerOnly}: owner-only, {@code rw-------}, before a byte is written). It holds
 * each token's salted digest, never a secret. No file is made until the first token is. A file that
 * cannot be read stops the start, naming it. Thread-safe.
 */
final class FileTokenStore implements TokenStore {

  /** The file name under the data directory. */
  static final String NAME = "api-tokens.json";

  private static final int VERSION = 1;

  /** One token in the file. */
  private record Entry(
      String id,
      String name,
      String role,
      String owner,
      String salt,
      String hash,
      String createdAt,
      String lastUsedAt) {

    static Entry of(StoredToken token) {
      return new Entry(
          token.id(),
          token.name(),
          token.role().name(),
          token.owner() == null ? null : token.owner().pattern(),
          token.salt(),
          token.hash(),
          token.createdAt().toString(),
          token.lastUsedAt() == null ? null : token.lastUsedAt().toString());
    }

    StoredToken token() {
      return new StoredToken(
          id,
          name,
          Role.valueOf(role),
          owner == null ? null : OwnerBinding.of(owner),
          salt,
          hash,
          Instant.parse(createdAt),
          lastUsedAt == null ? null : Instant.parse(lastUsedAt));
    }
  }

  /** The file's content. */
  private record Content(int version, List<Entry> tokens) {}

  private final Path file;
  private final JsonMapper json;
  private final Map<String, StoredToken> tokens = new LinkedHashMap<>();

  /**
   * Reads the file under {@code dataDir}, if there is one.
   *
   * @throws IllegalStateException naming the file when it cannot be read
   */
  FileTokenStore(Path dataDir, JsonMapper json) {
    this.file = dataDir.resolve(NAME).toAbsolutePath().normalize();
    this.json = json;
    try {
      Optional<String> text = AtomicFiles.load(file);
      if (text.isPresent()) {
        Content content = json.readValue(text.get(), Content.class);
        if (content.version() != VERSION || content.tokens() == null) {
          throw new IllegalStateException(
              "the API token file " + file + " has an unknown version " + content.version());
        }
        for (Entry entry : content.tokens()) {
          StoredToken token = entry.token();
          tokens.put(token.id(), token);
        }
      }
    } catch (IOException | JacksonException | IllegalArgumentException | NullPointerException e) {
      throw new IllegalStateException(
          "cannot read the API token file " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized List<StoredToken> all() {
    return List.copyOf(tokens.values());
  }

  @Override
  public synchronized Optional<StoredToken> find(String id) {
    return Optional.ofNullable(tokens.get(id));
  }

  @Override
  public synchronized Set<String> existing(Collection<String> ids) {
    Set<String> kept = new HashSet<>(ids);
    kept.retainAll(tokens.keySet());
    return kept;
  }

  @Override
  public synchronized void add(StoredToken token) {
    tokens.put(token.id(), token);
    try {
      save();
    } catch (UncheckedIOException e) {
      tokens.remove(token.id());
      throw e;
    }
  }

  @Override
  public synchronized boolean remove(String id) {
    StoredToken removed = tokens.remove(id);
    if (removed == null) {
      return false;
    }
    try {
      save();
    } catch (UncheckedIOException e) {
      tokens.put(id, removed);
      throw e;
    }
    return true;
  }

  @Override
  public synchronized void used(String id, Instant at) {
    StoredToken token = tokens.get(id);
    if (token != null) {
      tokens.put(id, token.usedAt(at));
      save();
    }
  }

  @Override
  public boolean shared() {
    return false;
  }

  @Override
  public String describe() {
    return file.toString();
  }

  private void save() {
    List<Entry> entries = new ArrayList<>(tokens.size());
    tokens.values().forEach(token -> entries.add(Entry.of(token)));
    try {
      Files.createDirectories(file.getParent());
      AtomicFiles.writeOwnerOnly(
          file,
          json.writerWithDefaultPrettyPrinter()
              .writeValueAsString(new Content(VERSION, entries))
              .getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the API token file " + file, e);
    }
  }
}
