package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.Embedder.Kind;
import dev.memstack.tck.HashingEmbedder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

class LazyModelPortsTest {

  // a registry of its own: the global one also counts the embedding of tests running alongside
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void embeddingCallsOfProvidersAreTimedAndCountedByKind() {
    StaticListableBeanFactory beans = new StaticListableBeanFactory();
    beans.addBean("embedder", new HashingEmbedder());
    Embedder embedder = LazyModelPorts.embedder(beans.getBeanProvider(Embedder.class), registry);

    embedder.embed(List.of("one", "two", "three"), Kind.PASSAGE);
    embedder.embedQuery("what?");

    assertThat(registry.get(LazyModelPorts.EMBEDDED_TEXTS).tag("kind", "passage").counter().count())
        .isEqualTo(3.0);
    assertThat(registry.get(LazyModelPorts.EMBEDDED_TEXTS).tag("kind", "query").counter().count())
        .isEqualTo(1.0);
    assertThat(registry.get(LazyModelPorts.EMBEDDING_TIMER).tag("kind", "passage").timer().count())
        .isEqualTo(1);
  }
}
