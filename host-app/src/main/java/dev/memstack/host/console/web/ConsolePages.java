package dev.memstack.host.console.web;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.CacheControl;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves the console: {@code /console/**} from the class path folder {@code console/} (the host
 * serves no other static files, {@code spring.web.resources.add-mappings} is off), {@code
 * /console/} as its {@code index.html}, and {@code /console} redirected to {@code /console/} so
 * that the page's relative module paths resolve. The files are revalidated on every load ({@code
 * Cache-Control: no-cache}), so a host upgrade never serves a stale mix of modules. The bearer
 * token filter lets these paths through without a token ({@code SecurityConfiguration}); {@link
 * ConsoleHeadersFilter} adds the content security policy.
 */
@Configuration(proxyBeanMethods = false)
public class ConsolePages implements WebMvcConfigurer {

  /** The path the console is served under, without its trailing slash. */
  public static final String PATH = "/console";

  @Override
  public void addResourceHandlers(ResourceHandlerRegistry registry) {
    registry
        .addResourceHandler(PATH + "/**")
        .addResourceLocations("classpath:/console/")
        .setCacheControl(CacheControl.noCache());
  }

  @Override
  public void addViewControllers(ViewControllerRegistry registry) {
    registry.addRedirectViewController(PATH, PATH + "/");
    registry.addViewController(PATH + "/").setViewName("forward:" + PATH + "/index.html");
  }

  @Bean
  FilterRegistrationBean<ConsoleHeadersFilter> consoleHeadersFilter() {
    FilterRegistrationBean<ConsoleHeadersFilter> registration =
        new FilterRegistrationBean<>(new ConsoleHeadersFilter());
    // first of all, so that every answer under /console carries the headers, a refusal included
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    registration.addUrlPatterns(PATH, PATH + "/*");
    return registration;
  }
}
