package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The ranking features the host computes for each candidate. */
class RankingFeaturesTest {

  private static RankingFeatures.Candidate candidate(
      String text, String at, double cosine, Map<String, Integer> ranks) {
    return new RankingFeatures.Candidate(
        text,
        at == null ? null : Instant.parse(at),
        cosine,
        Double.NaN,
        0.5,
        1,
        ranks,
        Map.of("vector", 0.7),
        Map.of("vector", Map.of("signal.vector_score", "0.8123", "file", "notes.md")));
  }

  private static double value(
      String feature, String question, List<RankingFeatures.Candidate> pool, int item) {
    return RankingFeatures.compute(List.of(feature), question, pool, QuestionCues::of)[item][0];
  }

  @Test
  @DisplayName("the speaker named in the question: the chat line's label, behind a role label too")
  void speakerAsked() {
    List<RankingFeatures.Candidate> pool =
        List.of(
            candidate("user: elise: I work on campus", null, 0.8, Map.of("vector", 1)),
            candidate("emi: I work at a bakery", null, 0.8, Map.of("vector", 2)));

    assertThat(value("speaker.asked", "Where does Elise work?", pool, 0)).isEqualTo(1);
    assertThat(value("speaker.asked", "Where does Elise work?", pool, 1)).isZero();
    assertThat(value("speaker.other", "Where does Elise work?", pool, 1)).isEqualTo(1);
    assertThat(value("speaker.other", "Where does anyone work?", pool, 1)).isZero();
  }

  @Test
  @DisplayName("a speaker of two words, a misspelt name and what the other speaker calls them")
  void speakerNamedOtherwise() {
    List<RankingFeatures.Candidate> pool =
        List.of(
            candidate("user: fahim khan: I read manga", null, 0.8, Map.of("vector", 1)),
            candidate("user: muhhamed: I drive to work", null, 0.8, Map.of("vector", 2)),
            candidate("user: muhhamed: thanks Kate, see you", null, 0.8, Map.of("vector", 3)));

    assertThat(value("speaker.asked", "What does Fahim read?", pool, 0)).isEqualTo(1);
    assertThat(value("speaker.asked", "What does Fahim read?", pool, 1)).isZero();
    assertThat(value("speaker.asked", "How far does Mohamed drive?", pool, 1)).isEqualTo(1);
    assertThat(value("speaker.asked", "How far does Mohamed drive?", pool, 0)).isZero();
    assertThat(value("speaker.other", "How far does Mohamed drive?", pool, 0)).isEqualTo(1);
    // "Kate" is written only by muhhamed, and the list shows one other speaker
    assertThat(value("speaker.asked", "What does Kate read?", pool, 0)).isEqualTo(1);
    assertThat(value("speaker.asked", "What does Kate read?", pool, 2)).isZero();
    // a short or different-initial word is no misspelling
    assertThat(value("speaker.asked", "What does Mahim read?", pool, 0)).isZero();
    // the same sound (Double Metaphone), three edits apart
    assertThat(value("speaker.asked", "How far does Muhammad drive?", pool, 1)).isEqualTo(1);
    assertThat(value("speaker.asked", "What does Faheem read?", pool, 0)).isEqualTo(1);
    assertThat(AskedSpeakers.names("muhammad", "muhhamed")).isTrue();
    assertThat(AskedSpeakers.names("mahim", "fahim khan")).isFalse();
    assertThat(AskedSpeakers.edits("nikolas", "nicolas")).isEqualTo(1);
    assertThat(AskedSpeakers.edits("nerbaas", "nebraas")).isEqualTo(1);
  }

  @Test
  @DisplayName(
      "the question without the speakers it names: by label, misspelt, or by what others call"
          + " them; names that are no speaker's stay")
  void unnamedQuestion() {
    List<String> texts =
        List.of(
            "user: fahim khan: I read manga in Houston",
            "memory/2024-01-02.md (personal) (line 3):\n### 08:58 · api\n**user:** muhhamed: thanks"
                + " Kate, see you",
            "user: muhhamed: I drive to Houston");

    assertThat(speakerNames("What are Kate's hobbies?", texts)).containsExactly("Kate");
    assertThat(speakerNames("Did Fahim and Mohamed ever visit Houston?", texts))
        .containsExactly("Fahim", "Mohamed");
    // both write "Houston": it is no speaker's name
    assertThat(speakerNames("Where is Houston?", texts)).isEmpty();
    // only muhhamed writes "Dallas", but the question names fahim already: no other name for him
    List<String> dallas = List.of("user: fahim khan: I read manga", "user: muhhamed: Dallas!");
    assertThat(speakerNames("Did Fahim go to Dallas?", dallas)).containsExactly("Fahim");
    assertThat(speakerNames("Fahim?", texts)).isEmpty(); // nothing else left
    assertThat(speakerNames("What does Fahim read?", List.of("no speaker here"))).isEmpty();
  }

  private static List<String> speakerNames(String question, List<String> texts) {
    return AskedSpeakers.speakerNames(question, texts, QuestionCues::of);
  }

  @Test
  @DisplayName("cosine.unnamed is the cosine to the unnamed question, or the cosine itself")
  void unnamedCosine() {
    RankingFeatures.Candidate named =
        new RankingFeatures.Candidate(
            "user: emi: I paint", null, 0.9, 0.3, 0.5, 1, Map.of("vector", 1), Map.of(), Map.of());
    RankingFeatures.Candidate plain =
        new RankingFeatures.Candidate(
            "user: emi: I draw", null, 0.7, 0.6, 0.5, 2, Map.of("vector", 2), Map.of(), Map.of());
    RankingFeatures.Candidate same = candidate("user: emi: I sing", null, 0.8, Map.of("b", 1));
    List<RankingFeatures.Candidate> pool = List.of(named, plain, same);

    assertThat(value("cosine.unnamed", "q", pool, 0)).isCloseTo(0.3, within(1e-9));
    assertThat(value("cosine.unnamed", "q", pool, 2)).isCloseTo(0.8, within(1e-9));
    assertThat(value("cosine.unnamed.gap", "q", pool, 0)).isCloseTo(0.5, within(1e-9));
    assertThat(value("cosine.unnamed.gap", "q", pool, 2)).isCloseTo(0.0, within(1e-9));
  }

