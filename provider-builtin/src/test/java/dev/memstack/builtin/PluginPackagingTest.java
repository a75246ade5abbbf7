package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.MemoryProviderFactory;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PluginPackagingTest {

  @Test
  @DisplayName("the factory is a PF4J extension of type builtin listed in extensions.idx")
  void theFactoryIsListedAsAnExtension() throws Exception {
    // The test classes have an (empty) index of their own, so read every copy on the class path.
    StringBuilder index = new StringBuilder();
    var urls =
        BuiltinMemoryProviderFactory.class.getClassLoader().getResources("META-INF/extensions.idx");
    while (urls.hasMoreElements()) {
      try (InputStream in = urls.nextElement().openStream()) {
        index.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
      }
    }
    assertThat(index.toString().lines()).contains(BuiltinMemoryProviderFactory.class.getName());
    MemoryProviderFactory factory = new BuiltinMemoryProviderFactory();
    assertThat(factory.type()).isEqualTo("builtin");
    assertThat(BuiltinMemoryProviderFactory.class.isAnnotationPresent(org.pf4j.Extension.class))
        .isTrue();
  }

  @Test
  @DisplayName("bundles its starting templates")
  void bundlesItsTemplates() {
    for (String name : new String[] {"AGENTS.md", "SOUL.md", "PROFILE.md", "MEMORY.md"}) {
      assertThat(
              BuiltinMemoryProviderFactory.class.getResource(
                  "/dev/memstack/builtin/templates/" + name))
          .as(name)
          .isNotNull();
    }
  }
}
