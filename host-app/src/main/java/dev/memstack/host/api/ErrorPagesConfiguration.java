package dev.memstack.host.api;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every error the host sends is an {@link ApiError}: the container's error report ({@link
 * JsonErrorReportValve}), {@code /error} ({@link JsonErrorController}), dot segments in paths and
 * wildcard or unreadable content types ({@link RequestGuardFilter}).
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
}
