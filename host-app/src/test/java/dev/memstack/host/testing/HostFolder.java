package dev.memstack.host.testing;

import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.security.SecurityProperties;
import dev.memstack.host.security.TestTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.util.FileSystemUtils;

/**
 * The folders and properties of a test host: a new temporary folder with a {@code plugins} folder
 * (filled with the plugin zips a test asks for) and a {@code data} folder, and the {@code
 * memstack.*} properties that point the host at them. As a static {@code @RegisterExtension} field
 * of a {@link HostTest} it gives the host its properties and deletes its folder after the class.
 */
public final class HostFolder implements AfterAllCallback {

  private final Path root;
  private final Map<String, Supplier<Object>> properties = new LinkedHashMap<>();

  private HostFolder(Path root) {
    this.root = root;
    with("memstack.plugins.dir", plugins().toString());
    with("memstack.data-dir", data().toString());
    with("memstack.models.onnx.warm-up", "false");
  }

  /** A new temporary folder named after {@code name}, with no plugin and no token yet. */
  public static HostFolder create(String name) {
    try {
      return new HostFolder(Files.createTempDirectory("memstack-" + name + "-test"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A host folder with the real builtin plugin only (vector and mem0 off), the admin token and
   * patient deadlines.
   */
  public static HostFolder builtinOnly(String name) {
    return create(name)
        .withPlugins("builtin")
        .disabled("vector", "mem0")
        .adminToken()
        .patientDeadlines();
  }

  /** A host folder with the three real plugins, the admin token and patient deadlines. */
  public static HostFolder allPlugins(String name) {
    return create(name).withAllPlugins().adminToken().patientDeadlines();
  }

  /** A host folder with the test fixture plugin as the only provider. */
  public static HostFolder fixtureOnly(String name) {
    return create(name)
        .withFixturePlugin()
        .disabled("builtin", "vector")
        .with("memstack.providers.fixture.type", "fixture");
  }

  /** Copies the real plugin zips {@code names} ({@code builtin}, {@code vector}, {@code mem0}). */
  public HostFolder withPlugins(String... names) {
    PluginZips.copyTo(plugins(), names);
    return this;
  }

  /** Copies the three real plugin zips. */
  public HostFolder withAllPlugins() {
    PluginZips.copyAllTo(plugins());
    return this;
  }

  /** Builds the test fixture plugin into the plugins folder. */
  public HostFolder withFixturePlugin() {
    FixturePlugin.build(plugins(), ">=0.1.0");
    return this;
  }

  /** Turns the configured providers {@code ids} off. */
  public HostFolder disabled(String... ids) {
    for (String id : ids) {
      with("memstack.providers." + id + ".enabled", "false");
    }
    return this;
  }

  /** {@link TestTokens#ADMIN} as the host's only token. */
  public HostFolder adminToken() {
    TestTokens.admin(properties::put);
    return this;
  }

  /** {@code tokens} as the host's tokens, each {@code {token, role, owner or null}}. */
  public HostFolder tokens(String[]... tokens) {
    TestTokens.configure(properties::put, tokens);
    return this;
  }

  /**
   * One more token after those configured so far: {@code token} with {@code role}, bound to {@code
   * owner} (or to none if null).
   */
  public HostFolder addToken(String token, String role, String owner) {
    int index = 0;
    while (properties.containsKey(SecurityProperties.key(index) + ".token")) {
      index++;
    }
    String key = SecurityProperties.key(index);
    with(key + ".token", token);
    with(key + ".role", role);
    return owner == null ? this : with(key + ".owner", owner);
  }

  /**
   * Deadlines long enough for the first (cold) provider calls on a busy build machine, for tests
   * that are not about deadlines.
   */
  public HostFolder patientDeadlines() {
    with("memstack.stack.context.provider-timeout", "5s");
    with("memstack.stack.context.deadline", "8s");
    return with("memstack.stack.system-prompt.timeout", "5s");
  }

  /** Sets one property. */
  public HostFolder with(String key, String value) {
    properties.put(key, () -> value);
    return this;
  }

  /** Leaves property {@code key} to the host's own default again. */
  public HostFolder without(String key) {
    properties.remove(key);
    return this;
  }

  /** Sets one property whose value is read when the host starts. */
  public HostFolder with(String key, Supplier<Object> value) {
    properties.put(key, value);
    return this;
  }

  /** Adds every property to {@code registry}, for a {@code DynamicPropertySource}. */
  public void register(DynamicPropertyRegistry registry) {
    properties.forEach(registry::add);
  }

  /** The properties with their values, in the order they were set. */
  public Map<String, String> properties() {
    Map<String, String> values = new LinkedHashMap<>();
    properties.forEach((key, value) -> values.put(key, String.valueOf(value.get())));
    return values;
  }

  public Path root() {
    return root;
  }

  public Path plugins() {
    return root.resolve("plugins");
  }

  public Path data() {
    return root.resolve("data");
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    delete();
  }

  /**
   * Deletes the folder, best effort: the cached application context of a test class may still be
   * finishing background writes (index commits) into it, so a failed attempt is retried a few times
   * and then given up; a leftover temporary folder is no test failure.
   */
  public void delete() throws InterruptedException {
    for (int attempt = 0; attempt < 5; attempt++) {
      try {
        FileSystemUtils.deleteRecursively(root);
        return;
      } catch (IOException e) {
        Thread.sleep(200);
      }
    }
  }
}
