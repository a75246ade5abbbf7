package dev.memstack.host.e2e;

import java.util.Map;

/** Issue 4 on the default store: no vector configuration at all (embedded Lucene store). */
class EmbeddedVectorRecallTest extends VectorRecallScenario {

  @Override
  protected Map<String, String> storeConfig() {
    return Map.of();
  }
}
