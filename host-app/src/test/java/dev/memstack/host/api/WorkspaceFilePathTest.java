package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.mock.web.MockHttpServletRequest;

@DisplayName("The file path of a workspace route")
class WorkspaceFilePathTest {

  @Test
  @DisplayName("is the raw rest of the URI after .../workspace/files/, percent-decoded once")
  void isTheDecodedRestOfTheRawUri() {
    assertThat(of("/api/v1/agents/a1/workspace/files/memory/2026-04-01.md"))
        .isEqualTo("memory/2026-04-01.md");
    assertThat(of("/api/v1/agents/a%201/workspace/files/notes/caf%C3%A9%20plan.md"))
        .isEqualTo("notes/café plan.md");
    assertThat(WorkspaceFilePath.decode("%E5%92%96%E5%95%A1.md")).isEqualTo("咖啡.md");
    assertThat(WorkspaceFilePath.decode("a+b.md")).isEqualTo("a+b.md");
  }

  @Test
  @DisplayName("ignores the context path the host may run under")
  void ignoresTheContextPath() {
    MockHttpServletRequest request =
        new MockHttpServletRequest("GET", "/memstack/api/v1/agents/a1/workspace/files/MEMORY.md");
    request.setContextPath("/memstack");
    assertThat(WorkspaceFilePath.of(request)).isEqualTo("MEMORY.md");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "../x.md",
        "a/../b.md",
        "a/%2e%2e/b.md",
        "a/%2E%2e/b.md",
        "%2e%2e%2fx.md",
        "./x.md",
        "a/%2e/b.md",
        "%2Fetc%2Fx.md",
        "/etc/x.md",
        "a%5Cb.md",
        "a%5c..%5cb.md",
        "a%00.md",
        "a%0D%0Ab.md",
        "a%7Fb.md",
        "a%C2%85b.md",
        "C%3A%5Cx.md",
        "c:x.md",
        "a/%252e%252e/b.md",
        "a/%25%32%65.md",
        "a//b.md",
        "a/",
        "a%zz.md",
        "a%2.md",
        "%C3%28.md",
        "%FF.md"
      })
  @DisplayName("refuses traversal, absolute paths, backslashes, control characters, bad encodings")
  void refusesUnsafePaths(String raw) {
    BadRequestException error =
        catchThrowableOfType(BadRequestException.class, () -> WorkspaceFilePath.decode(raw));

    assertThat(error).as(raw).isNotNull();
    assertThat(error.field()).isEqualTo("path");
    assertThat(error.getMessage()).startsWith("path ");
  }

  @Test
  @DisplayName("refuses a route without a file")
  void refusesAMissingFile() {
    for (String uri :
        new String[] {"/api/v1/agents/a1/workspace/files", "/api/v1/agents/a1/workspace/files/"}) {
      BadRequestException error = catchThrowableOfType(BadRequestException.class, () -> of(uri));
      assertThat(error).as(uri).isNotNull();
      assertThat(error.getMessage()).contains("required");
    }
  }

  private static String of(String uri) {
    return WorkspaceFilePath.of(new MockHttpServletRequest("GET", uri));
  }
}
