package dev.memstack.vector;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;

@DisplayName("Memory types, stats and named memories on the embedded store")
class EmbeddedMemoryTypesTest extends MemoryTypesContract {

  @Override
  protected Map<String, String> storeConfig() {
    return Map.of("store", "embedded");
  }
}
