package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.support.ControlCharacters;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Memory snapshots as in the seeds: a ZIP of one bucket's whitelisted files ({@code AGENTS.md},
 * {@code MEMORY.md}, {@code PROFILE.md}, {@code SOUL.md}, {@code KNOWLEDGE.md} and daily notes
 * {@code memory/YYYY-MM-DD.md}) plus a {@code manifest.json}. Import reads the archive as a stream
 * and enforces its limits on the bytes actually inflated, not on what the headers claim: at most
 * {@value #MAX_ENTRIES} entries, {@value #MAX_ENTRY_BYTES} bytes per entry and {@value
 * #MAX_TOTAL_BYTES} bytes in all. An entry name that could escape the workspace (zip slip: {@code
 * ..}, absolute, backslash, drive letter, control characters) refuses the whole archive; names
 * outside the whitelist are ignored and reported. A preview classifies each entry as create, update
 * or skip (identical content) and writes nothing; an import writes all entries in one transaction
 * or none. Snapshots carry neither {@code enabled} nor {@code sortOrder}: the target applies its
 * own rules to new files and keeps the metadata of existing ones.
 */
public final class MemorySnapshots {

  /** Most entries an archive may have (directories and ignored entries count). */
  public static final int MAX_ENTRIES = 500;

  /** The tool argument an archive problem is reported on. */
  private static final String ZIP_FIELD = "zipBase64";

  /** Most uncompressed bytes of one entry. */
  public static final int MAX_ENTRY_BYTES = 1024 * 1024;

  /** Most uncompressed bytes of all entries together. */
  public static final long MAX_TOTAL_BYTES = 16L * 1024 * 1024;

  /** Largest archive accepted, compressed. */
  public static final int MAX_ARCHIVE_BYTES = 16 * 1024 * 1024;

  /** The manifest's entry name. */
  public static final String MANIFEST = "manifest.json";

  private final WorkspaceMemory memory;
  private final Clock clock;
  private final JsonMapper json =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  public MemorySnapshots(WorkspaceMemory memory, Clock clock) {
    this.memory = memory;
    this.clock = clock;
  }

  /** An exported archive. */
  public record Exported(byte[] zip, List<FileEntry> files) {}

  /** What an import does (or would do) with one entry. */
  public record Planned(WorkspacePath path, String action, int bytes, boolean truncated) {}

  /** An entry an import leaves out, and why. */
  public record Ignored(String name, String reason) {}

  /** The outcome of an import or a preview. */
  public record ImportReport(
      Bucket bucket,
      boolean preview,
      boolean applied,
      List<Planned> entries,
      List<Ignored> ignored) {

    public long count(String action) {
      return entries.stream().filter(e -> e.action().equals(action)).count();
    }
  }

