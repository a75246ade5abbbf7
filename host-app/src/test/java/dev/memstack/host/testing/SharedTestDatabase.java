package dev.memstack.host.testing;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.testing.TestPostgres;
import java.time.Duration;

/**
 * A schema of its own on the test database ({@link TestPostgres}: {@code MEMSTACK_PG_URL}, {@code
 * MEMSTACK_PG_USER}, {@code MEMSTACK_PG_PASSWORD}) for shared-mode tests: every "host" of a test
 * opens its own {@link SharedStore} on it. Skips the test without the variable, fails it on CI.
 */
public record SharedTestDatabase(TestPostgres postgres, String schema) {

  public static SharedTestDatabase create() {
    TestPostgres postgres = TestPostgres.fromEnvironment();
    return new SharedTestDatabase(postgres, postgres.createSchema("shared_"));
  }

  public String url() {
    return postgres.url();
  }

  public String user() {
    return postgres.user();
  }

  public String password() {
    return postgres.password();
  }

  /** The properties of one host: the URL with this schema as its current schema. */
  public SharedProperties properties() {
    return new SharedProperties(
        postgres.urlWithSchema(schema), user(), password(), 4, Duration.ofSeconds(3));
  }

  /** A new pool on the schema, as one host opens it. */
  public SharedStore openHost() {
    return new SharedStore(properties());
  }

  public void drop() {
    postgres.dropSchema(schema);
  }

  public void execute(String sql) {
    postgres.execute(sql);
  }
}
