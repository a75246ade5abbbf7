package dev.memstack.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ValueValidationTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a",
        "agent_1",
        "A-b-C",
        "x123456789012345678901234567890123456789012345678901234567890123"
      })
  void agentIdsOfWordCharactersUpTo64AreAccepted(String id) {
    assertThat(AgentId.of(id).value()).isEqualTo(id);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "a b",
        "../x",
        "a/b",
        "é",
        "x1234567890123456789012345678901234567890123456789012345678901234"
      })
  void otherAgentIdsAreRejectedNamingTheField(String id) {
    assertThatThrownBy(() -> AgentId.of(id)).hasMessageContaining("agentId");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"system", "user:1", "api:end-user-7", "slack:U123", "web_chat:a:b", "user:张三"})
  void ownerKeysOfSystemOrPrefixColonIdAreAccepted(String key) {
    assertThat(OwnerKey.of(key).value()).isEqualTo(key);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "no spaces allowed",
        "User:1",
        "user:",
        ":1",
        "user",
        "user:a b",
        "user:a\u0000b",
        "user:a\nb",
        "1x:2"
      })
  void malformedOwnerKeysAreRejectedNamingTheField(String key) {
    assertThatThrownBy(() -> OwnerKey.of(key)).hasMessageContaining("ownerKey");
  }

  @Test
  void ownerKeysLongerThan256AreRejected() {
    assertThatThrownBy(() -> OwnerKey.of("user:" + "x".repeat(252))).hasMessageContaining("256");
    assertThat(OwnerKey.of("user:" + "x".repeat(251)).id()).hasSize(251);
  }

  @Test
  void ownerKeyPartsAreSplitAtTheFirstColon() {
    OwnerKey key = OwnerKey.of("web:a:b");
    assertThat(key.prefix()).isEqualTo("web");
    assertThat(key.id()).isEqualTo("a:b");
    assertThat(OwnerKey.SYSTEM.prefix()).isEqualTo("system");
  }

  @Test
  void personalItemsNeedAnOwnerAndScoresMustBeFinite() {
    assertThatThrownBy(
            () -> new RecallItem("t", 1, Scope.PERSONAL, null, "p", Instant.now(), Map.of()))
        .hasMessageContaining("owner");
    assertThatThrownBy(
            () -> new RecallItem("t", Double.NaN, Scope.TEAM, null, "p", Instant.now(), Map.of()))
        .hasMessageContaining("score");
  }

  @Test
  void requestsSeeOnlyTheirOwnersPersonalMemory() {
    RecallRequest forOne = RecallRequest.of(AgentId.of("a"), OwnerKey.of("user:1"), "q");
    assertThat(forOne.maySee(Scope.PERSONAL, OwnerKey.of("user:1"))).isTrue();
    assertThat(forOne.maySee(Scope.PERSONAL, OwnerKey.of("user:2"))).isFalse();
    assertThat(forOne.maySee(Scope.TEAM, null)).isTrue();
    RecallRequest anonymous = RecallRequest.of(AgentId.of("a"), null, "q");
    assertThat(anonymous.maySee(Scope.PERSONAL, OwnerKey.of("user:1"))).isFalse();
  }

  @Test
  void turnsNeedSomeTextAndWellFormedIds() {
    assertThatThrownBy(
            () ->
                new Turn(
                    "t1",
                    AgentId.of("a"),
                    OwnerKey.of("user:1"),
                    "c1",
                    "",
                    " ",
                    TriggerSource.WEB,
                    Instant.now()))
        .hasMessageContaining("empty");
    assertThatThrownBy(
            () ->
                new Turn(
                    "t/1",
                    AgentId.of("a"),
                    OwnerKey.of("user:1"),
                    "c1",
                    "hi",
                    "",
                    TriggerSource.WEB,
                    Instant.now()))
        .hasMessageContaining("turnId");
  }

  @Test
  void triggerSourcesParseInAnyCase() {
    assertThat(TriggerSource.parse("Cron")).isEqualTo(TriggerSource.CRON);
    assertThatThrownBy(() -> TriggerSource.parse("email")).hasMessageContaining("triggerSource");
  }

  @Test
  void configErrorsNameTheFullKey() {
    ProviderConfig config =
        ProviderConfig.of(
            "memstack.providers.x.config",
            Map.of("timeout", "soon", "size", "12", "flag", "yes", "wait", "250ms"));
    assertThat(config.integer("size", 0)).isEqualTo(12);
    assertThat(config.duration("wait", Duration.ZERO)).isEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> config.duration("timeout", Duration.ZERO))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("memstack.providers.x.config.timeout");
    assertThatThrownBy(() -> config.bool("flag", false))
        .hasMessageContaining("memstack.providers.x.config.flag");
    assertThatThrownBy(() -> config.required("base-url"))
        .hasMessageContaining("memstack.providers.x.config.base-url: is required");
    assertThatThrownBy(() -> config.integer("size", 0, 20, 30)).hasMessageContaining("between");
  }

  @Test
  void rangedNumbersAndDurationsNameTheirBounds() {
    ProviderConfig config =
        ProviderConfig.of("memstack.providers.x.config", Map.of("size", "12", "wait", "250ms"));
    assertThatThrownBy(() -> config.decimal("size", 0, 0.5, 1))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessage("memstack.providers.x.config.size: must be between 0.5 and 1, got 12.0");
    assertThat(config.decimal("size", 0, 0, 100)).isEqualTo(12.0);
    assertThat(config.decimal("absent", 0.25, 0, 1)).isEqualTo(0.25);
    assertThat(config.positiveDuration("wait", Duration.ZERO)).isEqualTo(Duration.ofMillis(250));
    assertThat(config.nonNegativeDuration("absent", Duration.ZERO)).isEqualTo(Duration.ZERO);
    assertThatThrownBy(() -> config.positiveDuration("absent", Duration.ZERO))
        .hasMessage("memstack.providers.x.config.absent: must be positive, got PT0S");
    assertThatThrownBy(() -> config.nonNegativeDuration("absent", Duration.ofSeconds(-1)))
        .hasMessage("memstack.providers.x.config.absent: must not be negative");
  }
}
