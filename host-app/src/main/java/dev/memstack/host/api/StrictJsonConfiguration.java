package dev.memstack.host.api;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.StreamReadFeature;

/**
 * The host's JSON is strict: a body that gives one key twice is a 400 naming the key (Jackson's
 * strict duplicate detection), not "the last one wins".
 */
@Configuration(proxyBeanMethods = false)
public class StrictJsonConfiguration {

  @Bean
  JsonMapperBuilderCustomizer strictDuplicateKeys() {
    return builder -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
  }
}
