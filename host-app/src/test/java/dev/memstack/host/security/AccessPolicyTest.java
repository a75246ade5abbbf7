package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

class AccessPolicyTest {

  private final AccessPolicy access = new AccessPolicy();

  private static final OwnerKey API_1 = OwnerKey.of("api:1");
  private static final OwnerKey API_2 = OwnerKey.of("api:2");

  @AfterEach
  void clear() {
    RequestContextHolder.resetRequestAttributes();
  }

  private static void as(Role role, String owner) {
    MockHttpServletRequest request = new MockHttpServletRequest();
    request.setAttribute(
        Caller.ATTRIBUTE,
        new Caller("test token", role, owner == null ? null : OwnerBinding.of(owner)));
    RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
  }

  @Test
  void aRequestWithoutACallerIsRefused() {
    assertThatThrownBy(() -> access.requireRole(Role.VIEWER))
        .isInstanceOf(AccessDeniedException.class);
    RequestContextHolder.setRequestAttributes(
        new ServletRequestAttributes(new MockHttpServletRequest()));
    assertThatThrownBy(() -> access.requireRole(Role.VIEWER))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("no authenticated caller");
  }

  @Test
  void rolesIncludeTheLowerOnes() {
    as(Role.MEMBER, null);

    assertThatCode(() -> access.requireRole(Role.VIEWER)).doesNotThrowAnyException();
    assertThatCode(() -> access.requireRole(Role.MEMBER)).doesNotThrowAnyException();
    assertThatThrownBy(() -> access.requireRole(Role.ADMIN))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessage("this call needs the admin role; this token has member");
  }

  @Test
  void anOwnerBoundTokenActsForItsOwnerOnly() {
    as(Role.MEMBER, "api:1");

    assertThatCode(() -> access.requireOwner(API_1, Role.MEMBER)).doesNotThrowAnyException();
    assertThatThrownBy(() -> access.requireOwner(API_2))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessage("this token may act for api:1 only, not for api:2");
    assertThatThrownBy(() -> access.requireOwner(OwnerKey.SYSTEM))
        .isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(access::requireSharedWrite).isInstanceOf(AccessDeniedException.class);
  }

  @Test
  void anUnboundTokenActsForAnyOwnerAndWritesSharedMemory() {
    as(Role.MEMBER, null);

    assertThatCode(() -> access.requireOwner(API_2)).doesNotThrowAnyException();
    assertThatCode(() -> access.requireOwner(OwnerKey.SYSTEM)).doesNotThrowAnyException();
    assertThatCode(access::requireSharedWrite).doesNotThrowAnyException();
  }

  @Test
  void erasureNeedsAnAdminOrAMemberBoundToThatOwner() {
    as(Role.ADMIN, null);
    assertThatCode(() -> access.requireErase(API_2)).doesNotThrowAnyException();

    as(Role.MEMBER, "api:*");
    assertThatCode(() -> access.requireErase(API_2)).doesNotThrowAnyException();
    assertThatThrownBy(() -> access.requireErase(OwnerKey.of("user:2")))
        .isInstanceOf(AccessDeniedException.class);

    as(Role.MEMBER, null);
    assertThatThrownBy(() -> access.requireErase(API_2))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("needs the admin role");

    as(Role.VIEWER, "api:2");
    assertThatThrownBy(() -> access.requireErase(API_2)).isInstanceOf(AccessDeniedException.class);
  }

  private static ToolSpec tool(String name, ToolSpec.Effect effect) {
    return new ToolSpec(name, "a tool", "{\"type\":\"object\"}", effect);
  }

  private static final ToolSpec SEARCH = tool("search_workspace_memory", ToolSpec.Effect.READ);
  private static final ToolSpec REMEMBER = tool("remember", ToolSpec.Effect.WRITE);

  @Test
  void theDeclaredEffectDecidesTheRoleNotTheName() {
    as(Role.VIEWER, null);

    AccessPolicy.ToolAccess read = access.requireToolCall(SEARCH, API_1, "team");
    assertThat(read.writable()).as("a viewer may change nothing").isEmpty();
    assertThat(read.personalOnly()).isFalse();
    assertThatThrownBy(() -> access.requireToolCall(REMEMBER, API_1, null))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("needs the member role");
    // a name that reads like a read does not make a write tool one
    assertThatThrownBy(
            () ->
                access.requireToolCall(
                    tool("list_and_delete", ToolSpec.Effect.DESTRUCTIVE), API_1, null))
        .isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(
            () ->
                access.requireToolCall(tool("get_notes", ToolSpec.Effect.UNDECLARED), API_1, null))
        .as("an undeclared effect counts as destructive")
        .isInstanceOf(AccessDeniedException.class);
    // and a read tool with a write-sounding name is a read
    assertThat(access.requireToolCall(tool("delete_preview", ToolSpec.Effect.READ), API_1, null))
        .isNotNull();
  }

  @Test
  void anOwnerBoundWriterIsKeptToPersonalMemory() {
    as(Role.MEMBER, "api:1");

    AccessPolicy.ToolAccess write = access.requireToolCall(REMEMBER, API_1, null);
    assertThat(write.writable()).containsExactly(Scope.PERSONAL);
    assertThat(write.personalOnly()).isTrue();
    assertThat(access.requireToolCall(REMEMBER, API_1, "Personal").personalOnly()).isTrue();
    assertThatThrownBy(() -> access.requireToolCall(REMEMBER, API_1, "team"))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("may only write personal memory");
    assertThatThrownBy(() -> access.requireToolCall(REMEMBER, null, null))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("may not write shared");
    assertThatThrownBy(() -> access.requireToolCall(REMEMBER, API_2, null))
        .isInstanceOf(AccessDeniedException.class);
    // reading shared memory is what every owner of the agent may do; no scope is filled in
    AccessPolicy.ToolAccess read = access.requireToolCall(SEARCH, null, "team");
    assertThat(read.personalOnly()).isFalse();
    assertThat(read.writable()).containsExactly(Scope.PERSONAL);
  }

  @Test
  void anUnboundWriterOrAnAdminMayWriteEveryScope() {
    as(Role.MEMBER, null);
    assertThat(access.requireToolCall(REMEMBER, null, "global").writable())
        .containsExactlyInAnyOrder(Scope.PERSONAL, Scope.TEAM, Scope.GLOBAL);

    as(Role.ADMIN, null);
    AccessPolicy.ToolAccess admin = access.requireToolCall(REMEMBER, API_2, null);
    assertThat(admin.writable())
        .containsExactlyInAnyOrder(Scope.PERSONAL, Scope.TEAM, Scope.GLOBAL);
    assertThat(admin.personalOnly()).isFalse();
  }
}
