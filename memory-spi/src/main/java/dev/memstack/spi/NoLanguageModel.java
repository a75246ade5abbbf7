package dev.memstack.spi;

import java.time.Duration;

/** The absent chat model. */
enum NoLanguageModel implements LanguageModel {
  INSTANCE;

  @Override
  public boolean available() {
    return false;
  }

  @Override
  public String modelId() {
    return "none";
  }

  @Override
  public String complete(String system, String user, Duration timeout) {
    throw new NoLanguageModelException();
  }
}
