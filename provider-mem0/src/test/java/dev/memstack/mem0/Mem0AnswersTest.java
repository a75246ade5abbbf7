package dev.memstack.mem0;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

@DisplayName("Mem0 answer shapes")
class Mem0AnswersTest {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  @DisplayName("search answers are read from results, memories or a bare array")
  void searchAnswersInEveryShape() throws Exception {
    String item = "{\"id\":\"m1\",\"memory\":\"Likes tea\",\"score\":0.8}";
    for (String answer :
        List.of(
            "{\"results\":[" + item + "]}",
            "{\"results\":[" + item + "],\"relations\":[{\"source\":\"a\"}]}",
            "{\"memories\":[" + item + "]}",
            "[" + item + "]")) {
      List<Mem0Memory> memories = Mem0Answers.memories(json(answer), "POST /search");
      assertThat(memories).as(answer).hasSize(1);
      assertThat(memories.get(0).id()).isEqualTo("m1");
      assertThat(memories.get(0).text()).isEqualTo("Likes tea");
      assertThat(memories.get(0).score()).isEqualTo(0.8);
    }
  }

  @Test
  @DisplayName("items without text are skipped; null metadata, odd scores and dates are tolerated")
  void oddItemsAreTolerated() throws Exception {
    List<Mem0Memory> memories =
        Mem0Answers.memories(
            json(
                "{\"results\":[{\"id\":\"a\",\"memory\":\"  \"},{\"id\":\"b\"},"
                    + "{\"id\":\"c\",\"memory\":\"kept\",\"metadata\":null,\"score\":\"0.5\","
                    + "\"created_at\":\"2024-07-26T10:29:36.630547-07:00\"},"
                    + "{\"id\":\"d\",\"data\":{\"memory\":\"nested\"},\"score\":\"high\","
                    + "\"created_at\":\"yesterday\",\"metadata\":{\"turn_id\":\"t1\",\"n\":2,"
                    + "\"deep\":{\"x\":1}}}]}"),
            "POST /search");

    assertThat(memories).extracting(Mem0Memory::text).containsExactly("kept", "nested");
    assertThat(memories.get(0).score()).isEqualTo(0.5);
    assertThat(memories.get(0).createdAt()).isEqualTo(Instant.parse("2024-07-26T17:29:36.630547Z"));
    assertThat(memories.get(0).metadata()).isEmpty();
    assertThat(memories.get(1).score()).isNull();
    assertThat(memories.get(1).createdAt()).isNull();
    assertThat(memories.get(1).metadata()).containsEntry("turn_id", "t1").containsEntry("n", "2");
    assertThat(memories.get(1).metadata()).doesNotContainKey("deep");
  }

  @Test
  @DisplayName("timestamps with Z, with an offset or without a zone are read")
  void timestamps() {
    assertThat(Mem0Answers.instant("2026-03-02T09:15:00Z"))
        .isEqualTo(Instant.parse("2026-03-02T09:15:00Z"));
    assertThat(Mem0Answers.instant("2026-03-02T01:15:00-08:00"))
        .isEqualTo(Instant.parse("2026-03-02T09:15:00Z"));
    assertThat(Mem0Answers.instant("2026-03-02T09:15:00.123456"))
        .isEqualTo(Instant.parse("2026-03-02T09:15:00.123456Z"));
    assertThat(Mem0Answers.instant("2026-03-02 09:15:00"))
        .isEqualTo(Instant.parse("2026-03-02T09:15:00Z"));
    assertThat(Mem0Answers.instant("not a date")).isNull();
  }

  @Test
  @DisplayName("add answers: memory events, Platform v1 and v3 queued events")
  void addAnswersInEveryShape() throws Exception {
    Mem0AddResult sync =
        Mem0Answers.addResult(
            json(
                "{\"results\":[{\"id\":\"m1\",\"memory\":\"a\",\"event\":\"ADD\"},"
                    + "{\"id\":\"m2\",\"memory\":\"b\",\"event\":\"update\","
                    + "\"previous_memory\":\"c\"}],\"relations\":{\"added_entities\":[]}}"),
            "POST /memories");
    assertThat(sync.count("ADD")).isEqualTo(1);
    assertThat(sync.count("UPDATE")).isEqualTo(1);
    assertThat(sync.pending()).isZero();

    Mem0AddResult v1 =
        Mem0Answers.addResult(
            json(
                "{\"results\":[{\"message\":\"queued\",\"status\":\"PENDING\","
                    + "\"event_id\":\"e1\"}]}"),
            "POST /v1/memories/");
    assertThat(v1.pending()).isEqualTo(1);
    assertThat(v1.events().get(0).eventId()).isEqualTo("e1");

    Mem0AddResult v3 =
        Mem0Answers.addResult(
            json("{\"event_id\":\"e2\",\"status\":\"PENDING\"}"), "POST /v3/memories/add/");
    assertThat(v3.pending()).isEqualTo(1);

    assertThat(Mem0Answers.addResult(json("{\"results\":[]}"), "POST /memories").events())
        .isEmpty();
  }

  @Test
  @DisplayName("an add reported as FAILED, or an unknown shape, is an error")
  void failedOrUnknownAddsAreErrors() {
    assertThatThrownBy(
            () ->
                Mem0Answers.addResult(
                    json("{\"event_id\":\"e\",\"status\":\"FAILED\"}"), "POST /v3/memories/add/"))
        .isInstanceOfSatisfying(
            Mem0Exception.class,
            e -> assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.SERVER_ERROR));
    assertThatThrownBy(() -> Mem0Answers.addResult(json("{\"ok\":true}"), "POST /memories"))
        .isInstanceOfSatisfying(
            Mem0Exception.class,
            e -> assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.BAD_RESPONSE));
    assertThatThrownBy(() -> Mem0Answers.memories(json("\"results\""), "POST /search"))
        .isInstanceOf(Mem0Exception.class);
  }
}
