package dev.memstack.spi;

import java.util.Objects;

/**
 * The database that every host of a deployment shares ({@code memstack.shared.jdbc-url}, {@code
 * .username}, {@code .password}). A provider that keeps state takes it as the default place for
 * that state, so one switch puts every host's memory in one place; a provider that can only keep
 * state on local disk refuses to start in shared mode, naming the key that chose its local store.
 *
 * @param jdbcUrl a {@code jdbc:postgresql:} URL
 * @param username the user, or {@code null} for the URL's or the driver's default
 * @param password the password, or {@code null}; never printed by {@link #toString()}
 * @since 0.3.0
 */
public record SharedDatabase(String jdbcUrl, String username, String password) {

  public SharedDatabase {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "memstack.shared.jdbc-url must start with jdbc:postgresql:");
    }
  }

  @Override
  public String toString() {
    int query = jdbcUrl.indexOf('?');
    String shown = query < 0 ? jdbcUrl : jdbcUrl.substring(0, query) + "?…";
    return "SharedDatabase[" + shown + ", user=" + username + "]";
  }
}
