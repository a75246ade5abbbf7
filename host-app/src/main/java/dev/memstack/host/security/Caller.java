package dev.memstack.host.security;

import dev.memstack.spi.OwnerKey;
import java.security.Principal;
import java.util.Objects;

/**
 * Who sent the current request: the role and owner binding of the token it carried. It is the
 * request's {@link Principal} (so Actuator shows health details to any caller with a token) and is
 * never a secret: {@code name} names the token ({@code memstack.security.tokens[1]}, or the name a
 * managed token was given), never its value.
 *
 * @param name how the token is named in logs and messages, never {@code null}
 * @param role what the token may do, never {@code null}
 * @param owner the owners the token may act for, or {@code null} for any owner
 * @param tokenId the id of a managed token ({@link ManagedTokens}), {@code null} for a configured
 *     or generated one
 */
public record Caller(String name, Role role, OwnerBinding owner, String tokenId)
    implements Principal {

  /** The request attribute that holds the caller of a request. */
  public static final String ATTRIBUTE = Caller.class.getName();

  /** The source of a configured or generated token. */
  public static final String CONFIGURATION = "configuration";

  /** The source of a token made through the API ({@link ManagedTokens}). */
  public static final String API = "api";

  public Caller {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
  }

  /** The caller of a configured or generated token. */
  public Caller(String name, Role role, OwnerBinding owner) {
    this(name, role, owner, null);
  }

  /** Where the token comes from: {@link #API} or {@link #CONFIGURATION}. */
  public String source() {
    return tokenId == null ? CONFIGURATION : API;
  }

  /**
   * What tells the token from every other (managed token names need not be unique): the managed
   * token's {@code ms_<id>}, else the name.
   */
  public String identity() {
    return tokenId == null ? name : ManagedTokens.PREFIX + tokenId;
  }

  /**
   * Who made a change, for histories ({@code ToolCall.actor}): the name, and a managed token's id
   * beside its name, which its creator chose.
   */
  public String actor() {
    return tokenId == null ? name : name + " (" + ManagedTokens.PREFIX + tokenId + ")";
  }

  /**
   * The caller of every request while checking is off ({@code memstack.security.enabled=false}).
   */
  public static Caller unchecked() {
    return new Caller("anyone (memstack.security.enabled=false)", Role.ADMIN, null);
  }

  @Override
  public String getName() {
    return name;
  }

  /** Whether the token is limited to one owner or one owner-key prefix. */
  public boolean ownerBound() {
    return owner != null;
  }

  /** Whether the token may act for {@code owner}. */
  public boolean mayActFor(OwnerKey owner) {
    return this.owner == null || this.owner.covers(owner);
  }
}
