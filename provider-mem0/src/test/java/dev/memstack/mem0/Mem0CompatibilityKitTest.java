package dev.memstack.mem0;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.tck.MemoryProviderCompatibilityKit;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;

/**
 * The compatibility kit against fakes that really store and search, one per server generation.
 * Turns are stored verbatim ({@code infer=false}) so the kit's turn-recall tests apply.
 */
class Mem0CompatibilityKitTest {

  /** One kit run against a fresh fake server of {@code generation} per test. */
  abstract static class KitRun extends MemoryProviderCompatibilityKit {

    private FakeMem0Server server;

    abstract FakeMem0Server.Generation generation();

    private FakeMem0Server server() {
      if (server == null) {
        server = FakeMem0Server.start(generation()).requireApiKey("m0-kit-key");
      }
      return server;
    }

    @Override
    protected String instanceId() {
      return "mem0";
    }

    @Override
    protected ProviderConfig config() {
      Map<String, String> values =
          TestSupport.config(server(), "api-key", "m0-kit-key", "infer", "false");
      return ProviderConfig.of("memstack.providers.mem0.config", values);
    }

    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new Mem0MemoryProviderFactory().create(context);
    }

    @AfterEach
    void stopServer() {
      if (server != null) {
        server.close();
        server = null;
      }
    }
  }

  @Nested
  @DisplayName("current OSS server")
  class CurrentOss extends KitRun {
    @Override
    FakeMem0Server.Generation generation() {
      return FakeMem0Server.Generation.CURRENT_OSS;
    }
  }

  @Nested
  @DisplayName("old OSS server")
  class OldOss extends KitRun {
    @Override
    FakeMem0Server.Generation generation() {
      return FakeMem0Server.Generation.OLD_OSS;
    }
  }

  @Nested
  @DisplayName("Platform")
  class Platform extends KitRun {
    @Override
    FakeMem0Server.Generation generation() {
      return FakeMem0Server.Generation.PLATFORM;
    }
  }
}
