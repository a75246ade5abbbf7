package dev.memstack.host.model;

import dev.memstack.spi.Embedder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the in-process embedding model on a background thread while the host starts, so that the
 * first request does not wait for it ({@code memstack.models.onnx.warm-up}); {@link
 * ModelConfiguration} starts it once the providers have started, beside the rest of the context's
 * start (MCP server, actuator endpoints, web server). A failure is logged; the first request then
 * reports it again. Does nothing for Ollama.
 */
final class EmbedderWarmUp {

  private static final Logger log = LoggerFactory.getLogger(EmbedderWarmUp.class);

  private final Embedder embedder;
  private final boolean enabled;
  private volatile String failure;

  EmbedderWarmUp(Embedder embedder, boolean enabled) {
    this.embedder = embedder;
    this.enabled = enabled;
  }

  /** Whether the host warms the model up at start. */
  boolean enabled() {
    return enabled;
  }

  /** Why the warm-up failed, or {@code null}. */
  String failure() {
    return failure;
  }

  /** Starts the warm-up thread; returns it, or {@code null} when there is nothing to warm up. */
  Thread start() {
    if (!enabled || !(embedder instanceof OnnxEmbedder onnx) || onnx.loaded()) {
      return null;
    }
    Thread thread =
        new Thread(
            () -> {
              try {
                onnx.load();
              } catch (RuntimeException e) {
                failure = e.getMessage();
                log.warn("Warming up embedding model {} failed: {}", onnx.modelId(), e.toString());
              }
            },
            "memstack-embedder-warm-up");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** The embedding model it warms up. */
  Embedder embedder() {
    return embedder;
  }
}
