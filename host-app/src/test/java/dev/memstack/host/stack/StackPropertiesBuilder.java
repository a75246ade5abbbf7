package dev.memstack.host.stack;

/**
 * {@link StackProperties} for tests: the defaults with the parts a test changes, e.g. {@code
 * StackPropertiesBuilder.defaults().breaker(new StackProperties.Breaker(1, null)).build()}.
 */
final class StackPropertiesBuilder {

  private StackProperties.Context context;
  private StackProperties.SystemPrompt systemPrompt;
  private StackProperties.Breaker breaker;
  private StackProperties.Fusion fusion;
  private StackProperties.Ranking ranking;

  private StackPropertiesBuilder(StackProperties from) {
    context = from.context();
    systemPrompt = from.systemPrompt();
    breaker = from.breaker();
    fusion = from.fusion();
    ranking = from.ranking();
  }

  /** Starts from {@link StackProperties#defaults()}. */
  static StackPropertiesBuilder defaults() {
    return new StackPropertiesBuilder(StackProperties.defaults());
  }

  /** Starts from {@code properties}. */
  static StackPropertiesBuilder from(StackProperties properties) {
    return new StackPropertiesBuilder(properties);
  }

  StackPropertiesBuilder context(StackProperties.Context value) {
    context = value;
    return this;
  }

  StackPropertiesBuilder systemPrompt(StackProperties.SystemPrompt value) {
    systemPrompt = value;
    return this;
  }

  StackPropertiesBuilder breaker(StackProperties.Breaker value) {
    breaker = value;
    return this;
  }

  StackPropertiesBuilder fusion(StackProperties.Fusion value) {
    fusion = value;
    return this;
  }

  StackPropertiesBuilder ranking(StackProperties.Ranking value) {
    ranking = value;
    return this;
  }

  StackProperties build() {
    return new StackProperties(context, systemPrompt, breaker, fusion, ranking);
  }
}