  @Test
  @DisplayName("length and overlap count the message, not a file header or a role label")
  void lengthOfTheMessage() {
    List<RankingFeatures.Candidate> pool =
        List.of(
            candidate(
                "memory/2024-01-05.md (personal) (line 55):\n### 19:19 · api\n**User:** lol",
                null,
                0.5,
                Map.of("builtin", 1)),
            candidate("the brunch place in New York was great", null, 0.5, Map.of("vector", 1)));

    assertThat(value("short", "brunch in New York?", pool, 0)).isEqualTo(1);
    assertThat(value("length", "q", pool, 0)).isCloseTo(Math.log1p(1), within(1e-9));
    assertThat(value("overlap", "Which brunch place in New York?", pool, 1))
        .isCloseTo(1.0, within(1e-9));
    assertThat(value("names", "Which brunch place in New York?", pool, 1)).isEqualTo(1);
    assertThat(value("overlap", "Which brunch place in New York?", pool, 0)).isZero();
  }

  @Test
  @DisplayName("a named date matches the day an item was written, the day next to it by half")
  void datesNamed() {
    List<RankingFeatures.Candidate> pool =
        List.of(
            candidate("we cooked pasta", "2024-01-22T18:00:00Z", 0.5, Map.of("vector", 1)),
            candidate("we cooked rice", "2024-01-23T08:00:00Z", 0.5, Map.of("vector", 2)),
            candidate("we cooked soup", "2024-02-22T08:00:00Z", 0.5, Map.of("vector", 3)));
    String question = "What food did Paola cook on 22.01.2024?";

    assertThat(value("date.named", question, pool, 0)).isEqualTo(1);
    assertThat(value("date.named", question, pool, 1)).isEqualTo(0.5);
    assertThat(value("date.named", question, pool, 2)).isZero();
    assertThat(QuestionDates.of("on 5 January 2024 and 2024-02-03, not 31.02.2024"))
        .containsExactlyInAnyOrder(LocalDate.of(2024, 1, 5), LocalDate.of(2024, 2, 3));
    assertThat(value("time.named", "What did she cook in January?", pool, 0)).isEqualTo(1);
    assertThat(value("time.named", "What did she cook in January?", pool, 2)).isZero();
  }

  @Test
  @DisplayName("neighbours: the best cosine among candidates written within ten minutes")
  void neighbours() {
    List<RankingFeatures.Candidate> pool =
        List.of(
            candidate("what do you do for work?", "2024-01-04T22:30:00Z", 0.9, Map.of("v", 1)),
            candidate("I teach", "2024-01-04T22:35:00Z", 0.4, Map.of("v", 2)),
            candidate("much later", "2024-01-04T23:30:00Z", 0.3, Map.of("v", 3)));

    assertThat(value("neighbour.cosine", "q", pool, 1)).isEqualTo(0.9);
    assertThat(value("neighbour.cosine", "q", pool, 2)).isZero();
    assertThat(value("cosine.gap", "q", pool, 1)).isCloseTo(0.5, within(1e-9));
    assertThat(value("cosine.rank", "q", pool, 0)).isZero();
    assertThat(value("session.cosine", "q", pool, 2))
        .isCloseTo((0.9 + 0.4 + 0.3) / 3, within(1e-9));
  }

  @Test
  @DisplayName("the kind of answer: a 'when' question meets an item that holds a time")
  void answerKinds() {
    List<RankingFeatures.Candidate> pool =
        List.of(
            candidate("I started yesterday", null, 0.5, Map.of("v", 1)),
            candidate("I started at the shop", null, 0.5, Map.of("v", 2)),
            candidate("I have 3 cats", null, 0.5, Map.of("v", 3)));

    assertThat(value("answer.time", "When did she start?", pool, 0)).isEqualTo(1);
    assertThat(value("answer.time", "When did she start?", pool, 1)).isZero();
    assertThat(value("answer.time", "What did she start?", pool, 0)).isZero();
    assertThat(value("answer.number", "How many cats does she have?", pool, 2)).isEqualTo(1);
  }

  @Test
  @DisplayName("provider ranks, scores and named signals; what is absent is 0")
  void providerSignals() {
    List<RankingFeatures.Candidate> pool =
        List.of(candidate("a memory", null, Double.NaN, Map.of("vector", 1, "builtin", 10)));

    assertThat(value("rank:vector", "q", pool, 0)).isEqualTo(1);
    assertThat(value("rank:builtin", "q", pool, 0)).isCloseTo(1 / (1 + Math.log(10)), within(1e-9));
    assertThat(value("rank:mem0", "q", pool, 0)).isZero();
    assertThat(value("score:vector", "q", pool, 0)).isEqualTo(0.7);
    assertThat(value("signal:vector:signal.vector_score", "q", pool, 0)).isEqualTo(0.8123);
    assertThat(value("signal:vector:file", "q", pool, 0)).as("not a number").isZero();
    assertThat(value("cosine.missing", "q", pool, 0)).isEqualTo(1);
    assertThat(value("cosine", "q", pool, 0)).isZero();
    assertThat(RankingFeatures.namesFor(pool))
        .contains("rank:builtin", "score:vector", "signal:vector:signal.vector_score")
        .doesNotContain("signal:vector:file");
  }
}
