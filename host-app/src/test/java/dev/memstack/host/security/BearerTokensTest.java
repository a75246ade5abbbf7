package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BearerTokensTest {

  private final BearerTokens tokens =
      BearerTokens.configured(
          List.of(
              new SecurityProperties.Token("viewer-token-0123456789", Role.VIEWER, null),
              new SecurityProperties.Token("member-token-0123456789", Role.MEMBER, "api:*")));

  @Test
  void aKnownTokenIsItsCallerNamedByItsKey() {
    Caller caller = tokens.authenticate("member-token-0123456789").orElseThrow();

    assertThat(caller.role()).isEqualTo(Role.MEMBER);
    assertThat(caller.owner()).isEqualTo(OwnerBinding.of("api:*"));
    assertThat(caller.name()).isEqualTo("memstack.security.tokens[1]");
    assertThat(tokens.authenticate("viewer-token-0123456789").orElseThrow().role())
        .isEqualTo(Role.VIEWER);
  }

  @Test
  void unknownTokensPrefixesAndLongerTokensAreNotKnown() {
    assertThat(tokens.authenticate("nope")).isEmpty();
    assertThat(tokens.authenticate("member-token-012345678")).isEmpty();
    assertThat(tokens.authenticate("member-token-01234567890")).isEmpty();
    assertThat(tokens.authenticate("MEMBER-TOKEN-0123456789")).isEmpty();
    assertThat(tokens.authenticate("")).isEmpty();
  }

  @Test
  void offChecksNothingAndKnowsNoToken() {
    assertThat(BearerTokens.off().checking()).isFalse();
    assertThat(BearerTokens.off().authenticate("viewer-token-0123456789")).isEmpty();
    assertThat(tokens.checking()).isTrue();
  }

  @Test
  void theGeneratedTokenIsAnAdminForAnyOwner() {
    Caller caller =
        BearerTokens.generatedAdmin("generated-0123456789", "generated admin token")
            .authenticate("generated-0123456789")
            .orElseThrow();

    assertThat(caller.role()).isEqualTo(Role.ADMIN);
    assertThat(caller.ownerBound()).isFalse();
  }

  @Test
  void theBearerHeaderIsParsedStrictly() {
    assertThat(BearerTokenFilter.bearerToken("Bearer abc")).isEqualTo("abc");
    assertThat(BearerTokenFilter.bearerToken("bearer  abc ")).isEqualTo("abc");
    assertThat(BearerTokenFilter.bearerToken("Basic YWxhZGRpbjpvcGVu")).isNull();
    assertThat(BearerTokenFilter.bearerToken("Bearer")).isNull();
    assertThat(BearerTokenFilter.bearerToken("Bearer a b")).isNull();
    assertThat(BearerTokenFilter.bearerToken("abc")).isNull();
  }
}
