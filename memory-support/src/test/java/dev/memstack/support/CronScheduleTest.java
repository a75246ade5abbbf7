package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class CronScheduleTest {

  private static ZonedDateTime at(String text) {
    return ZonedDateTime.parse(text).withZoneSameInstant(ZoneOffset.UTC);
  }

  @Test
  void theDefaultRunsAtThreeEveryNight() {
    CronSchedule cron = CronSchedule.parse("0 0 3 * * *");

    assertThat(cron.next(at("2026-04-01T09:30:00Z"))).isEqualTo(at("2026-04-02T03:00:00Z"));
    assertThat(cron.next(at("2026-04-02T02:59:59Z"))).isEqualTo(at("2026-04-02T03:00:00Z"));
    assertThat(cron.next(at("2026-04-02T03:00:00Z"))).isEqualTo(at("2026-04-03T03:00:00Z"));
  }

  @Test
  void stepsRangesListsAndNamesAreUnderstood() {
    assertThat(CronSchedule.parse("*/15 * * * * *").next(at("2026-04-01T10:00:07Z")))
        .isEqualTo(at("2026-04-01T10:00:15Z"));
    assertThat(CronSchedule.parse("0 30 3 * * MON-FRI").next(at("2026-04-03T04:00:00Z")))
        .as("Friday 04:00 -> Monday 03:30")
        .isEqualTo(at("2026-04-06T03:30:00Z"));
    assertThat(CronSchedule.parse("0 0 12 1,15 JAN ?").next(at("2026-01-02T00:00:00Z")))
        .isEqualTo(at("2026-01-15T12:00:00Z"));
    assertThat(CronSchedule.parse("0 0 0 * * 0").next(at("2026-04-01T00:00:00Z")))
        .as("0 is Sunday")
        .isEqualTo(at("2026-04-05T00:00:00Z"));
  }

  @Test
  void aWrongExpressionNamesTheField() {
    assertThatThrownBy(() -> CronSchedule.parse("0 0 3 * *")).hasMessageContaining("six fields");
    assertThatThrownBy(() -> CronSchedule.parse("0 0 25 * * *"))
        .hasMessageContaining("hour field '25'");
    assertThatThrownBy(() -> CronSchedule.parse("0 x 3 * * *"))
        .hasMessageContaining("minute field");
  }
}
