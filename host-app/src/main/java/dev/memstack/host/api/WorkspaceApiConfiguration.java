package dev.memstack.host.api;

import jakarta.servlet.MultipartConfigElement;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.servlet.autoconfigure.MultipartProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.multipart.support.StandardServletMultipartResolver;

/**
 * Multipart uploads for the workspace snapshot import: the container's multipart limits become
 * {@code memstack.api.max-import-bytes} (Boot's {@code spring.servlet.multipart.max-file-size} and
 * {@code max-request-size} would refuse a 16 MiB snapshot; their location and in-memory threshold
 * still apply), and multipart bodies are parsed lazily, only by a route that reads a part, so no
 * other route spends time or disk on one. With {@code spring.servlet.multipart.enabled=false} the
 * import takes raw {@code application/zip} bodies only.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "spring.servlet.multipart.enabled", matchIfMissing = true)
public class WorkspaceApiConfiguration {

  @Bean
  MultipartConfigElement multipartConfigElement(
      ObjectProvider<MultipartProperties> multipart, ApiProperties properties) {
    MultipartConfigElement configured =
        multipart.getIfAvailable(MultipartProperties::new).createMultipartConfig();
    long limit = properties.maxImportBytes().toBytes();
    return new MultipartConfigElement(
        configured.getLocation(), limit, limit, configured.getFileSizeThreshold());
  }

  /** Named like Boot's resolver, which it replaces. */
  @Bean(name = "multipartResolver")
  StandardServletMultipartResolver multipartResolver(
      ObjectProvider<MultipartProperties> multipart) {
    StandardServletMultipartResolver resolver = new StandardServletMultipartResolver();
    resolver.setResolveLazily(true);
    resolver.setStrictServletCompliance(
        multipart.getIfAvailable(MultipartProperties::new).isStrictServletCompliance());
    return resolver;
  }
}
