package dev.memstack.outbox;

import dev.memstack.spi.OwnerKey;
import java.util.List;
import java.util.Objects;

/**
 * The answer of an owner erasure.
 *
 * @param owner the erased owner
 * @param providers one outcome per configured provider, in stack order
 */
public record OwnerErasure(OwnerKey owner, List<ProviderErasure> providers) {

  public OwnerErasure {
    Objects.requireNonNull(owner, "owner");
    providers = List.copyOf(providers);
  }
}
