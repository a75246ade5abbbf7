package dev.memstack.host.security;

import dev.memstack.spi.OwnerKey;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * The checks a controller makes once it has parsed who a request is for: the caller's role, its
 * owner binding against the request's owner key, and the rule that a token bound to an owner (one
 * key or a prefix) writes only personal memory of the owners it covers, never shared TEAM or GLOBAL
 * memory. Each check throws {@link AccessDeniedException} (403) with a message that names what was
 * needed. The caller is the one {@link BearerTokenFilter} put on the current request; a request
 * without one (it did not pass the filter) is refused. Work that runs off the request thread (an
 * MCP tool handler) names its caller through {@link #actingAs}, and the same checks apply to it.
 */
public final class AccessPolicy {

  /** What a tool call may write once allowed. */
  public enum ToolScope {
    /** Whatever the tool and its arguments say. */
    ANY,
    /** Only the owner's personal memory: an owner-bound token's write. */
    PERSONAL_ONLY
  }

  /** The caller of {@link #actingAs} on this thread, if any. */
  private static final ThreadLocal<Caller> ACTING = new ThreadLocal<>();

  /**
   * Runs {@code work} on this thread with {@code caller} as the caller of every check, for a front
   * door whose caller is not the servlet request on this thread (the MCP endpoint's tool handlers
   * get it from the MCP transport context).
   */
  public <T> T actingAs(Caller caller, Supplier<T> work) {
    Objects.requireNonNull(caller, "caller");
    Caller outer = ACTING.get();
    ACTING.set(caller);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        ACTING.remove();
      } else {
        ACTING.set(outer);
      }
    }
  }

  /** The caller of the current request (or of {@link #actingAs}). */
  public Caller caller() {
    Caller acting = ACTING.get();
    if (acting != null) {
      return acting;
    }
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    Object caller =
        attributes == null
            ? null
            : attributes.getAttribute(Caller.ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
    return require(caller);
  }

  /** The caller of {@code request}. */
  public static Caller callerOf(HttpServletRequest request) {
    return require(request.getAttribute(Caller.ATTRIBUTE));
  }

  private static Caller require(Object caller) {
    if (caller instanceof Caller known) {
      return known;
    }
    throw new AccessDeniedException("this request carries no authenticated caller");
  }

  /** The caller's role must include {@code needed}. */
  public void requireRole(Role needed) {
    requireRole(caller(), needed);
  }

  static void requireRole(Caller caller, Role needed) {
    if (!caller.role().includes(needed)) {
      throw new AccessDeniedException(
          "this call needs the "
              + needed.wireName()
              + " role; this token has "
              + caller.role().wireName());
    }
  }

  /** The caller may act for {@code owner}. */
  public void requireOwner(OwnerKey owner) {
    Caller caller = caller();
    if (!caller.mayActFor(owner)) {
      throw new AccessDeniedException(
          "this token may act for " + describe(caller.owner()) + " only, not for " + owner.value());
    }
  }

  /** The caller has {@code needed} and may act for {@code owner}. */
  public void requireOwner(OwnerKey owner, Role needed) {
    requireRole(needed);
    requireOwner(owner);
  }

  /** The caller may write shared (TEAM or GLOBAL) memory: its token is bound to no owner. */
  public void requireSharedWrite() {
    Caller caller = caller();
    if (caller.ownerBound()) {
      throw new AccessDeniedException(
          "this token is bound to "
              + describe(caller.owner())
              + " and may not write shared (team or global) memory; write with an ownerKey it"
              + " covers and scope personal");
    }
  }

  /**
   * The caller may erase {@code owner}'s memory: an admin token may erase anyone, a member token
   * bound to owners (one key or a prefix) the owners it covers.
   */
  public void requireErase(OwnerKey owner) {
    Caller caller = caller();
    if (caller.role().includes(Role.ADMIN)) {
      return;
    }
    if (caller.ownerBound() && caller.role().includes(Role.MEMBER) && caller.mayActFor(owner)) {
      return;
    }
    throw new AccessDeniedException(
        "erasing "
            + owner.value()
            + " needs the admin role, or the member role with a token bound to that owner");
  }

  /**
   * Checks one tool call: a read tool ({@link ToolVerbs}) needs {@code viewer}, any other tool
   * {@code member}; an owner given must be one the token covers; an owner-bound token's write needs
   * an owner and may not ask for a {@code scope} other than {@code personal}.
   *
   * @param tool the tool name
   * @param owner the owner the call acts for, or {@code null} (shared memory only)
   * @param scope the call's {@code scope} argument, or {@code null} when absent
   * @return {@link ToolScope#PERSONAL_ONLY} when the call must be kept to personal memory (the
   *     controller then fills in {@code scope: personal} for tools that take a scope)
   */
  public ToolScope requireToolCall(String tool, OwnerKey owner, String scope) {
    boolean read = ToolVerbs.isRead(tool);
    Caller caller = caller();
    requireRole(caller, read ? Role.VIEWER : Role.MEMBER);
    if (owner != null) {
      requireOwner(owner);
    }
    if (read || !caller.ownerBound()) {
      return ToolScope.ANY;
    }
    if (owner == null) {
      throw new AccessDeniedException(
          "this token is bound to "
              + describe(caller.owner())
              + " and may not write shared (team or global) memory: tool "
              + tool
              + " needs an ownerKey the token covers");
    }
    if (scope != null && !scope.toLowerCase(Locale.ROOT).equals("personal")) {
      throw new AccessDeniedException(
          "this token is bound to "
              + describe(caller.owner())
              + " and may only write personal memory, not scope "
              + scope);
    }
    return ToolScope.PERSONAL_ONLY;
  }

  private static String describe(OwnerBinding binding) {
    return binding.isPrefix() ? "owners " + binding.pattern() : binding.pattern();
  }
}
