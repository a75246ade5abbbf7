package dev.memstack.vector.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.vector.text.Supersession.Verdict;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Supersession: duplicate, update or unrelated")
class SupersessionTest {

  @Test
  @DisplayName("judges the labelled pairs with at most 5 % errors")
  void judgesTheLabelledPairs() {
    List<SupersedePairs.Pair> pairs = SupersedePairs.load();
    SupersedePairs.Result result = SupersedePairs.run(pairs, Supersession::judge);
    System.out.println("Supersession over supersede-pairs.tsv (wording only, no embedder):");
    System.out.print(result.report());

    assertThat(pairs).hasSizeGreaterThanOrEqualTo(60);
    assertThat(pairs.stream().filter(p -> p.language().equals("zh")))
        .hasSizeGreaterThanOrEqualTo(20);
    for (Verdict label : Verdict.values()) {
      assertThat(pairs.stream().filter(p -> p.label() == label))
          .as("pairs labelled %s", label)
          .hasSizeGreaterThanOrEqualTo(pairs.size() / 4);
    }
    assertThat(result.errorRate()).as(result.report()).isLessThanOrEqualTo(0.05);
  }

  @Test
  @DisplayName("the examples of the docs")
  void examples() {
    assertThat(Supersession.judge("I am allergic to penicillin", "I am not allergic to penicillin"))
        .isEqualTo(Verdict.UPDATE);
    assertThat(Supersession.judge("My locker code is 1111", "My locker code is 2222"))
        .isEqualTo(Verdict.UPDATE);
    assertThat(Supersession.judge("I am allergic to penicillin", "I'm allergic to penicillin"))
        .isEqualTo(Verdict.DUPLICATE);
    assertThat(Supersession.judge("My locker code is 1111", "The code of my locker is 1111"))
        .isEqualTo(Verdict.DUPLICATE);
    assertThat(Supersession.judge("我对青霉素过敏", "我对青霉素不过敏")).isEqualTo(Verdict.UPDATE);
    assertThat(Supersession.judge("我的储物柜密码是1111", "我的储物柜密码是2222")).isEqualTo(Verdict.UPDATE);
    assertThat(Supersession.judge("I play the bassoon", "The tax report is due"))
        .isEqualTo(Verdict.UNRELATED);
  }

  @Test
  @DisplayName("the embedder's nearness counts only for wording that is half alike")
  void embedderNearDuplicates() {
    // half alike by wording, near by embedding, a changed number: an update
    assertThat(Supersession.judge("My flight leaves at 7", "My flight departs at 9", 0.97, 0.95))
        .isEqualTo(Verdict.UPDATE);
    assertThat(Supersession.judge("My flight leaves at 7", "My flight departs at 9", 0.90, 0.95))
        .isEqualTo(Verdict.UNRELATED);
    // no wording left on either side: the embedder decides whether they are near
    assertThat(Supersession.judge("I am 30", "I am 31", 0.97, 0.95)).isEqualTo(Verdict.UPDATE);
    assertThat(Supersession.judge("I am 30", "I am 31")).isEqualTo(Verdict.UNRELATED);
    // a paraphrase in other words, or another topic at E5's typical 0.97: both stand
    assertThat(Supersession.judge("I adore sushi", "Sushi is my favourite", 0.97, 0.95))
        .isEqualTo(Verdict.UNRELATED);
    assertThat(Supersession.judge("I live in Berlin", "I work in Berlin", 0.971, 0.95))
        .isEqualTo(Verdict.UNRELATED);
    assertThat(Supersession.judge("我的储物柜密码是1111", "我的自行车锁密码是2222", 0.982, 0.95))
        .isEqualTo(Verdict.UNRELATED);
    assertThat(Supersession.judge("Yes", "yes", Double.NaN, 0.95)).isEqualTo(Verdict.DUPLICATE);
  }

  @Test
  @DisplayName("reads the values of a text: numbers, negation, dates, names, quotes, answers")
  void readsValues() {
    Statement en =
        Statement.parse("[2026-03-02] user: No, my rent isn't $1,200 on Monday, Anna said \"ok\"");
    assertThat(en.answer).isEqualTo(Statement.Answer.NO);
    assertThat(en.negated).isTrue();
    assertThat(en.numbers).containsExactly("1200");
    assertThat(en.dates).containsExactly("monday");
    assertThat(en.names).containsExactly("anna");
    assertThat(en.quotes).containsExactly("ok");
    assertThat(en.persons).containsExactly("1s");

    Statement zh = Statement.parse("我女儿叫小美，她一九八五年生，非常喜欢星期三");
    assertThat(zh.negated).as("非常 is not a negation").isFalse();
    assertThat(zh.numbers).containsExactly("1985");
    assertThat(zh.dates).containsExactly("星期三");
    assertThat(zh.persons).contains("1s", "3f");
    assertThat(HanParts.chineseNumber("两万三千零五")).isEqualTo(23005);
    assertThat(HanParts.chineseNumber("三十五")).isEqualTo(35);
    assertThat(HanParts.chineseNumber("十")).isEqualTo(10);
  }
}
