package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemWorkspaceStoreTest {

  static final Instant NOW = Instant.parse("2026-04-01T10:00:00.123Z");

  @TempDir Path dir;
  List<Change> changes = new ArrayList<>();
  FileSystemWorkspaceStore store;
  Bucket team = Bucket.team(AgentId.of("a1"));

  @BeforeEach
  void open() {
    store =
        new FileSystemWorkspaceStore(
            dir, Clock.fixed(NOW, ZoneOffset.UTC), p -> new FileMeta(false, 50), this::record);
  }

  private void record(Bucket bucket, List<Change> committed) {
    changes.addAll(committed);
  }

  @Test
  @DisplayName("writes several files in one commit with their metadata and update time")
  void writesSeveralFilesInOneCommit() throws Exception {
    store.update(
        team,
        tx -> {
          tx.write(WorkspacePath.of("A.md"), "alpha", new FileMeta(true, 1));
          tx.write(WorkspacePath.of("memory/2026-04-01.md"), "note", new FileMeta(false, 9));
          return null;
        });

    assertThat(Files.readString(dir.resolve("agents/a1/A.md"))).isEqualTo("alpha");
    assertThat(store.list(team))
        .containsExactly(
            new FileEntry(WorkspacePath.of("A.md"), true, 1, 5, NOW),
            new FileEntry(WorkspacePath.of("memory/2026-04-01.md"), false, 9, 4, NOW));
    assertThat(Files.readString(dir.resolve("agents/a1/.workspace.json")))
        .contains("\"A.md\"")
        .contains("\"sortOrder\" : 9");
    assertThat(changes).hasSize(2).allMatch(c -> c.before() == null && c.content() != null);
  }

  @Test
  @DisplayName("writes nothing when the work throws")
  void writesNothingWhenTheWorkThrows() throws Exception {
    assertThatThrownBy(
            () ->
                store.update(
                    team,
                    tx -> {
                      tx.write(WorkspacePath.of("A.md"), "alpha", new FileMeta(true, 1));
                      throw new IllegalStateException("changed my mind");
                    }))
        .hasMessage("changed my mind");

    assertThat(dir.resolve("agents")).doesNotExist();
    assertThat(store.list(team)).isEmpty();
    assertThat(changes).isEmpty();
  }

  @Test
  @DisplayName("refuses names that lead out through a symbolic link, reading or writing")
  void refusesSymbolicLinksLeadingOut() throws Exception {
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("secret.md"), "secret");
    Files.createDirectories(dir.resolve("agents/a1"));
    Files.createSymbolicLink(dir.resolve("agents/a1/link"), outside);
    Files.createSymbolicLink(dir.resolve("agents/a1/file.md"), outside.resolve("secret.md"));

    assertThatThrownBy(() -> store.checkPath(team, WorkspacePath.of("link/new.md")))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageContaining("symbolic link");
    assertThatThrownBy(() -> store.checkPath(team, WorkspacePath.of("file.md")))
        .hasMessageContaining("symbolic link");
    assertThat(store.list(team)).isEmpty();
    assertThat(store.read(team, WorkspacePath.of("file.md"))).isEmpty();
    try (Stream<Path> files = Files.list(outside)) {
      assertThat(files).hasSize(1);
    }
  }

  @Test
  @DisplayName("reserves owners/ in team scope and keeps personal buckets apart")
  void reservesOwnersInTeamScope() throws Exception {
    Bucket personal = Bucket.personal(AgentId.of("a1"), OwnerKey.of("user:1"));
    store.update(
        personal,
        tx -> {
          tx.write(WorkspacePath.of("MEMORY.md"), "mine", new FileMeta(true, 3));
          return null;
        });

    assertThatThrownBy(() -> store.checkPath(team, WorkspacePath.of("owners/user%3A1/MEMORY.md")))
        .isInstanceOf(InvalidWorkspacePathException.class);
    assertThat(store.list(team)).isEmpty();
    assertThat(store.buckets()).containsExactly(team, personal);
    assertThat(store.personalBuckets(OwnerKey.of("user:1"))).containsExactly(personal);
    assertThat(store.delete(personal)).isEqualTo(1);
    assertThat(dir.resolve("agents/a1/owners/user%3A1")).doesNotExist();
  }
}
