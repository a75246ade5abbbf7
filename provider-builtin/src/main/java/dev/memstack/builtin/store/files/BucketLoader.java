package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.Scope;
import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitor;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a bucket's directory into a {@link BucketState}: first resolves what a crash left behind
 * (temporary files removed, backups put back), then lists the files (hidden names, symbolic links
 * and, in a TEAM bucket, {@code owners/} left out) with their metadata or the defaults.
 */
final class BucketLoader {

  // the log lines are the store's
  private static final Logger log = LoggerFactory.getLogger(FileSystemWorkspaceStore.class);
  private static final String OWNERS_DIR = FileSystemWorkspaceStore.OWNERS_DIR;

  private final Function<Bucket, Path> directories;
  private final MetaFiles metaFiles;
  private final Function<WorkspacePath, FileMeta> defaults;

  BucketLoader(
      Function<Bucket, Path> directories,
      MetaFiles metaFiles,
      Function<WorkspacePath, FileMeta> defaults) {
    this.directories = directories;
    this.metaFiles = metaFiles;
    this.defaults = defaults;
  }

  /** The state of {@code bucket} as its directory holds it. */
  BucketState load(Bucket bucket) {
    Path dir = directories.apply(bucket);
    try {
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return BucketState.EMPTY;
      }
      if (!dir.toRealPath().equals(dir)) {
        log.warn("ignoring {}: its directory leads elsewhere through a symbolic link", bucket);
        return BucketState.EMPTY;
      }
      resolveLeftovers(bucket, dir);
      MetaFiles.MetaFile meta = metaFiles.read(dir);
      TreeMap<WorkspacePath, FileEntry> files = new TreeMap<>();
      Files.walkFileTree(
          dir,
          EnumSet.noneOf(FileVisitOption.class),
          WorkspacePath.MAX_DEPTH,
          new BucketVisitor(bucket, dir) {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              String name = file.getFileName().toString();
              if (name.startsWith(".") || !attrs.isRegularFile() || attrs.isSymbolicLink()) {
                return FileVisitResult.CONTINUE;
              }
              String relative =
                  dir.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
              WorkspacePath path;
              try {
                path = WorkspacePath.of(relative);
              } catch (InvalidWorkspacePathException e) {
                return FileVisitResult.CONTINUE;
              }
              FileMeta fileMeta = meta.files().getOrDefault(path.value(), defaults.apply(path));
              files.put(
                  path,
                  new FileEntry(
                      path,
                      fileMeta.enabled(),
                      fileMeta.sortOrder(),
                      attrs.size(),
                      attrs.lastModifiedTime().toInstant()));
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              log.warn("cannot read {}: {}", file, e.toString());
              return FileVisitResult.CONTINUE;
            }
          });
      boolean seeded = meta.seeded() || (!meta.present() && !files.isEmpty());
      return BucketState.of(files, seeded);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot load " + bucket, e);
    }
  }

  /** Walks a bucket's files, skipping hidden directories and a team bucket's owners' folder. */
  private abstract static class BucketVisitor extends SimpleFileVisitor<Path> {
    private final Bucket bucket;
    private final Path bucketDir;

    BucketVisitor(Bucket bucket, Path bucketDir) {
      this.bucket = bucket;
      this.bucketDir = bucketDir;
    }

    @Override
    public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
      return skipped(bucket, bucketDir, d)
          ? FileVisitResult.SKIP_SUBTREE
          : FileVisitResult.CONTINUE;
    }
  }

  private static boolean skipped(Bucket bucket, Path bucketDir, Path dir) {
    if (dir.equals(bucketDir)) {
      return false;
    }
    String name = dir.getFileName().toString();
    return name.startsWith(".")
        || (bucket.scope() == Scope.TEAM
            && dir.getParent().equals(bucketDir)
            && name.equals(OWNERS_DIR));
  }

  /** Removes temporary files and puts back backups that a crash left behind. */
  private void resolveLeftovers(Bucket bucket, Path dir) throws IOException {
    List<Path> leftovers = new ArrayList<>();
    FileVisitor<Path> visitor =
        new BucketVisitor(bucket, dir) {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            String name = file.getFileName().toString();
            if (name.startsWith(".")
                && (name.endsWith(AtomicFiles.TEMP_SUFFIX)
                    || name.endsWith(AtomicFiles.BACKUP_SUFFIX))) {
              leftovers.add(file);
            }
            return FileVisitResult.CONTINUE;
          }
        };
    Files.walkFileTree(
        dir, EnumSet.noneOf(FileVisitOption.class), WorkspacePath.MAX_DEPTH, visitor);
    for (Path leftover : leftovers) {
      String name = leftover.getFileName().toString();
      if (name.endsWith(AtomicFiles.TEMP_SUFFIX)) {
        Files.deleteIfExists(leftover);
        continue;
      }
      // .NAME.xxxxxxxx.bak: the old version of NAME, moved aside during a commit.
      String original = name.substring(1, name.length() - AtomicFiles.BACKUP_SUFFIX.length() - 9);
      Path target = leftover.resolveSibling(original);
      if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        Files.deleteIfExists(leftover);
      } else {
        log.warn("restoring {} from a backup left by an interrupted write", target);
        AtomicFiles.move(leftover, target);
      }
    }
  }
}
