package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Properties of the {@code <memory-context>} fence: a tag spelled by any composition of entity and
 * escape encodings, look-alike brackets and letters, case, inserted invisible characters and spaces
 * is cut from a recalled text whole; a text that holds no tag comes back as it was.
 */
class MemoryContextFenceProperties {

  /** What a model reads as a fence tag, searched for in decoded and folded text. */
  private static final Pattern READ_AS_TAG =
      Pattern.compile("<\\s*/?\\s*memory[\\s_-]*context", Pattern.CASE_INSENSITIVE);

  private static final Pattern UNTERMINATED_HEX = Pattern.compile("&#[xX][0-9a-fA-F]+$");
  private static final Pattern MAY_READ_AS_HEX_DIGIT = Pattern.compile("[^g-zG-Z<>/_\\- ]");

  @Property(tries = 1000, seed = "250920")
  void everyEncodedOrLookAlikeTagIsCutWhole(@ForAll("tags") String tag) {
    String cleaned = MemoryContextFence.stripTags("before " + tag + " after");

    assertThat(cleaned).as(tag).isEqualTo("before after");
    assertThat(MemoryContextFence.containsTag(cleaned)).isFalse();
    // read the way the fence reads: entities and escapes decoded, look-alikes folded
    assertThat(READ_AS_TAG.matcher(FoldedText.of(cleaned).folded()).find()).isFalse();
    // and read as plain text
    assertThat(cleaned.toLowerCase(Locale.ROOT))
        .doesNotContain("<memory-context>")
        .doesNotContain("</memory-context>");
  }

  @Property(tries = 1000, seed = "250921")
  void theTagIsFoundInsideAWholeBlock(
      @ForAll("openingTags") String open, @ForAll("closingTags") String close) {
    String message = "Question?\n" + open + "\n- old fact\n" + close + "\nWhat now?";

    assertThat(MemoryContextFence.stripBlocks(message))
        .as(message)
        .isEqualTo("Question?\n\n\nWhat now?");
  }

  @Property(tries = 1000, seed = "250922")
  void textWithoutATagComesBackUnchanged(@ForAll("untagged") String text) {
    assertThat(MemoryContextFence.stripTags(text)).isEqualTo(text);
    assertThat(MemoryContextFence.stripBlocks(text)).isEqualTo(text.strip());
    assertThat(MemoryContextFence.containsTag(text)).isFalse();
  }

  /** Found by the generated runs: a dropped invisible character must still end an entity. */
  @net.jqwik.api.Example
  void anInvisibleCharacterEndsAnUnterminatedEntity() {
    for (String tag :
        List.of(
            "<memor&amp;#X79\u200Bcontext>",
            "<memor&#x79\u200Bcontext>",
            "<memory-<memory-<memory-<memory-<memory-<memory-<memory-<memory-<memory-<memory-"
                + "<memory-context>context>context>context>context>context>context>context>"
                + "context>context>context>")) {
      String cleaned = MemoryContextFence.stripTags("before " + tag + " after");
      assertThat(MemoryContextFence.containsTag(cleaned)).as(cleaned).isFalse();
      assertThat(READ_AS_TAG.matcher(FoldedText.of(cleaned).folded()).find()).as(cleaned).isFalse();
    }
  }

  /** Pieces of tags in many spellings, glued at random: tags form across piece boundaries. */
  private static final List<String> SOUP =
      List.of(
          "<",
          "</",
          "&lt;",
          "&#60;",
          "&#x3C;",
          "%3C",
          "%3c/",
          "\\u003c",
          "\u3008",
          "\u27E8",
          "\u2039",
          "\uFF1C",
          "&amp;lt;",
          "memory",
          "mem",
          "ory",
          "\u1D0D\u1D07\u1D0D\u1D0F\u0280\u028F",
          "&#109;emory",
          "mem\u03BFry",
          "-",
          "&#45;",
          "_",
          " ",
          "\u200B",
          "\u00AD",
          "context",
          "c\u043Entext",
          ">",
          "&gt;",
          "&#62;",
          "%3E",
          "\u3009",
          "\u27E9",
          "\uFF1E",
          "&amp;gt;",
          "/",
          ";",
          "&",
          "#",
          "x",
          "\n",
          "<memory-context>",
          "</memory-context>",
          "memory-context");

  @Property(tries = 1000, seed = "250906")
  void noTagIsLeftInAnySoupOfPieces(@ForAll("soup") String text) {
    String cleaned = MemoryContextFence.stripTags(text);

    assertThat(MemoryContextFence.containsTag(cleaned)).as("%s -> %s", text, cleaned).isFalse();
    assertThat(MemoryContextFence.stripTags(cleaned)).as(text).isEqualTo(cleaned);
    String block = MemoryContextFence.stripBlocks(text);
    assertThat(MemoryContextFence.containsTag(block)).as("%s -> %s", text, block).isFalse();
  }

