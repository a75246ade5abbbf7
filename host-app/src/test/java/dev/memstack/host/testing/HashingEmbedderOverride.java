package dev.memstack.host.testing;

import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/** Replaces the bundled embedding model by the kit's deterministic one (no model loads). */
@TestConfiguration(proxyBeanMethods = false)
public class HashingEmbedderOverride {

  /** The embedder every test host uses. */
  @Bean
  @Primary
  Embedder testEmbedder() {
    return new HashingEmbedder();
  }
}
