/**
 * The host's models behind the SPI ports: one {@link dev.memstack.spi.Embedder} (an in-process ONNX
 * model by default, or Ollama) and one {@link dev.memstack.spi.LanguageModel} (none by default, or
 * Ollama), chosen by {@code memstack.models.*}.
 */
package dev.memstack.host.model;