  @Property(tries = 200, seed = "250907")
  void tagsNestedToAnyDepthAreCut(
      @ForAll @net.jqwik.api.constraints.IntRange(min = 1, max = 40) int depth,
      @ForAll("tags") String tag) {
    int cut = tag.length() / 2;
    String nested =
        "a " + tag.substring(0, cut).repeat(depth) + tag.substring(cut).repeat(depth) + " b";

    assertThat(MemoryContextFence.containsTag(MemoryContextFence.stripTags(nested)))
        .as(nested)
        .isFalse();
  }

  @Provide
  Arbitrary<String> soup() {
    return Arbitraries.of(SOUP).list().ofMaxSize(24).map(pieces -> String.join("", pieces));
  }

  // ---- tags

  @Provide
  Arbitrary<String> tags() {
    return spelled(Arbitraries.of("<memory-context>", "</memory-context>"));
  }

  @Provide
  Arbitrary<String> openingTags() {
    return spelled(Arbitraries.just("<memory-context>"));
  }

  @Provide
  Arbitrary<String> closingTags() {
    return spelled(Arbitraries.just("</memory-context>"));
  }

  /** {@code plain} spelled character by character, with gaps and layers of encoding. */
  private static Arbitrary<String> spelled(Arbitrary<String> plain) {
    Arbitrary<List<String>> units =
        plain.flatMap(
            tag -> {
              List<Arbitrary<String>> perCharacter = new ArrayList<>();
              for (int i = 0; i < tag.length(); i++) {
                perCharacter.add(spelling(tag.charAt(i)));
              }
              return Combinators.combine(perCharacter).as(List::copyOf);
            });
    Arbitrary<List<String>> gaps = invisible().list().ofSize(16);
    return Combinators.combine(units, gaps, layers())
        .as(
            (spelled, between, layers) -> {
              StringBuilder tag = new StringBuilder(spelled.get(0));
              for (int i = 1; i < spelled.size(); i++) {
                String gap = between.get(i - 1);
                // gaps are invisible, so they do not end the reference either
                if (UNTERMINATED_HEX.matcher(tag).find()
                    && MAY_READ_AS_HEX_DIGIT.matcher(spelled.get(i)).lookingAt()) {
                  // &#x3c followed by e (or %65, ｅ) is &#x3ce, another character, for a browser too
                  tag.append(';');
                }
                tag.append(gap).append(spelled.get(i));
              }
              String out = tag.toString();
              for (String layer : layers) {
                out = apply(layer, out);
              }
              return out;
            });
  }

  /** One character of the tag, spelled any way a model reads it as that character. */
  private static Arbitrary<String> spelling(char c) {
    List<String> ways = new ArrayList<>();
    ways.add(String.valueOf(c));
    ways.add(String.valueOf(Character.toUpperCase(c)));
    ways.add("&#" + (int) c + ";");
    ways.add("&#" + (int) c);
    ways.add("&#00" + (int) c + ";");
    ways.add("&#x" + Integer.toHexString(c) + ";");
    ways.add("&#X" + Integer.toHexString(c).toUpperCase(Locale.ROOT));
    ways.add(String.format("%%%02X", (int) c));
    ways.add(String.format("%%%02x", (int) c));
    ways.add(String.format("\\u%04x", (int) c));
    ways.add(String.format("\\x%02X", (int) c));
    switch (c) {
      case '<' -> {
        ways.addAll(
            List.of(
                "&lt;",
                "&LT;",
                "&lt",
                "&lang;",
                "&lsaquo;",
                "%EF%BC%9C",
                "\u3008",
                "\u300A",
                "\u27E8",
                "\u27EA",
                "\u2039",
                "\u00AB",
                "\uFF1C",
                "\uFE64",
                "\u2329",
                "\u276E",
                "\u276C",
                "\u02C2",
                "\u29FC"));
      }
      case '>' -> {
        ways.addAll(
            List.of(
                "&gt;",
                "&GT;",
                "&gt",
                "&rang;",
                "&rsaquo;",
                "%EF%BC%9E",
                "\u3009",
                "\u300B",
                "\u27E9",
                "\u27EB",
                "\u203A",
                "\u00BB",
                "\uFF1E",
                "\uFE65",
                "\u232A",
                "\u276F",
                "\u276D",
                "\u02C3",
                "\u29FD"));
      }
      case '/' -> ways.addAll(List.of("&sol;", "\\/", "\uFF0F", "\u2044", "\u2215", "\u29F8"));
      case '-' ->
          ways.addAll(
              List.of(
                  "&hyphen;",
                  "&dash;",
                  "&minus;",
                  "_",
                  " ",
                  "",
                  "\u2010",
                  "\u2011",
                  "\u2212",
                  "\uFF0D",
                  "\uFE63",
                  "\\u002d",
                  "-\n",
                  " - "));
      default -> {
        ways.add(String.valueOf((char) (0xFF41 + c - 'a'))); // fullwidth
        ways.add(String.valueOf((char) (0xFF21 + c - 'a'))); // fullwidth capital
        ways.add(new String(Character.toChars(0x1D41A + c - 'a'))); // mathematical bold
        ways.add(new String(Character.toChars(0x1D4EA + c - 'a'))); // mathematical bold script
        ways.add(new String(Character.toChars(0x1D5BA + c - 'a'))); // mathematical sans-serif
        ways.add("&" + c + "opf;");
        ways.addAll(lookAlikes(c));
      }
    }
    return Arbitraries.of(ways);
  }

