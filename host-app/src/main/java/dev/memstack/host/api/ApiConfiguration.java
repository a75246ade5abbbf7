package dev.memstack.host.api;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.stack.MemoryStack;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import tools.jackson.databind.json.JsonMapper;

/**
 * The API's infrastructure: the request body size limit, the provider health checks and the {@code
 * providers} component of {@code /actuator/health}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiProperties.class)
public class ApiConfiguration {

  @Bean
  FilterRegistrationBean<BodySizeLimitFilter> bodySizeLimitFilter(
      ApiProperties properties, JsonMapper json) {
    FilterRegistrationBean<BodySizeLimitFilter> registration =
        new FilterRegistrationBean<>(
            new BodySizeLimitFilter(
                properties.maxBodyBytes().toBytes(),
                WorkspaceController.importLimits(properties.maxImportBytes().toBytes()),
                json));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 20);
    registration.addUrlPatterns("/*");
    return registration;
  }

  @Bean
  ToolInvoker toolInvoker(
      StackMembers members, ProviderCalls calls, JsonMapper json, AccessPolicy access) {
    return new ToolInvoker(members, calls, json, access);
  }

  @Bean
  CapabilityTools capabilityTools(StackMembers members, ToolInvoker tools) {
    return new CapabilityTools(members, tools);
  }

  @Bean(destroyMethod = "close")
  ProviderHealthChecker providerHealthChecker(ProviderCalls calls, ApiProperties properties) {
    return new ProviderHealthChecker(calls, properties.healthTimeout());
  }

  /** Named {@code ranking}: the component's name in {@code /actuator/health}. */
  @Bean
  RankingHealthIndicator ranking(ObjectProvider<MemoryStack> stack) {
    return new RankingHealthIndicator(stack);
  }

  /** Named {@code providers}: the component's name in {@code /actuator/health}. */
  @Bean
  ProviderHealthIndicator providers(
      StackMembers members, ProviderHealthChecker checker, ObjectProvider<MemoryStack> stack) {
    return new ProviderHealthIndicator(members, checker, stack);
  }
}
