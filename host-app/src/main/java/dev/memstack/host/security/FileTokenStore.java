package dev.memstack.host.security;

import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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

  /** The file's content. */
  private record Content(int version, List<StoredToken> tokens) {}

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
      Content content =
          text.isEmpty()
              ? new Content(VERSION, List.of())
              : json.readValue(text.get(), Content.class);
      if (content.version() != VERSION || content.tokens() == null) {
        throw new IllegalArgumentException("unknown version " + content.version());
      }
      content.tokens().forEach(token -> tokens.put(token.id(), token));
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
    change(token.id(), token);
  }

  @Override
  public synchronized boolean remove(String id) {
    return tokens.containsKey(id) && change(id, null) != null;
  }

  @Override
  public synchronized void used(String id, Instant at) {
    StoredToken token = tokens.get(id);
    if (token != null) {
      change(id, token.usedAt(at));
    }
  }

  @Override
  public boolean shared() {
    return false;
  }

  /**
   * Puts {@code token} under {@code id} (removes it when {@code null}) and rewrites the file; on a
   * failure the change is undone. Returns what was kept under {@code id} before.
   */
  private StoredToken change(String id, StoredToken token) {
    StoredToken before = token == null ? tokens.remove(id) : tokens.put(id, token);
    try {
      Files.createDirectories(file.getParent());
      AtomicFiles.writeOwnerOnly(
          file,
          json.writerWithDefaultPrettyPrinter()
              .writeValueAsBytes(new Content(VERSION, List.copyOf(tokens.values()))));
      return before;
    } catch (IOException | RuntimeException e) {
      if (before == null) {
        tokens.remove(id);
      } else {
        tokens.put(id, before);
      }
      throw new UncheckedIOException(
          "cannot write the API token file " + file,
          e instanceof IOException io ? io : new IOException(e));
    }
  }
}
