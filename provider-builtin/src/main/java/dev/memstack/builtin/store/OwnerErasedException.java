package dev.memstack.builtin.store;

import dev.memstack.spi.OwnerKey;

/**
 * A memory job's write to an owner's PERSONAL bucket was refused: the owner was erased after the
 * job read their files ({@link WorkspaceStore#updateFenced}), so what it derived from them must not
 * land. Nothing was written.
 */
public final class OwnerErasedException extends RuntimeException {

  public OwnerErasedException(OwnerKey owner) {
    super("the owner " + owner + " was erased while the job was under way; nothing was written");
  }
}
