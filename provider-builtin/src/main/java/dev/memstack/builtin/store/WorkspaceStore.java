package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where workspace files live: the port of the file adapter ({@code store.files}, the default) and
 * the PostgreSQL one ({@code store.postgres}, for hosts that share state), picked by {@link
 * Stores}; both pass the same contract test.
 *
 * <p>Thread-safe. Reads see the last committed state of a bucket. Changes go through {@link
 * #update(Bucket, Function)}, which serialises writers of one bucket and applies a transaction's
 * writes all together or not at all: if the work function throws, nothing is written.
 */
public interface WorkspaceStore extends AutoCloseable {

  /** Every file of the bucket, by sort order and then name; empty when the bucket has none. */
  List<FileEntry> list(Bucket bucket);

  /** One file's entry, if the file exists. */
  Optional<FileEntry> entry(Bucket bucket, WorkspacePath path);

  /** One file's content, if the file exists. */
  Optional<String> read(Bucket bucket, WorkspacePath path);

  /**
   * Checks that the store would accept {@code path} in {@code bucket}, without changing anything.
   *
   * @throws InvalidWorkspacePathException if the name is reserved or leads outside the bucket
   */
  void checkPath(Bucket bucket, WorkspacePath path);

  /** Whether the bucket was seeded with its starting files (see {@link BucketTransaction}). */
  boolean seeded(Bucket bucket);

  /**
   * Runs {@code work} while holding the bucket's write lock, then commits what it wrote. Nothing is
   * written if {@code work} throws; the exception passes through.
   *
   * @return what {@code work} returned
   * @throws java.io.UncheckedIOException if the commit fails; the bucket is then unchanged
   */
  <T> T update(Bucket bucket, Function<BucketTransaction, T> work);

  /** Removes the bucket and all its files; returns how many files were removed. */
  long delete(Bucket bucket);

  /**
   * How many times {@code owner} has been erased from this store ({@link #countErasure}): a memory
   * job reads it before it reads the owner's files and hands it to {@link #updateFenced} with what
   * it derived from them.
   */
  long erasures(dev.memstack.spi.OwnerKey owner);

  /**
   * Counts one more erasure of {@code owner}; called before their buckets are listed and deleted.
   * From then on an {@link #updateFenced} of theirs that saw the old count writes nothing. Returns
   * once every such update under way has committed, so the buckets listed afterwards include any it
   * created.
   */
  void countErasure(dev.memstack.spi.OwnerKey owner);

  /**
   * As {@link #update}, for work that writes what it derived from files it read earlier (a memory
   * job: read, ask the model, write): for a PERSONAL bucket whose owner's {@link #erasures} is no
   * longer {@code seen}, the work does not run and nothing is written. Shared buckets are updated
   * as by {@link #update}.
   *
   * @throws OwnerErasedException when the owner was erased since {@code seen} was read
   */
  <T> T updateFenced(Bucket bucket, long seen, Function<BucketTransaction, T> work);

  /** Every bucket that has files or metadata. */
  List<Bucket> buckets();

  /** Every PERSONAL bucket of {@code owner}, in every agent. */
  List<Bucket> personalBuckets(dev.memstack.spi.OwnerKey owner);

  /**
   * The owners {@code agent} has a PERSONAL bucket of, in no order. The default picks them out of
   * {@link #buckets()}; a store answers it from that agent's buckets alone.
   */
  default List<dev.memstack.spi.OwnerKey> owners(dev.memstack.spi.AgentId agent) {
    return buckets().stream()
        .filter(b -> b.owner() != null && b.agent() != null && b.agent().equals(agent))
        .map(Bucket::owner)
        .toList();
  }

  /**
   * A number that changes with every commit to the bucket made through any store on the same
   * storage, this process's or another's, for caches built from the bucket's files: a cache is
   * current while the number it was built at is unchanged. A store that only this process writes
   * tells every commit to its {@link ChangeListener} and may answer a constant ({@code 0}, the
   * default); a shared store answers from the storage, cheaply (one indexed read).
   */
  default long version(Bucket bucket) {
    return 0;
  }

  /**
   * Why the store cannot serve now (its database unreachable, say), for the provider's health;
   * empty when it can. The default: empty (a file store's problems show as the data directory's).
   */
  default Optional<String> unavailable() {
    return Optional.empty();
  }

  @Override
  void close();
}
