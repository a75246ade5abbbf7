package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class ApiTokenFileTest {

  @TempDir Path dir;

  @Test
  void aNewTokenIs32RandomBytesInBase64UrlInAnOwnerOnlyFile(CapturedOutput output)
      throws Exception {
    ApiTokenFile file = ApiTokenFile.in(dir.resolve("data"));

    String token = file.loadOrCreate();

    assertThat(token).hasSize(43).matches("[A-Za-z0-9_-]{43}");
    assertThat(file.path()).isEqualTo(dir.resolve("data").resolve("api-token"));
    assertThat(Files.readString(file.path()).strip()).isEqualTo(token);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.path())))
        .isEqualTo("rw-------");
    assertThat(output).contains(file.path().toString()).doesNotContain(token);
  }

  @Test
  void theTokenIsReusedOnTheNextStartAndNeverLogged(CapturedOutput output) {
    String first = ApiTokenFile.in(dir).loadOrCreate();

    String second = ApiTokenFile.in(dir).loadOrCreate();

    assertThat(second).isEqualTo(first);
    assertThat(output).contains("using the admin token in").doesNotContain(first);
  }

  @Test
  void twoHostsGetDifferentTokens() {
    assertThat(ApiTokenFile.in(dir.resolve("a")).loadOrCreate())
        .isNotEqualTo(ApiTokenFile.in(dir.resolve("b")).loadOrCreate());
  }

  @Test
  void anEmptyFileLeftByAnInterruptedStartGetsATokenAndOwnerOnlyPermissions() throws Exception {
    Path path = dir.resolve("api-token");
    Files.createFile(
        path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));

    String token = ApiTokenFile.in(dir).loadOrCreate();

    assertThat(token).hasSize(43);
    assertThat(Files.readString(path).strip()).isEqualTo(token);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path)))
        .isEqualTo("rw-------");
  }

  @Test
  void aTokenFileReadableByOthersIsMadeOwnerOnlyWithAWarning(CapturedOutput output)
      throws Exception {
    String token = ApiTokenFile.in(dir).loadOrCreate();
    Path path = dir.resolve("api-token");
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));

    assertThat(ApiTokenFile.in(dir).loadOrCreate()).isEqualTo(token);

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path)))
        .isEqualTo("rw-------");
    assertThat(output).contains("was accessible to others (rw-r--r--)").doesNotContain(token);
  }
}
