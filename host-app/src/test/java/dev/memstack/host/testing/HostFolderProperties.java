package dev.memstack.host.testing;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Puts the properties of a {@link HostTest} class's static {@link HostFolder} field into the
 * application context's environment, ahead of every other source, as a {@code
 * DynamicPropertySource} would: the test class declares its host folder once and nothing else.
 */
final class HostFolderProperties implements ContextCustomizerFactory {

  @Override
  public ContextCustomizer createContextCustomizer(
      Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
    for (Class<?> type = testClass; type != null; type = type.getSuperclass()) {
      for (Field field : type.getDeclaredFields()) {
        if (field.getType() == HostFolder.class && Modifier.isStatic(field.getModifiers())) {
          return new Customizer(read(field));
        }
      }
    }
    return null;
  }

  private static HostFolder read(Field field) {
    try {
      field.setAccessible(true);
      return (HostFolder) field.get(null);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Customizer(HostFolder folder) implements ContextCustomizer {

    @Override
    public void customizeContext(
        ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
      Map<String, Object> properties = Map.copyOf(folder.properties());
      context
          .getEnvironment()
          .getPropertySources()
          .addFirst(new MapPropertySource("host folder " + folder.root(), properties));
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Customizer customizer && customizer.folder == folder;
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(System.identityHashCode(folder));
    }
  }
}
