package dev.memstack.host.api;

import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.security.TestTokens;
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
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP side of the capability-route tests: an admin client for one running host, and the
 * settings of a host whose plugins come from the build, without the instance {@code builtin}.
 */
final class CapabilityRoutesClient {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http = HttpClient.newHttpClient();
  private final int port;

  CapabilityRoutesClient(int port) {
    this.port = port;
  }

  record Answer(int status, JsonNode json, String body) {
    String message() {
      return json.get("message").asString();
    }
  }

  /** A host with the build's plugins, a temp data dir and an admin token; builtin disabled. */
  static Path withoutBuiltin(DynamicPropertyRegistry registry, String name) {
    Path temp;
    try {
      temp = Files.createTempDirectory(name);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    Path plugins = PluginZips.copyAllTo(temp.resolve("plugins"));
    registry.add("memstack.plugins.dir", plugins::toString);
    registry.add("memstack.data-dir", () -> temp.resolve("data").toString());
    registry.add("memstack.models.onnx.warm-up", () -> "false");
    registry.add("memstack.providers.builtin.enabled", () -> "false");
    TestTokens.admin(registry);
    return temp;
  }

  /** The deterministic embedder instead of the ONNX model. */
  @TestConfiguration
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder testEmbedder() {
      return new HashingEmbedder();
    }
  }

  Answer get(String path) {
    return send(request(path).GET());
  }

  Answer post(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  Answer put(String path, String body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", TestTokens.bearer(TestTokens.ADMIN))
        .timeout(Duration.ofSeconds(30));
  }

  private Answer send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode json = response.body().isEmpty() ? null : JSON.readTree(response.body());
      return new Answer(response.statusCode(), json, response.body());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
