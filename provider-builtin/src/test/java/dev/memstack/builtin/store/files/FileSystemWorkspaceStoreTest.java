package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.store.ChangeListener;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.store.WorkspaceStoreConformance;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file store: the workspace contract, and what only files on a disk have. */
@DisplayName("FileSystemWorkspaceStore")
class FileSystemWorkspaceStoreTest extends WorkspaceStoreConformance {

  @TempDir Path dir;

  @Override
  protected WorkspaceStore open(Clock clock, ChangeListener listener) {
    return new FileSystemWorkspaceStore(dir, clock, p -> new FileMeta(false, 50), listener);
  }

  @Test
  @DisplayName("keeps files as Markdown under agents/ and their metadata in .workspace.json")
  void keepsPlainFilesAndTheirMetadata() throws Exception {
    WorkspaceStore store = store();
    store.update(
        TEAM,
        tx -> {
          tx.write(path("A.md"), "alpha", new FileMeta(true, 1));
          tx.write(path("memory/2026-04-01.md"), "note", new FileMeta(false, 9));
          return null;
        });
    write(store, ALICE, "MEMORY.md", "mine");

    assertThat(Files.readString(dir.resolve("agents/a1/A.md"))).isEqualTo("alpha");
    assertThat(Files.readString(dir.resolve("agents/a1/.workspace.json")))
        .contains("\"A.md\"")
        .contains("\"sortOrder\" : 9");
    assertThat(dir.resolve("agents/a1/owners/user%3Aalice/MEMORY.md")).hasContent("mine");
    store.delete(ALICE);
    assertThat(dir.resolve("agents/a1/owners/user%3Aalice")).doesNotExist();
  }

  @Test
  @DisplayName("a failed transaction leaves no directory behind")
  void aFailedTransactionLeavesNoDirectory() {
    assertThatThrownBy(
            () ->
                store()
                    .update(
                        TEAM,
                        tx -> {
                          tx.write(path("A.md"), "alpha", new FileMeta(true, 1));
                          throw new IllegalStateException("changed my mind");
                        }))
        .hasMessage("changed my mind");
    assertThat(dir.resolve("agents")).doesNotExist();
  }

  @Test
  @DisplayName("picks up a file added by hand, with the default metadata")
  void picksUpFilesAddedByHand() throws Exception {
    Files.createDirectories(dir.resolve("agents/a1"));
    Files.writeString(dir.resolve("agents/a1/hand.md"), "by hand");

    assertThat(store().list(TEAM))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path()).isEqualTo(path("hand.md"));
              assertThat(e.sortOrder()).isEqualTo(50);
            });
  }

  @Test
  @DisplayName("refuses names that lead out through a symbolic link, reading or writing")
  void refusesSymbolicLinksLeadingOut() throws Exception {
    WorkspaceStore store = store();
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.writeString(outside.resolve("secret.md"), "secret");
    Files.createDirectories(dir.resolve("agents/a1"));
    Files.createSymbolicLink(dir.resolve("agents/a1/link"), outside);
    Files.createSymbolicLink(dir.resolve("agents/a1/file.md"), outside.resolve("secret.md"));

    assertThatThrownBy(() -> store.checkPath(TEAM, path("link/new.md")))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageContaining("symbolic link");
    assertThatThrownBy(() -> store.checkPath(TEAM, path("file.md")))
        .hasMessageContaining("symbolic link");
    assertThat(store.list(TEAM)).isEmpty();
    assertThat(store.read(TEAM, path("file.md"))).isEmpty();
    try (Stream<Path> files = Files.list(outside)) {
      assertThat(files).hasSize(1);
    }
  }
}
