package dev.memstack.host.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The generated admin token of a host without configured tokens: {@code <memstack.data-dir>/
 * api-token}, 32 random bytes ({@link SecureRandom}) in base64url, created owner-only ({@code
 * rw-------}) before a byte is written to it and reused on every later start. The file is named in
 * the log, the token never. On a file system without POSIX permissions the file is made readable
 * and writable by its owner only through {@link java.io.File}.
 */
public final class ApiTokenFile {

  /** The file name under the data directory. */
  public static final String NAME = "api-token";

  private static final Logger log = LoggerFactory.getLogger(ApiTokenFile.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path file;

  public ApiTokenFile(Path file) {
    this.file = Objects.requireNonNull(file, "file").toAbsolutePath().normalize();
  }

  /** The token file under a data directory. */
  public static ApiTokenFile in(Path dataDir) {
    return new ApiTokenFile(dataDir.resolve(NAME));
  }

  public Path path() {
    return file;
  }

  /**
   * The token in the file, after creating the file with a new token when it does not exist (or is
   * empty, left by a start that stopped half-way).
   *
   * @throws UncheckedIOException when the file cannot be read or written
   */
  public String loadOrCreate() {
    try {
      Files.createDirectories(file.getParent());
      String existing = read();
      if (existing != null) {
        tightenPermissions();
        log.info(
            "API authentication: using the admin token in {} (no memstack.security.tokens"
                + " configured); send it as 'Authorization: Bearer <token>'",
            file);
        return existing;
      }
      String token = generate();
      write(token);
      log.info(
          "API authentication: generated an admin token in {} (owner-only; no"
              + " memstack.security.tokens configured); send it as 'Authorization: Bearer <token>'",
          file);
      return token;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the API token file " + file, e);
    }
  }

  /** A new token: 32 bytes from {@link SecureRandom}, base64url without padding (43 characters). */
  public static String generate() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private String read() throws IOException {
    if (!Files.exists(file)) {
      return null;
    }
    String token = Files.readString(file, StandardCharsets.UTF_8).strip();
    return token.isEmpty() ? null : token;
  }

  private void write(String token) throws IOException {
    byte[] content = (token + "\n").getBytes(StandardCharsets.US_ASCII);
    if (posix()) {
      try {
        // created with its permissions in one step: the token is never readable by others
        Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (FileAlreadyExistsException e) {
        // an empty file left by an interrupted start: make it owner-only before writing
        Files.setPosixFilePermissions(file, OWNER_ONLY);
      }
    } else {
      if (!Files.exists(file)) {
        Files.createFile(file);
      }
      ownerOnlyWithoutPosix();
    }
    Files.write(file, content, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
  }

  private void tightenPermissions() throws IOException {
    if (!posix()) {
      return;
    }
    Set<PosixFilePermission> current = Files.getPosixFilePermissions(file);
    if (!OWNER_ONLY.containsAll(current)) {
      Files.setPosixFilePermissions(file, OWNER_ONLY);
      log.warn(
          "API token file {} was accessible to others ({}); made it owner-only (rw-------)",
          file,
          PosixFilePermissions.toString(current));
    }
  }

  private boolean posix() {
    return file.getFileSystem().supportedFileAttributeViews().contains("posix");
  }

  private void ownerOnlyWithoutPosix() {
    java.io.File f = file.toFile();
    boolean ok =
        f.setReadable(false, false)
            & f.setReadable(true, true)
            & f.setWritable(false, false)
            & f.setWritable(true, true)
            & f.setExecutable(false, false);
    if (!ok) {
      log.warn("Could not make the API token file {} owner-only; protect it yourself", file);
    }
  }
}