  /** Exports the whitelisted files of {@code bucket}. */
  public Exported export(AgentId agent, Bucket bucket) {
    memory.ensureAgent(agent);
    List<FileEntry> files = new ArrayList<>();
    Map<FileEntry, byte[]> contents = new LinkedHashMap<>();
    for (FileEntry entry : memory.store().list(bucket)) {
      if (!WorkspaceRules.inSnapshot(entry.path())) {
        continue;
      }
      Optional<String> content = memory.store().read(bucket, entry.path());
      if (content.isPresent()) {
        files.add(entry);
        contents.put(entry, content.get().getBytes(StandardCharsets.UTF_8));
      }
    }
    ObjectNode manifest = json.createObjectNode();
    manifest.put("format", "memstack-workspace-snapshot");
    manifest.put("version", 1);
    manifest.put("agentId", agent.value());
    manifest.put("scope", bucket.scopeName());
    if (bucket.owner() != null) {
      manifest.put("ownerKey", bucket.owner().value());
    }
    manifest.put("exportedAt", clock.instant().toString());
    ArrayNode list = manifest.putArray("files");
    for (Map.Entry<FileEntry, byte[]> file : contents.entrySet()) {
      ObjectNode node = list.addObject();
      node.put("filename", file.getKey().path().value());
      node.put("fileSize", file.getValue().length);
      node.put("updateTime", file.getKey().updateTime().toString());
      node.put("sha256", sha256(file.getValue()));
    }
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ZipOutputStream zip = new ZipOutputStream(bytes, StandardCharsets.UTF_8)) {
        ZipEntry manifestEntry = new ZipEntry(MANIFEST);
        manifestEntry.setLastModifiedTime(FileTime.from(clock.instant()));
        zip.putNextEntry(manifestEntry);
        zip.write(json.writeValueAsBytes(manifest));
        zip.closeEntry();
        for (Map.Entry<FileEntry, byte[]> file : contents.entrySet()) {
          ZipEntry entry = new ZipEntry(file.getKey().path().value());
          entry.setLastModifiedTime(FileTime.from(file.getKey().updateTime()));
          zip.putNextEntry(entry);
          zip.write(file.getValue());
          zip.closeEntry();
        }
      }
      return new Exported(bytes.toByteArray(), files);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build the snapshot archive", e);
    }
  }

  /**
   * Previews or applies an archive to {@code bucket}; a TEAM bucket of a never-used agent is seeded
   * first, in the same transaction, so the preview shows what the import will do.
   *
   * @throws dev.memstack.spi.ToolException INVALID_ARGUMENT (naming the entry and the limit) for an
   *     archive that is refused; nothing is written then
   */
  public ImportReport importArchive(Bucket bucket, byte[] zip, boolean preview) {
    Archive archive = read(zip);
    Map<WorkspacePath, SizeCaps.Capped> capped = new LinkedHashMap<>();
    for (Map.Entry<WorkspacePath, String> file : archive.files().entrySet()) {
      try {
        capped.put(file.getKey(), memory.caps().apply(file.getKey(), file.getValue()));
      } catch (IllegalArgumentException e) {
        throw WorkspaceMemory.invalid(
            ZIP_FIELD, "archive entry '" + file.getKey() + "' is refused: " + e.getMessage());
      }
    }
    try {
      return memory.update(
          bucket,
          tx -> {
            List<Planned> planned = new ArrayList<>();
            for (Map.Entry<WorkspacePath, SizeCaps.Capped> file : capped.entrySet()) {
              WorkspacePath path = file.getKey();
              String content = file.getValue().content();
              Optional<String> current = tx.read(path);
              String action =
                  current.isEmpty() ? "create" : current.get().equals(content) ? "skip" : "update";
              planned.add(
                  new Planned(
                      path,
                      action,
                      content.getBytes(StandardCharsets.UTF_8).length,
                      file.getValue().truncated()));
              if (!action.equals("skip")) {
                tx.write(path, content, WorkspaceRules.metaForNewFile(path));
              }
            }
            ImportReport report =
                new ImportReport(
                    bucket, preview, !preview, List.copyOf(planned), archive.ignored());
            if (preview) {
              // Abandon the transaction: a preview sees what an import would do, writes nothing.
              throw new PreviewOnly(report);
            }
            return report;
          });
    } catch (PreviewOnly abandoned) {
      return abandoned.report;
    }
  }

  /** Carries a preview's report out of the transaction it abandons. */
  private static final class PreviewOnly extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient ImportReport report;

    PreviewOnly(ImportReport report) {
      super(null, null, false, false);
      this.report = report;
    }
  }

  private record Archive(Map<WorkspacePath, String> files, List<Ignored> ignored) {}

  private Archive read(byte[] zip) {
    if (zip.length > MAX_ARCHIVE_BYTES) {
      throw WorkspaceMemory.invalid(
          ZIP_FIELD,
          "zip: the archive is "
              + zip.length
              + " bytes; at most "
              + MAX_ARCHIVE_BYTES
              + " are accepted");
    }
    Map<WorkspacePath, String> files = new LinkedHashMap<>();
    List<Ignored> ignored = new ArrayList<>();
    Set<String> names = new HashSet<>();
    long total = 0;
    int count = 0;
    try (ZipInputStream in =
        new ZipInputStream(new ByteArrayInputStream(zip), StandardCharsets.UTF_8)) {
      ZipEntry entry;
      while ((entry = in.getNextEntry()) != null) {
        count++;
        if (count > MAX_ENTRIES) {
          throw WorkspaceMemory.invalid(
              ZIP_FIELD,
              "zip: the archive has more than " + MAX_ENTRIES + " entries; it is refused");
        }
        String name = entry.getName();
        String unsafe = unsafeName(name);
        if (unsafe != null) {
          throw WorkspaceMemory.invalid(
              ZIP_FIELD,
              "zip: entry '" + printable(name) + "' " + unsafe + "; the archive is refused");
        }
        if (!names.add(name)) {
          throw WorkspaceMemory.invalid(
              ZIP_FIELD, "zip: entry '" + name + "' appears twice; the archive is refused");
        }
        byte[] data = readLimited(in, name, MAX_TOTAL_BYTES - total);
        total += data.length;
        if (entry.isDirectory()) {
          continue;
        }
        if (name.equals(MANIFEST)) {
          continue;
        }
        WorkspacePath path;
        try {
          path = WorkspacePath.of(name);
        } catch (InvalidWorkspacePathException e) {
          ignored.add(new Ignored(name, "not a workspace Markdown file: " + e.problem()));
          continue;
        }
        if (!WorkspaceRules.inSnapshot(path)) {
          ignored.add(
              new Ignored(
                  name,
                  "not in the snapshot whitelist (AGENTS.md, MEMORY.md, PROFILE.md, SOUL.md,"
                      + " KNOWLEDGE.md, memory/YYYY-MM-DD.md)"));
          continue;
        }
        String text = utf8(data, name);
        int control = ControlCharacters.find(text);
        if (control >= 0) {
          throw WorkspaceMemory.invalid(
              ZIP_FIELD,
              "zip: entry '"
                  + name
                  + "' contains NUL or control characters other than tab, line feed and carriage"
                  + " return (U+"
                  + String.format("%04X", (int) text.charAt(control))
                  + "); the archive is refused");
        }
        files.put(path, text);
      }
    } catch (ZipException | IllegalArgumentException e) {
      throw WorkspaceMemory.invalid(
          ZIP_FIELD, "zip: not a valid ZIP archive (" + e.getMessage() + ")");
    } catch (IOException e) {
      throw WorkspaceMemory.invalid(
          ZIP_FIELD, "zip: cannot read the archive (" + e.getMessage() + ")");
    }
    if (count == 0) {
      throw WorkspaceMemory.invalid(ZIP_FIELD, "zip: the archive is empty or not a ZIP archive");
    }
    return new Archive(files, List.copyOf(ignored));
  }

  /** Reads one entry, counting inflated bytes against the per-entry and remaining total limits. */
  private static byte[] readLimited(InputStream in, String name, long totalRoom)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    long read = 0;
    int n;
    while ((n = in.read(buffer)) > 0) {
      read += n;
      if (read > MAX_ENTRY_BYTES) {
        throw WorkspaceMemory.invalid(
            ZIP_FIELD,
            "zip: entry '"
                + printable(name)
                + "' inflates to more than "
                + MAX_ENTRY_BYTES
                + " bytes; the archive is refused");
      }
      if (read > totalRoom) {
        throw WorkspaceMemory.invalid(
            ZIP_FIELD,
            "zip: the archive inflates to more than "
                + MAX_TOTAL_BYTES
                + " bytes in all; it is refused");
      }
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }

  /** Why an entry name could escape the workspace, or {@code null} when it cannot. */
  static String unsafeName(String name) {
    if (name.isEmpty()) {
      return "has an empty name";
    }
    for (int i = 0; i < name.length(); i++) {
      if (Character.isISOControl(name.charAt(i))) {
        return "has control characters in its name";
      }
    }
    if (name.indexOf('\\') >= 0) {
      return "has a backslash in its name";
    }
    if (name.startsWith("/") || name.matches("^[A-Za-z]:.*")) {
      return "has an absolute name";
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.contains("%2e") || lower.contains("%2f") || lower.contains("%5c")) {
      return "has a percent-encoded dot or slash in its name";
    }
    for (String segment : name.split("/")) {
      if (segment.equals("..")) {
        return "climbs out of the archive with '..'";
      }
    }
    return null;
  }

  private static String utf8(byte[] data, String name) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(data))
          .toString();
    } catch (CharacterCodingException e) {
      throw WorkspaceMemory.invalid(
          ZIP_FIELD, "zip: entry '" + name + "' is not UTF-8 text; the archive is refused");
    }
  }

  private static String printable(String name) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(name.length(), 120); i++) {
      char c = name.charAt(i);
      out.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
