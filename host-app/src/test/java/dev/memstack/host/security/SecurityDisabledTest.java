package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code memstack.security.enabled=false}: every call passes without a token, loudly. */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SecurityDisabledTest {

  private static final Path TEMP = temp();
  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private static Path temp() {
    try {
      return Files.createTempDirectory("memstack-security-off-test");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    Path plugins = TEMP.resolve("plugins");
    FixturePlugin.build(plugins, ">=0.1.0");
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", () -> TEMP.resolve("data").toString());
    registry.add("memstack.providers.builtin.enabled", () -> "false");
    registry.add("memstack.providers.vector.enabled", () -> "false");
    registry.add("memstack.providers.fixture.type", () -> "fixture");
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    registry.add("memstack.security.enabled", () -> "false");
  }

  @AfterAll
  static void cleanUp() throws IOException {
    FileSystemUtils.deleteRecursively(TEMP);
  }

  @TestConfiguration
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder testEmbedder() {
      return new HashingEmbedder();
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(
        request.timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
  }

  @Test
  void callsWithoutATokenGoThroughAsAnAdminAndTheStartWarned(CapturedOutput output)
      throws Exception {
    HttpResponse<String> plugins = send(request("/api/v1/plugins").GET());
    HttpResponse<String> providers = send(request("/api/v1/providers").GET());
    HttpResponse<String> turn =
        send(
            request("/api/v1/agents/a1/memory/turns")
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"ownerKey\":\"api:1\",\"conversationId\":\"c1\",\"userMessage\":\"hi\","
                            + "\"assistantReply\":\"ok\",\"triggerSource\":\"api\"}")));
    HttpResponse<String> anyToken =
        send(request("/api/v1/plugins").header("Authorization", "Bearer whatever").GET());
    JsonNode health = JSON.readTree(send(request("/actuator/health").GET()).body());

    assertThat(plugins.statusCode()).as(plugins.body()).isEqualTo(200);
    assertThat(providers.statusCode()).as(providers.body()).isEqualTo(200);
    assertThat(turn.statusCode()).as(turn.body()).isEqualTo(202);
    assertThat(anyToken.statusCode()).isEqualTo(200);
    assertThat(health.has("components")).isTrue();
    assertThat(TEMP.resolve("data").resolve("api-token")).doesNotExist();
    assertThat(output).contains("WARN").contains("API AUTHENTICATION IS OFF");
  }
}
