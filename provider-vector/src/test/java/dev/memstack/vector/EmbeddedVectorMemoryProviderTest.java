package dev.memstack.vector;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;

@DisplayName("The vector provider on the embedded store")
class EmbeddedVectorMemoryProviderTest extends VectorMemoryProviderContract {

  @Override
  protected Map<String, String> storeConfig() {
    return Map.of("store", "embedded");
  }
}
