package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestChecksTest {

  private static final AgentId AGENT = AgentId.of("a1");

  @ParameterizedTest
  @ValueSource(
      strings = {
        "system",
        "user:42",
        "api:end-user-7",
        "slack:U123",
        "user:张三",
        "line:山田",
        "line:山田たろう",
        "user:José",
        "user:Иван",
        "user:Γιάννης",
        "kakao:김철수",
        "user:a.b@example.com"
      })
  void ownerKeysOfTheGrammarPass(String key) {
    assertThat(RequestChecks.ownerKey("ownerKey", key)).isEqualTo(OwnerKey.of(key));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "user:a\u00a0b", // no-break space
        "user:a\u200bb", // zero-width space
        "user:abc\u202e", // right-to-left override
        "user:\ufeffabc", // byte order mark
        "user:abc\uffff", // noncharacter
        "user:Jose\u0301", // e + combining acute: not NFC
        "user:p\u0430ypal", // Cyrillic a among Latin letters
        "user:\u03bfpenai", // Greek omicron among Latin letters
        "user:a\u3000b", // ideographic space
        "user:a\u2028b", // line separator
        "user:a\u3164b", // Hangul filler
        "user:a\u00adb", // soft hyphen
        "user:1\u0663", // mixed digit systems
        "user:a\u0000", // NUL
        "user:a b"
      })
  void lookAlikeAndInvisibleOwnerKeysAreRefusedNamingTheField(String key) {
    assertThatThrownBy(() -> RequestChecks.ownerKey("ownerKey", key))
        .isInstanceOf(InvalidRequestException.class)
        .satisfies(e -> assertThat(((InvalidRequestException) e).field()).isEqualTo("ownerKey"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"user:a\u200bb", "user:Jose\u0301", "user:p\u0430ypal", "user:a\u00a0b"})
  void anAdminMayStillNameAKeyStoredBeforeTheRule(String key) {
    assertThat(RequestChecks.storedOwnerKey("ownerKey", key).value()).isEqualTo(key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"a\u0000b", "\u001b[31mred", "ding\u0007", "c1\u0085"})
  void aTurnWithAControlCharacterIsRefusedNamingTheMessage(String text) {
    assertThatThrownBy(() -> turn(text, "ok"))
        .isInstanceOf(InvalidRequestException.class)
        .satisfies(e -> assertThat(((InvalidRequestException) e).field()).isEqualTo("userMessage"));
    assertThatThrownBy(() -> turn("ok", text))
        .isInstanceOf(InvalidRequestException.class)
        .satisfies(
            e -> assertThat(((InvalidRequestException) e).field()).isEqualTo("assistantReply"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"c\u200b1", "c\u00a01", "Cafe\u0301", "c\ufeff"})
  void conversationIdsFollowTheIdentifierRule(String id) {
    assertThatThrownBy(
            () ->
                new TurnRequest(
                    AGENT, OwnerKey.of("user:1"), id, null, "hi", "ok", TriggerSource.API, null))
        .isInstanceOf(InvalidRequestException.class)
        .satisfies(
            e -> assertThat(((InvalidRequestException) e).field()).isEqualTo("conversationId"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"tab\tline\nfeed\r\n", "张三 José", "conversation 1"})
  void tabLineBreaksAndOrdinaryTextPass(String text) {
    assertThat(turn(text, text).userMessage()).isEqualTo(text.strip());
  }

  private static TurnRequest turn(String userMessage, String assistantReply) {
    return new TurnRequest(
        AGENT,
        OwnerKey.of("user:1"),
        "conversation 1",
        null,
        userMessage,
        assistantReply,
        TriggerSource.API,
        null);
  }
}
