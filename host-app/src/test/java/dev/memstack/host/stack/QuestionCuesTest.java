package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the ranking stage reads off a text: its words, names, label and kinds of answer. */
class QuestionCuesTest {

  /** The word the hand-written scan reads, as a regular expression. */
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{N}'’]*");

  private static final List<String> TEXTS =
      List.of(
          "What TV show was Kate watching in May 2023?",
          "i'm   going to Detroit’s museum... Kevin's idea, not mine!",
          "Naïve café owners in São Paulo – über-cool façades",
          "x² + y³ = Ⅻ o'clock, ½ a pizza, ٣ apples and १० mangoes",
          "math letters 𝒜lpha and 𝔅eta, outside the basic plane, and 😀 emoji between words😀here",
          "北京 is a city; 東京 another. Кейт смотрела сериал",
          "'quoted' words, ’curly’ ones, and a trailing apostrophe'",
          "--- 12.01.2024 --- 2024-01-12 --- 12 January 2024 ---",
          "",
          "   ",
          "a",
          "ÉCOLE Normale, Ünïcödé, ΑΘΗΝΑ and Ωmega");

  private static List<String> regexWords(String text) {
    List<String> words = new ArrayList<>();
    Matcher m = WORD.matcher(text);
    while (m.find()) {
      words.add(m.group());
    }
    return words;
  }

  @Test
  @DisplayName("the hand-written scan reads the same words as the regular expression")
  void scanMatchesTheRegularExpression() {
    for (String text : TEXTS) {
      List<String> expected = regexWords(text);
      QuestionCues cues = QuestionCues.of(text);
      assertThat(cues.length()).as("words of %s", text).isEqualTo(expected.size());
      // every word of the text, as written less a possessive ending, each once, in order
      Set<String> asWritten = new LinkedHashSet<>();
      for (String word : expected) {
        asWritten.add(word.replaceFirst("['’][sS]$", ""));
      }
      assertThat(QuestionCues.matching(text, cues.all()))
          .as("words of %s", text)
          .containsExactlyElementsOf(asWritten);
    }
  }

  @Test
  @DisplayName("words, names, the speaker label and the kinds of answer a text holds")
  void readsTheCues() {
    QuestionCues line = QuestionCues.of("user: Elise: We watched Friends in Detroit, 3 episodes!");
    assertThat(line.speaker()).isEqualTo("elise");
    // "We" is a stop word, "3" a single character (it makes the line hold a number)
    assertThat(line.words()).containsExactly("watched", "friend", "detroit", "episode");
    assertThat(line.names()).containsExactly("friend", "detroit");
    assertThat(line.place()).isTrue();
    assertThat(line.number()).isTrue();
    assertThat(line.time()).isFalse();
    assertThat(line.length()).isEqualTo(7);

    QuestionCues question = QuestionCues.of("When did Kate's sister move? Last summer.");
    assertThat(question.speaker()).isNull();
    assertThat(question.time()).isTrue();
    assertThat(question.names()).containsExactly("kate");
    // "Last" starts a sentence: not a name
    assertThat(question.all()).contains("last", "summer", "sister");
    assertThat(QuestionCues.wants("When did Kate's sister move?"))
        .isEqualTo(QuestionCues.Wants.TIME);
    assertThat(QuestionCues.of("¿Dónde? ٣ apples").number()).isFalse();
  }
}
