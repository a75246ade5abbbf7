package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.OwnerKey;
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

  @Test
  void readToolsNeedViewerAndWriteToolsMember() {
    as(Role.VIEWER, null);

    assertThat(access.requireToolCall("search_workspace_memory", API_1, "team"))
        .isEqualTo(AccessPolicy.ToolScope.ANY);
    assertThatThrownBy(() -> access.requireToolCall("remember", API_1, null))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("needs the member role");
  }

  @Test
  void anOwnerBoundWriterIsKeptToPersonalMemory() {
    as(Role.MEMBER, "api:1");

    assertThat(access.requireToolCall("remember", API_1, null))
        .isEqualTo(AccessPolicy.ToolScope.PERSONAL_ONLY);
    assertThat(access.requireToolCall("remember", API_1, "Personal"))
        .isEqualTo(AccessPolicy.ToolScope.PERSONAL_ONLY);
    assertThatThrownBy(() -> access.requireToolCall("remember", API_1, "team"))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("may only write personal memory");
    assertThatThrownBy(() -> access.requireToolCall("remember", null, null))
        .isInstanceOf(AccessDeniedException.class)
        .hasMessageContaining("may not write shared");
    assertThatThrownBy(() -> access.requireToolCall("remember", API_2, null))
        .isInstanceOf(AccessDeniedException.class);
    // reading shared memory is what every owner of the agent may do
    assertThat(access.requireToolCall("recall", null, "team"))
        .isEqualTo(AccessPolicy.ToolScope.ANY);
  }

  @Test
  void anUnboundWriterMayWriteSharedMemory() {
    as(Role.MEMBER, null);

    assertThat(access.requireToolCall("remember", null, "global"))
        .isEqualTo(AccessPolicy.ToolScope.ANY);
  }
}
