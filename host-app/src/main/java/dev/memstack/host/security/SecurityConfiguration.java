package dev.memstack.host.security;

import dev.memstack.host.console.web.ConsolePages;
import dev.memstack.host.plugin.PluginHostProperties;
import dev.memstack.host.shared.SharedStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Wires authentication and authorisation: the known tokens ({@code memstack.security.tokens}, or
 * the generated admin token in {@code <memstack.data-dir>/api-token}, and the {@link ManagedTokens}
 * an admin makes through the API: in {@code <memstack.data-dir>/api-tokens.json}, or in the shared
 * database in shared mode), the {@link BearerTokenFilter} ahead of every other filter of the host,
 * {@link OpenStreams} right behind it (so a revoked token's open streams end), the {@link
 * RequiresRole} check on {@code /api/**} and the {@link AccessPolicy} bean. With {@code
 * memstack.security.enabled=false} no token file is touched, every request passes as an admin, and
 * a warning says so at start. In shared mode ({@code memstack.shared.jdbc-url}) tokens must be
 * configured: no token is generated.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SecurityProperties.class)
public class SecurityConfiguration implements WebMvcConfigurer {

  private static final Logger log = LoggerFactory.getLogger(SecurityConfiguration.class);

  @Bean
  AccessPolicy accessPolicy() {
    return new AccessPolicy();
  }

  /** The known tokens; reading or creating the generated token file happens here, once. */
  @Bean
  BearerTokens apiTokens(
      SecurityProperties security,
      PluginHostProperties host,
      Environment environment,
      ManagedTokens managed) {
    return tokens(security, host.dataDir(), environment).withManaged(managed);
  }

  /**
   * The tokens made through the API: in the shared database when there is one, else in the data
   * directory.
   */
  @Bean(destroyMethod = "close")
  ManagedTokens managedTokens(
      PluginHostProperties host, ObjectProvider<SharedStore> shared, JsonMapper json) {
    SharedStore database = shared.getIfAvailable();
    TokenStore store =
        database != null
            ? new PostgresTokenStore(database)
            : new FileTokenStore(host.dataDir(), json);
    return new ManagedTokens(store, Clock.systemUTC());
  }

  /** The open streams of managed tokens, closed when the token is revoked. */
  @Bean
  FilterRegistrationBean<OpenStreams> openStreams(ManagedTokens managed) {
    OpenStreams streams = new OpenStreams();
    managed.onRevoked(streams::end);
    FilterRegistrationBean<OpenStreams> registration = new FilterRegistrationBean<>(streams);
    // right behind the bearer token filter (+10), which names the caller
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 11);
    registration.addUrlPatterns("/*");
    return registration;
  }

  @Bean
  FilterRegistrationBean<BearerTokenFilter> bearerTokenFilter(
      BearerTokens tokens, Environment environment, JsonMapper json) {
    FilterRegistrationBean<BearerTokenFilter> registration =
        new FilterRegistrationBean<>(new BearerTokenFilter(tokens, pathRules(environment), json));
    // ahead of the body size limit (+20): an unauthenticated request is answered before its body
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
    registration.addUrlPatterns("/*");
    return registration;
  }

  /**
   * Open: the health endpoint, the OpenAPI document ({@code springdoc.api-docs.path}, also as
   * {@code .yaml}), the Swagger UI ({@code springdoc.swagger-ui.path} and its {@code
   * /swagger-ui/**} files) and the console's static files ({@code /console/**}: the page asks for
   * the token and sends it with every API call). Admin only: the Prometheus scrape.
   */
  static PathRules pathRules(Environment environment) {
    String actuator = environment.getProperty("management.endpoints.web.base-path", "/actuator");
    String apiDocs = environment.getProperty("springdoc.api-docs.path", "/v3/api-docs");
    String swaggerUi = environment.getProperty("springdoc.swagger-ui.path", "/swagger-ui.html");
    return new PathRules(
        List.of(
            actuator + "/" + endpointPath(environment, "health"),
            apiDocs,
            apiDocs + ".yaml",
            swaggerUi,
            "/swagger-ui",
            ConsolePages.PATH),
        List.of(actuator + "/" + endpointPath(environment, "prometheus")));
  }

  private static String endpointPath(Environment environment, String endpoint) {
    return environment.getProperty("management.endpoints.web.path-mapping." + endpoint, endpoint);
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    registry.addInterceptor(new AccessInterceptor()).addPathPatterns("/api/**");
  }

  /** The known tokens, or {@link BearerTokens#off()}. */
  static BearerTokens tokens(SecurityProperties security, Path dataDir, Environment environment) {
    if (!security.enabled()) {
      log.warn(
          "API AUTHENTICATION IS OFF (memstack.security.enabled=false): every request acts as an"
              + " admin for every owner, and anyone who can reach {}:{} can read, change and"
              + " erase all memory. Use this for local tests only.",
          environment.getProperty("server.address", "0.0.0.0"),
          environment.getProperty("server.port", "8080"));
      return BearerTokens.off();
    }
    if (security.tokens().isEmpty()) {
      refuseGeneratedTokenInSharedMode(dataDir, environment);
      String token = ApiTokenFile.in(dataDir).loadOrCreate();
      return BearerTokens.generatedAdmin(token, "generated admin token");
    }
    BearerTokens tokens = BearerTokens.configured(security.tokens());
    log.info("API authentication: {}", summary(tokens.callers()));
    return tokens;
  }

  /**
   * In shared mode every host must accept the same tokens, and a token generated into one host's
   * data dir would differ on every host: tokens then come from configuration only.
   */
  private static void refuseGeneratedTokenInSharedMode(Path dataDir, Environment environment) {
    String sharedUrl = environment.getProperty("memstack.shared.jdbc-url");
    if (sharedUrl == null || sharedUrl.isBlank()) {
      return;
    }
    throw new IllegalStateException(
        "memstack.security.tokens is required in shared mode (memstack.shared.jdbc-url is set):"
            + " without it each host would generate its own admin token into its data dir ("
            + ApiTokenFile.in(dataDir).path()
            + "), and a token one host gave out would be refused by the others. Configure the"
            + " same tokens on every host (memstack.security.tokens[0].token and"
            + " memstack.security.tokens[0].role, or MEMSTACK_SECURITY_TOKENS_0_TOKEN and"
            + " MEMSTACK_SECURITY_TOKENS_0_ROLE; an existing api-token file's token can be"
            + " copied there), or set memstack.security.enabled=false for local tests only");
  }

  private static String summary(List<Caller> callers) {
    Map<String, Long> roles =
        callers.stream()
            .collect(
                Collectors.groupingBy(
                    c -> c.role().wireName(), TreeMap::new, Collectors.counting()));
    long bound = callers.stream().filter(Caller::ownerBound).count();
    return callers.size()
        + (callers.size() == 1 ? " token" : " tokens")
        + " from memstack.security.tokens ("
        + roles.entrySet().stream()
            .map(e -> e.getValue() + " " + e.getKey())
            .collect(Collectors.joining(", "))
        + "; "
        + bound
        + " bound to owners)";
  }
}
