package dev.memstack.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shipped host, started from the built distribution as {@code java -jar dist/memstack.jar} in a
 * child process: a free loopback port, a fresh data folder, the distribution's plugins, an admin
 * token (for the test's own look-ups) and a member token bound to the owners {@code api:*} (what a
 * platform gives its application). Its log goes to {@code target/memstack-host.log}.
 */
final class DistHost implements AutoCloseable {

  static final String ADMIN_TOKEN = "it-admin-token-0123456789abcdef";
  static final String PLATFORM_TOKEN = "it-platform-token-0123456789abcdef";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Process process;
  private final Path root;
  private final Path log;
  private final int port;
  private final HttpClient http = HttpClient.newHttpClient();

  private DistHost(Process process, Path root, Path log, int port) {
    this.process = process;
    this.root = root;
    this.log = log;
    this.port = port;
  }

  /** Starts the distribution and returns once its health is {@code UP}. */
  static DistHost start(Map<String, String> properties) throws IOException {
    return start("memstack-host", properties);
  }

  /** Starts the distribution with its log in {@code target/<name>.log}. */
  static DistHost start(String name, Map<String, String> properties) throws IOException {
    Path dist = distribution();
    List<String> command = new ArrayList<>();
    command.add(java());
    command.add("-jar");
    command.add(dist.resolve("memstack.jar").toString());
    return start(name, command, Map.of(), Files.createTempDirectory("memstack-it-"), properties);
  }

  /**
   * Starts the host with {@code command} (a {@code java -jar} or the distribution's launcher) and
   * the given extra environment, in {@code root} (its data folder and plugins go there too), and
   * returns once its health is {@code UP}.
   */
  static DistHost start(
      String name,
      List<String> launch,
      Map<String, String> environment,
      Path root,
      Map<String, String> properties)
      throws IOException {
    Path dist = distribution();
    Path log = Path.of("target", name + ".log").toAbsolutePath();
    Files.createDirectories(log.getParent());
    int port = freePort();
    List<String> command = new ArrayList<>(launch);
    Map<String, String> args = new java.util.LinkedHashMap<>();
    args.put("server.address", "127.0.0.1");
    args.put("server.port", String.valueOf(port));
    args.put("memstack.plugins.dir", copyPlugins(dist, root.resolve("plugins")).toString());
    args.put("memstack.data-dir", root.resolve("data").toString());
    args.put("memstack.security.tokens[0].token", ADMIN_TOKEN);
    args.put("memstack.security.tokens[0].role", "admin");
    args.put("memstack.security.tokens[1].token", PLATFORM_TOKEN);
    args.put("memstack.security.tokens[1].role", "member");
    args.put("memstack.security.tokens[1].owner", "api:*");
    args.putAll(properties);
    args.forEach((key, value) -> command.add("--" + key + "=" + value));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().putAll(environment);
    Process process = builder.start();
    DistHost host = new DistHost(process, root, log, port);
    try {
      host.awaitUp(Duration.ofSeconds(120));
    } catch (RuntimeException | Error e) {
      host.close();
      throw e;
    }
    return host;
  }

  /** The java command of the JVM running the tests. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** The distribution folder, or a failure that says how to build it. */
  static Path distribution() {
    String configured = System.getProperty("memstack.dist");
    Path dist = Path.of(configured == null ? "../dist" : configured).toAbsolutePath().normalize();
    Path jar = dist.resolve("memstack.jar");
    Path plugins = dist.resolve("plugins");
    boolean hasPlugins;
    try (Stream<Path> zips = Files.isDirectory(plugins) ? Files.list(plugins) : Stream.empty()) {
      hasPlugins = zips.anyMatch(p -> p.toString().endsWith(".zip"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!Files.isRegularFile(jar) || !hasPlugins) {
      throw new AssertionError(
          "the end-to-end test needs the built distribution, but "
              + (Files.isRegularFile(jar) ? plugins + " has no plugin zip" : jar + " is missing")
              + ". Build it first: ./mvnw -B package -DskipTests (or run ./mvnw -B verify from the"
              + " root, which packages host-app before this module)");
    }
    return dist;
  }

  /**
   * The distribution's plugin zips, copied: the host expands a zip into its plugins folder, and the
   * build's {@code dist/} is left as it was built.
   */
  static Path copyPlugins(Path dist, Path plugins) throws IOException {
    Files.createDirectories(plugins);
    try (Stream<Path> zips = Files.list(dist.resolve("plugins"))) {
      for (Path zip : zips.filter(p -> p.toString().endsWith(".zip")).toList()) {
        Files.copy(zip, plugins.resolve(zip.getFileName()));
      }
    }
    return plugins;
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** {@code GET path} with the admin token, as JSON; fails on a status other than 200. */
  JsonNode adminGet(String path) {
    HttpResponse<String> response = get(path, ADMIN_TOKEN);
    if (response.statusCode() != 200) {
      throw new AssertionError(
          "GET " + path + " answered " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  /** Turns delivered to {@code provider} since the host started; -1 while some still wait. */
  long delivered(String provider) {
    for (JsonNode backlog : adminGet("/api/v1/outbox").path("providers")) {
      if (provider.equals(backlog.path("id").asString())) {
        return backlog.path("pending").asInt() == 0 ? backlog.path("delivered").asLong() : -1;
      }
    }
    return 0;
  }

  /** {@code POST path} with a JSON body and {@code token}; an unreachable host throws. */
  HttpResponse<String> post(String path, String token, String json) {
    return send(
        HttpRequest.newBuilder(url().resolve(path))
            .timeout(Duration.ofSeconds(15))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  /** {@code method path} with an optional JSON body and {@code token}. */
  HttpResponse<String> call(String method, String path, String token, String json) {
    return send(
        HttpRequest.newBuilder(url().resolve(path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .method(
                method,
                json == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  /** Kills the host the hard way ({@code kill -9}: no shutdown hook, no lease given back). */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The host's data folder ({@code memstack.data-dir}). */
  Path dataDir() {
    return root.resolve("data");
  }

  /** The host's process id, for logs. */
  long pid() {
    return process.pid();
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<String> get(String path, String token) {
    return send(
        HttpRequest.newBuilder(url().resolve(path))
            .timeout(Duration.ofSeconds(10))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build());
  }

  private void awaitUp(Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    String last = "no answer yet";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError(
            "the host exited with " + process.exitValue() + " before it was up:\n" + logTail());
      }
      try {
        HttpResponse<String> health = get("/actuator/health", ADMIN_TOKEN);
        last = health.statusCode() + " " + health.body();
        if (health.statusCode() == 200
            && "UP".equals(JSON.readTree(health.body()).path("status").asString())) {
          return;
        }
      } catch (UncheckedIOException e) {
        last = e.getCause().toString();
      }
      sleep(250);
    }
    throw new AssertionError(
        "the host was not UP within " + limit + " (last health: " + last + "):\n" + logTail());
  }

  /** The host's whole log so far. */
  String logText() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The end of the host's log, for failure messages. */
  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops the child process (SIGTERM, then SIGKILL after 20 s) and deletes its data folder. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      FileSystemUtils.deleteRecursively(root);
    } catch (IOException e) {
      // a leftover temporary folder is no test failure
    }
  }
}
