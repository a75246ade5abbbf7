package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import java.util.List;

/**
 * Told about every committed change while the bucket's lock is still held, so that listeners see
 * the changes of one bucket in commit order (the keyword index relies on that).
 */
@FunctionalInterface
public interface ChangeListener {

  /** The changes of one commit; never empty. Must not throw. */
  void committed(Bucket bucket, List<Change> changes);
}
