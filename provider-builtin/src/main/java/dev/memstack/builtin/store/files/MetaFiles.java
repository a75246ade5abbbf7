package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The metadata file of a bucket directory ({@value FileSystemWorkspaceStore#META_FILE}): enabled
 * and sort order of each file, the seeded flag and the bucket's scope, agent and owner key.
 */
final class MetaFiles {

  /**
   * What a bucket's metadata file says; {@code present} is false when there is none (or
   * unreadable).
   */
  record MetaFile(boolean present, boolean seeded, Map<String, FileMeta> files) {}

  // the log lines are the store's
  private static final Logger log = LoggerFactory.getLogger(FileSystemWorkspaceStore.class);
  private static final String META_FILE = FileSystemWorkspaceStore.META_FILE;

  private final JsonMapper json =
      JsonMapper.builder()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  /** The owner of a PERSONAL bucket directory: from its metadata file, else its encoded name. */
  Optional<OwnerKey> ownerOf(Path ownerDir) {
    Path metaFile = ownerDir.resolve(META_FILE);
    if (Files.isRegularFile(metaFile, LinkOption.NOFOLLOW_LINKS)) {
      try {
        JsonNode node = json.readTree(metaFile.toFile()).path("ownerKey");
        if (node.isString()) {
          OwnerKey owner = OwnerKey.of(node.asString());
          if (OwnerDirectoryName.encode(owner).equals(ownerDir.getFileName().toString())) {
            return Optional.of(owner);
          }
        }
      } catch (JacksonException | IllegalArgumentException e) {
        log.warn("cannot read the owner key of {}: {}", ownerDir, e.toString());
      }
    }
    Optional<OwnerKey> decoded = OwnerDirectoryName.decode(ownerDir.getFileName().toString());
    if (decoded.isEmpty()) {
      log.warn("ignoring {}: not an owner directory", ownerDir);
    }
    return decoded;
  }

  /** The metadata file of the bucket directory {@code dir}. */
  MetaFile read(Path dir) {
    Path file = dir.resolve(META_FILE);
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return new MetaFile(false, false, Map.of());
    }
    try {
      JsonNode node = json.readTree(file.toFile());
      Map<String, FileMeta> files = new HashMap<>();
      for (Map.Entry<String, JsonNode> field : node.path("files").properties()) {
        files.put(
            field.getKey(),
            new FileMeta(
                field.getValue().path("enabled").asBoolean(false),
                field.getValue().path("sortOrder").asInt(0)));
      }
      return new MetaFile(true, node.path("seeded").asBoolean(false), files);
    } catch (JacksonException e) {
      log.warn("cannot read {}; using default metadata: {}", file, e.toString());
      return new MetaFile(false, false, Map.of());
    }
  }

  /** The metadata file of {@code bucket} holding {@code files}, as written. */
  byte[] bytes(Bucket bucket, boolean seeded, Map<WorkspacePath, FileEntry> files)
      throws IOException {
    ObjectNode node = json.createObjectNode();
    node.put("format", 1);
    node.put("scope", bucket.scopeName());
    if (bucket.agent() != null) {
      node.put("agentId", bucket.agent().value());
    }
    if (bucket.owner() != null) {
      node.put("ownerKey", bucket.owner().value());
    }
    node.put("seeded", seeded);
    ObjectNode filesNode = node.putObject("files");
    for (FileEntry entry : files.values()) {
      ObjectNode fileNode = filesNode.putObject(entry.path().value());
      fileNode.put("enabled", entry.enabled());
      fileNode.put("sortOrder", entry.sortOrder());
    }
    return (json.writeValueAsString(node) + "\n").getBytes(StandardCharsets.UTF_8);
  }
}
