package dev.memstack.builtin.memory;

import static dev.memstack.builtin.memory.WorkspaceMemory.invalid;

import dev.memstack.builtin.memory.WorkspaceMemory.Edited;
import dev.memstack.builtin.memory.WorkspaceMemory.Listed;
import dev.memstack.builtin.memory.WorkspaceMemory.ReadFile;
import dev.memstack.builtin.memory.WorkspaceMemory.Written;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolException;
import dev.memstack.support.ControlCharacters;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The file operations behind the workspace tools and routes: resolve a scope, list, read, write
 * after the caps, edit under the file's lock and change a file's metadata; bad input is a {@link
 * ToolException} that names the argument. Thread-safe.
 */
final class WorkspaceFiles {

  private final BuiltinSettings settings;
  private final WorkspaceStore store;
  private final SizeCaps caps;
  private final CoreFileSeeder seeder;

  WorkspaceFiles(
      BuiltinSettings settings, WorkspaceStore store, SizeCaps caps, CoreFileSeeder seeder) {
    this.settings = settings;
    this.store = store;
    this.caps = caps;
    this.seeder = seeder;
  }

  Bucket resolve(AgentId agent, OwnerKey owner, String scope, WorkspacePath path) {
    if (scope == null) {
      boolean personal =
          owner != null
              && settings.perOwner()
              && path != null
              && WorkspaceRules.isPersonalKind(path);
      return personal ? Bucket.personal(agent, owner) : Bucket.team(agent);
    }
    return switch (scope.toLowerCase(Locale.ROOT)) {
      case "personal" -> {
        if (owner == null) {
          throw invalid("scope", "scope 'personal' needs an ownerKey");
        }
        if (!settings.perOwner()) {
          throw invalid("scope", "scope 'personal' is not available: per-owner memory is off");
        }
        yield Bucket.personal(agent, owner);
      }
      case "team" -> Bucket.team(agent);
      case "global" -> Bucket.global();
      default ->
          throw invalid(
              "scope", "scope must be one of personal, team, global; got '" + scope + "'");
    };
  }

  List<Listed> list(AgentId agent, List<Bucket> buckets, String prefix) {
    seeder.ensureAgent(agent);
    List<Listed> listed = new ArrayList<>();
    for (Bucket bucket : buckets) {
      for (FileEntry entry : store.list(bucket)) {
        if (entry.path().startsWith(prefix) && !entry.path().isEntryHistory()) {
          listed.add(new Listed(bucket, entry));
        }
      }
    }
    listed.sort(
        Comparator.comparingInt((Listed l) -> l.entry().sortOrder())
            .thenComparingInt(l -> l.bucket().scope().ordinal())
            .thenComparing(l -> l.entry().path()));
    return listed;
  }

  ReadFile read(Bucket bucket, WorkspacePath path) {
    checkPath(bucket, path);
    if (bucket.scope() == Scope.TEAM && !store.seeded(bucket)) {
      return seeder.update(
          bucket,
          tx ->
              new ReadFile(
                  bucket,
                  tx.entry(path).orElseThrow(() -> notFound(bucket, path)),
                  tx.read(path).orElseThrow(() -> notFound(bucket, path))));
    }
    FileEntry entry = store.entry(bucket, path).orElseThrow(() -> notFound(bucket, path));
    String content = store.read(bucket, path).orElseThrow(() -> notFound(bucket, path));
    return new ReadFile(bucket, entry, content);
  }

  Written write(Bucket bucket, WorkspacePath path, String content) {
    checkContent(content, "content");
    SizeCaps.Capped capped = cap(path, content, "content");
    checkPath(bucket, path);
    return seeder.update(
        bucket,
        tx -> {
          boolean created = tx.entry(path).isEmpty();
          tx.write(path, capped.content(), WorkspaceRules.metaForNewFile(path));
          FileEntry entry = tx.entry(path).orElseThrow();
          return new Written(
              bucket,
              entry,
              created,
              capped.content().getBytes(StandardCharsets.UTF_8).length,
              capped);
        });
  }

  Edited edit(
      Bucket bucket, WorkspacePath path, String oldText, String newText, boolean replaceAll) {
    if (oldText == null || oldText.isEmpty()) {
      throw invalid("oldText", "oldText is required and must not be empty");
    }
    checkContent(oldText, "oldText");
    checkContent(newText, "newText");
    checkPath(bucket, path);
    return seeder.update(
        bucket,
        tx -> {
          String content = tx.read(path).orElseThrow(() -> notFound(bucket, path));
          int count = occurrences(content, oldText);
          if (count == 0) {
            throw new ToolException(
                ToolException.Kind.CONFLICT,
                "oldText was not found in "
                    + bucket.scopeName()
                    + " file "
                    + path
                    + "; read the file and retry with its current text");
          }
          if (count > 1 && !replaceAll) {
            throw new ToolException(
                ToolException.Kind.CONFLICT,
                "oldText occurs "
                    + count
                    + " times in "
                    + path
                    + "; include more surrounding text to make it unique, or set replaceAll");
          }
          String next;
          if (replaceAll) {
            next = content.replace(oldText, newText);
          } else {
            int at = content.indexOf(oldText);
            next = content.substring(0, at) + newText + content.substring(at + oldText.length());
          }
          SizeCaps.Capped capped = cap(path, next, "newText");
          tx.write(path, capped.content(), WorkspaceRules.metaForNewFile(path));
          return new Edited(
              bucket, tx.entry(path).orElseThrow(), replaceAll ? count : 1, capped.truncated());
        });
  }

  FileEntry updateMeta(Bucket bucket, WorkspacePath path, Boolean enabled, Integer sortOrder) {
    checkPath(bucket, path);
    return seeder.update(
        bucket,
        tx -> {
          FileEntry entry = tx.entry(path).orElseThrow(() -> notFound(bucket, path));
          FileMeta meta =
              new FileMeta(
                  enabled != null ? enabled : entry.enabled(),
                  sortOrder != null ? sortOrder : entry.sortOrder());
          if (meta.enabled() == entry.enabled() && meta.sortOrder() == entry.sortOrder()) {
            return entry;
          }
          tx.setMeta(path, meta);
          return tx.entry(path).orElseThrow();
        });
  }

  /**
   * Refuses a name the store refuses, and the files the memory-admin tools keep ({@link
   * WorkspacePath#isEntryHistory()}): they are read and changed through those tools only.
   */
  private void checkPath(Bucket bucket, WorkspacePath path) {
    store.checkPath(bucket, path);
    if (path.isEntryHistory()) {
      throw new InvalidWorkspacePathException(
          "is kept by the memory-admin tools (list_memories, memory_history), not as a file");
    }
  }

  SizeCaps.Capped cap(WorkspacePath path, String content, String field) {
    try {
      return caps.apply(path, content);
    } catch (IllegalArgumentException e) {
      throw invalid(field, e.getMessage());
    }
  }

  static void checkContent(String text, String argument) {
    if (text == null) {
      throw invalid(argument, argument + " is required");
    }
    String problem = ControlCharacters.problem(argument, text);
    if (problem != null) {
      throw invalid(argument, problem);
    }
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
      count++;
    }
    return count;
  }

  private static ToolException notFound(Bucket bucket, WorkspacePath path) {
    String hint =
        bucket.scope() == Scope.PERSONAL
            ? "; the owner has no personal copy yet: write it, or read it with scope 'team'"
            : "";
    return new ToolException(
        ToolException.Kind.NOT_FOUND,
        bucket.scopeName() + " file " + path + " does not exist" + hint);
  }
}
