package dev.memstack.host.api;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every error the host sends is an {@link ApiError}: the container's error report ({@link
 * JsonErrorReportValve}), {@code /error} ({@link JsonErrorController}), dot segments in paths and
 * wildcard or unreadable content types ({@link RequestGuardFilter}), Actuator's errors sent without
 * a body ({@link EmptyErrorBodyFilter}) and JSON bodies that are not valid UTF-8 ({@link
 * Utf8BodyAdvice}).
 */
@Configuration(proxyBeanMethods = false)
public class ErrorPagesConfiguration {

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> jsonErrorReports() {
    return factory ->
        factory.addContextCustomizers(
            context -> {
              if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(JsonErrorReportValve.class.getName());
              }
            });
  }

  @Bean
  FilterRegistrationBean<RequestGuardFilter> requestGuardFilter(JsonMapper json) {
    FilterRegistrationBean<RequestGuardFilter> registration =
        new FilterRegistrationBean<>(new RequestGuardFilter(json));
    // after the bearer token filter (+10): an unauthenticated request is answered 401 first
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 15);
    registration.addUrlPatterns("/*");
    return registration;
  }

  @Bean
  FilterRegistrationBean<EmptyErrorBodyFilter> emptyErrorBodyFilter(
      JsonMapper json, Environment environment) {
    FilterRegistrationBean<EmptyErrorBodyFilter> registration =
        new FilterRegistrationBean<>(new EmptyErrorBodyFilter(json));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 20);
    // Actuator's endpoints answer some errors with no body; the API's own routes always write one
    String actuator = environment.getProperty("management.endpoints.web.base-path", "/actuator");
    registration.addUrlPatterns(actuator + "/*");
    return registration;
  }
}
