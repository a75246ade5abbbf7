package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.MemoryProvider;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrackedMemoryProviderTest {

  /**
   * The host wraps every provider; a method of the SPI the wrapper does not override would reach
   * the provider only through the SPI's default (e.g. a batch of turns turned back into single
   * calls), so every SPI method must be forwarded.
   */
  @Test
  void forwardsEveryMethodOfTheSpi() {
    List<String> missing =
        Arrays.stream(MemoryProvider.class.getMethods())
            .filter(m -> !Modifier.isStatic(m.getModifiers()))
            .filter(m -> !declaredBy(m))
            .map(Method::toGenericString)
            .toList();
    assertThat(missing).as("SPI methods TrackedMemoryProvider does not override").isEmpty();
  }

  private static boolean declaredBy(Method method) {
    try {
      TrackedMemoryProvider.class.getDeclaredMethod(method.getName(), method.getParameterTypes());
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
}
