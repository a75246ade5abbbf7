package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks: write tools refuse callers who may not change a shared record ({@code
 * sharedRecords()}).
 */
abstract class WriteGuardChecks extends CheckGroup {

  WriteGuardChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  private SharedRecords records;

  @BeforeEach
  void requireSharedRecords() {
    records = sharedRecords();
    assumeTrue(
        records != null, () -> kit.getClass().getSimpleName() + " supplies no sharedRecords()");
  }

  @Test
  @DisplayName("refuse a caller limited to personal memory on a team record, changing nothing")
  void refuseAPersonalOnlyCallerOnATeamRecord() {
    assertEveryAttemptRefused(Scope.TEAM, ALICE, EnumSet.of(Scope.PERSONAL));
  }

  @Test
  @DisplayName("refuse a caller limited to personal memory on a global record, changing nothing")
  void refuseAPersonalOnlyCallerOnAGlobalRecord() {
    assertEveryAttemptRefused(Scope.GLOBAL, ALICE, EnumSet.of(Scope.PERSONAL));
  }

  @Test
  @DisplayName("refuse a read-only caller on a team record, changing nothing")
  void refuseAReadOnlyCallerOnATeamRecord() {
    assertEveryAttemptRefused(Scope.TEAM, ALICE, EnumSet.noneOf(Scope.class));
  }

  @Test
  @DisplayName("are declared as tools that change memory, and do change it for a caller who may")
  void changeTheRecordForACallerWhoMay() {
    int count = attempts(Scope.TEAM).size();
    for (int i = 0; i < count; i++) {
      String id = records.create(provider(), AGENT, Scope.TEAM);
      awaitIndexed(provider());
      SharedRecords.Attempt attempt = records.attempts(Scope.TEAM, id).get(i);
      ToolSpec spec =
          provider().tools().stream()
              .filter(t -> t.name().equals(attempt.tool()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no tool " + attempt.tool()));
      assertThat(spec.effect().changesMemory())
          .as("effect of %s (%s)", spec.name(), spec.effect())
          .isTrue();
      String before = records.state(provider(), AGENT, Scope.TEAM, id);
      provider()
          .callTool(
              new ToolCall(
                  AGENT, ALICE, attempt.tool(), attempt.arguments(), EnumSet.allOf(Scope.class)));
      awaitIndexed(provider());
      assertThat(records.state(provider(), AGENT, Scope.TEAM, id))
          .as("the team record after %s by a caller who may write every scope", attempt)
          .isNotEqualTo(before);
    }
  }

  private List<SharedRecords.Attempt> attempts(Scope scope) {
    return attempts(scope, records.create(provider(), AGENT, scope));
  }

  /** The attempts on record {@code id}, once it is searchable; skips the test without any. */
  private List<SharedRecords.Attempt> attempts(Scope scope, String id) {
    awaitIndexed(provider());
    List<SharedRecords.Attempt> attempts = records.attempts(scope, id);
    assumeTrue(
        attempts != null && !attempts.isEmpty(),
        () -> "sharedRecords() gives no write tool calls for a " + scope + " record");
    return attempts;
  }

  private void assertEveryAttemptRefused(Scope scope, OwnerKey owner, Set<Scope> writable) {
    String id = records.create(provider(), AGENT, scope);
    List<SharedRecords.Attempt> attempts = attempts(scope, id);
    String before = records.state(provider(), AGENT, scope, id);
    for (SharedRecords.Attempt attempt : attempts) {
      ToolCall call = new ToolCall(AGENT, owner, attempt.tool(), attempt.arguments(), writable);
      assertThatThrownBy(() -> provider().callTool(call))
          .as("%s on a %s record by a caller who may write %s", attempt, scope, writable)
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> assertThat(e.kind()).as("kind").isEqualTo(ToolException.Kind.FORBIDDEN));
      awaitIndexed(provider());
      assertThat(records.state(provider(), AGENT, scope, id))
          .as("the %s record after the refused %s", scope, attempt)
          .isEqualTo(before);
    }
  }
}
