package dev.memstack.vector.text;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ReplyFiller: acknowledgements are no memory of their own")
class ReplyFillerTest {

  @Test
  @DisplayName("takes acknowledgements, courtesy, echoes of one word and emoji as filler")
  void filler() {
    String[] fillers = {
      "Lovely!",
      "ok",
      "OK.",
      "Noted.",
      "Thanks!",
      "Thank you so much!",
      "Got it",
      "Sure",
      "Sure thing!",
      "Sounds good to me.",
      "I'll keep that in mind.",
      "Good to know.",
      "I will remember it.",
      "Nice, noted.",
      "How wonderful, the bassoon!",
      "yum pancake",
      "Happy birthday!",
      "👍",
      "🎉🎉",
      ":)",
      "",
      "  ",
      null,
      "好的",
      "收到",
      "好的，收到！",
      "明白了",
      "谢谢！",
      "没问题",
      "哈哈",
      "太好了！",
      "嗯嗯",
      "好的，我记住了",
      "Great, 4711 it is."
    };
    for (String filler : fillers) {
      assertThat(ReplyFiller.isFiller(filler)).as("'%s' is filler", filler).isTrue();
    }
  }

  @Test
  @DisplayName("keeps replies with two content words or more")
  void substantive() {
    String[] replies = {
      "I adopted a greyhound too!",
      "Then take the ferry at 8:15, it stops next to the office",
      "Your flight leaves from terminal 2",
      "A retired greyhound! How is Biscuit settling in at home?",
      "好的，已经记住你的储物柜密码了",
      "明天下午三点开会",
      "Noted: the invoice is due on Friday."
    };
    for (String reply : replies) {
      assertThat(ReplyFiller.isFiller(reply)).as("'%s' is substantive", reply).isFalse();
    }
  }
}