  /** Small capitals and Cyrillic and Greek letters that read as the Latin letter {@code c}. */
  private static List<String> lookAlikes(char c) {
    return switch (c) {
      case 'm' -> List.of("\u1D0D", "\u043C", "\u041C", "\u039C");
      case 'e' -> List.of("\u1D07", "\u0435", "\u0415", "\u0395");
      case 'o' -> List.of("\u1D0F", "\u043E", "\u03BF", "\u039F", "&omicron;");
      case 'r' -> List.of("\u0280");
      case 'y' -> List.of("\u028F", "\u0443", "\u04AF");
      case 'c' -> List.of("\u1D04", "\u0441", "\u03F2");
      case 'n' -> List.of("\u0274", "\u039D");
      case 't' -> List.of("\u1D1B", "\u0422", "\u03A4");
      case 'x' -> List.of("\u0445", "\u03C7", "\u0425");
      default -> List.of();
    };
  }

  /** Nothing, or a character a model does not see, or a space where one may stand. */
  private static Arbitrary<String> invisible() {
    return Arbitraries.frequencyOf(
        Tuple.of(6, Arbitraries.just("")),
        Tuple.of(
            1,
            Arbitraries.of(
                "\u200B",
                "\u200C",
                "\u200D",
                "\u2060",
                "\uFEFF",
                "\u00AD",
                "\u180E",
                "\u034F",
                "\uFE0F",
                "&zwj;",
                "&#8203;",
                "&shy;",
                "%E2%80%8B")));
  }

  /** Encodings of the whole tag, applied in order: double encoding and the like. */
  private static Arbitrary<List<String>> layers() {
    return Arbitraries.of("amp", "percent-amp", "percent-percent", "amp-entity")
        .list()
        .ofMaxSize(2);
  }

  private static String apply(String layer, String text) {
    return switch (layer) {
      case "amp" -> text.replace("&", "&amp;");
      case "percent-amp" -> text.replace("&", "%26");
      case "percent-percent" -> text.replace("%", "%25");
      case "amp-entity" -> text.replace("&", "&#38;");
      default -> throw new IllegalArgumentException(layer);
    };
  }

  // ---- text without a tag

  /**
   * Recalled-looking text of words, CJK, angle brackets of every kind, entities, escapes and
   * percent signs, with the name's words and their look-alikes, but never a {@code y} or anything
   * that reads as one: without it no {@code memory} and so no tag can form.
   */
  @Provide
  Arbitrary<String> untagged() {
    Arbitrary<String> pieces =
        Arbitraries.oneOf(
            Arbitraries.of(
                "memo",
                "memories",
                "context",
                "contexts",
                "mem",
                "\u1D0D\u1D07\u1D0D\u1D0F\u0280",
                "\u043C\u0435\u043C\u043E",
                "\uFF4D\uFF45\uFF4D\uFF4F",
                "\uD835\uDC26",
                " ",
                " ",
                "\n",
                "-",
                "_",
                "/",
                "</",
                "<",
                ">",
                "/>",
                "&",
                "&amp;",
                "&lt;",
                "&gt;",
                "&#60;",
                "&#x3E;",
                "&#",
                "&lt",
                "%",
                "%3C",
                "%2F",
                "%3E",
                "50%",
                "%E4%BD%A0",
                "\\",
                "\\u003c",
                "\\u00",
                "\\x3",
                "\\/",
                "a < b",
                "c > d",
                "AT&T",
                "\u3008",
                "\u3009",
                "\u300A",
                "\u300B",
                "\u27E8",
                "\u27E9",
                "\u2039",
                "\u203A",
                "\u00AB",
                "\u00BB",
                "\uFF1C",
                "\uFF1E",
                "\uFE64",
                "\uFE65",
                "\u200B",
                "\u00A0",
                "\u3000",
                "\uFF0C",
                "\u3002",
                "\u300C",
                "\u300D",
                "Stra\u00DFe",
                "caf\u00E9",
                "\uFB01",
                "\uD83D\uDE00",
                "\u2212",
                "\u2010"),
            Arbitraries.strings().withCharRange('\u4E00', '\u9FA5').ofMinLength(1).ofMaxLength(6),
            Arbitraries.strings()
                .withCharRange(' ', '~')
                .ofMinLength(1)
                .ofMaxLength(8)
                .map(s -> s.replace("y", "").replace("Y", "")));
    return pieces.list().ofMaxSize(30).map(list -> String.join("", list));
  }
}
