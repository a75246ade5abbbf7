package dev.memstack.vector.pgvector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.ai.vectorstore.filter.FilterExpressionTextParser;

@DisplayName("Filters become SQL on the real columns")
class PgFilterTest {

  @Test
  @DisplayName(
      "the prefetch filter becomes conditions the btree indexes serve, values as parameters")
  void prefetchFilter() {
    PgFilter.Sql sql =
        PgFilter.where(
            MemoryFilters.and(
                MemoryFilters.visibleTo(AgentId.of("agent-a"), OwnerKey.of("user:1")),
                MemoryFilters.status(List.of(MemoryStatus.ACTIVE))));

    assertThat(sql.text())
        .isEqualTo(
            "(((agent = ? AND ((scope = 'PERSONAL' AND owner = ?) OR scope = 'TEAM'))"
                + " OR scope = 'GLOBAL') AND status = 'ACTIVE')");
    assertThat(new java.util.ArrayList<Object>(sql.params())).containsExactly("agent-a", "user:1");
  }

  @Test
  @DisplayName(
      "the prefetch filter splits into three branches, the owner's one served by the owner index")
  void prefetchBranches() {
    List<PgFilter.Sql> branches =
        PgFilter.branches(
            MemoryFilters.and(
                MemoryFilters.visibleTo(AgentId.of("agent-a"), OwnerKey.of("user:1")),
                MemoryFilters.status(List.of(MemoryStatus.ACTIVE))),
            8);

    assertThat(branches)
        .extracting(PgFilter.Sql::text)
        .containsExactly(
            "((agent = ? AND (scope = 'PERSONAL' AND owner = ?)) AND status = 'ACTIVE')",
            "((agent = ? AND scope = 'TEAM') AND status = 'ACTIVE')",
            "(scope = 'GLOBAL' AND status = 'ACTIVE')");
    assertThat(branches)
        .extracting(b -> (Object) List.copyOf(b.params()))
        .containsExactly(List.of("agent-a", "user:1"), List.of("agent-a"), List.of());
    assertThat(PgFilter.disjoint(branches)).isTrue();
  }

  @Test
  @DisplayName("branches are disjoint only when each keeps to scopes no other branch allows")
  void disjointBranches() {
    assertThat(PgFilter.disjoint(PgFilter.branches(parse("owner == 'a' || scope == 'TEAM'"), 8)))
        .isFalse();
    assertThat(
            PgFilter.disjoint(
                PgFilter.branches(
                    parse("scope in ['TEAM', 'GLOBAL'] || (scope == 'TEAM' && owner == 'a')"), 8)))
        .isFalse();
    assertThat(
            PgFilter.disjoint(
                PgFilter.branches(
                    parse(
                        "(scope == 'PERSONAL' || scope == 'TEAM') && status == 'ACTIVE'"
                            + " && NOT (scope == 'GLOBAL')"),
                    8)))
        .isTrue();
    assertThat(PgFilter.disjoint(PgFilter.branches(parse("scope == 'team' || scope == 'TEAM'"), 8)))
        .isFalse();
  }

  @Test
  @DisplayName("a filter that expands to too many branches is not split; NOT stays one condition")
  void branchLimitAndNegation() {
    assertThat(PgFilter.branches(null, 8)).extracting(PgFilter.Sql::text).containsExactly("TRUE");
    assertThat(
            PgFilter.branches(
                parse(
                    "(owner == 'a' || owner == 'b') && (type == 'x' || type == 'y')"
                        + " && (agent == 'p' || agent == 'q')"),
                4))
        .isEmpty();
    assertThat(PgFilter.branches(parse("owner == 'a' && NOT (type == 'x' || type == 'y')"), 8))
        .extracting(PgFilter.Sql::text)
        .containsExactly("(owner = ? AND NOT COALESCE(((type = ? OR type = ?)), FALSE))");
  }

  @Test
  @DisplayName("negations also match rows where the column is NULL")
  void negationsMatchNulls() {
    PgFilter.Sql sql = PgFilter.where(parse("owner != 'user:1' && type nin ['RAW', 'FACT']"));

    assertThat(sql.text())
        .isEqualTo("(NOT COALESCE((owner = ?), FALSE) AND NOT COALESCE((type IN (?, ?)), FALSE))");
    assertThat(new java.util.ArrayList<Object>(sql.params()))
        .containsExactly("user:1", "RAW", "FACT");
  }

  @Test
  @DisplayName("time comparisons become timestamp ranges, turn maps to turn_id")
  void timesAndTurns() {
    long at = Instant.parse("2026-03-02T10:00:00Z").toEpochMilli();
    PgFilter.Sql sql =
        PgFilter.where(
            MemoryFilters.and(
                MemoryFilters.createdFrom(Instant.ofEpochMilli(at)),
                MemoryFilters.eq(MemoryVectorStore.TURN, "t-1")));

    assertThat(sql.text()).isEqualTo("(created_at >= ? AND turn_id = ?)");
    assertThat(new java.util.ArrayList<Object>(sql.params()))
        .containsExactly(PgFilter.timestamp(at), "t-1");
  }

  @Test
  @DisplayName("no filter is TRUE; unknown keys are refused, never put into SQL")
  void noFilterAndUnknownKeys() {
    assertThat(PgFilter.where(null).text()).isEqualTo("TRUE");
    assertThatThrownBy(() -> PgFilter.where(parse("\"owner = '' OR 1=1 --\" == 'x'")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot be filtered on");
  }

  @Test
  @DisplayName("only the names of scopes and statuses are written into the SQL; other values bind")
  void literalsOnlyForKnownNames() {
    PgFilter.Sql sql =
        PgFilter.where(
            parse(
                "scope in ['TEAM', 'GLOBAL'] && status == 'ACTIVE' && type == 'FACT'"
                    + " && (scope == 'team' || status == 'ACTIVE\\' OR 1=1 --')"));

    assertThat(sql.text())
        .isEqualTo(
            "(((scope IN ('TEAM', 'GLOBAL') AND status = 'ACTIVE') AND type = ?)"
                + " AND (scope = ? OR status = ?))");
    assertThat(new java.util.ArrayList<Object>(sql.params()))
        .containsExactly("FACT", "team", "ACTIVE' OR 1=1 --");
  }

  private static org.springframework.ai.vectorstore.filter.Filter.Expression parse(String text) {
    return new FilterExpressionTextParser().parse(text);
  }
}
