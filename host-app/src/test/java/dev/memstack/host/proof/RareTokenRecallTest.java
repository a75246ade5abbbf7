package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.provider.PluginClassLoader;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Names, codes and rare words stay BM25's: one owner's everyday conversation of 177 turns goes
 * through a real host (builtin and vector plugins, the bundled E5 embedding model). Four turns are
 * about one rare token each (an order code, a rare surname, a rare word, a Chinese name); asked a
 * question that holds the token among ordinary words, which also match many other turns (some of
 * them nearer in meaning), each provider's own answer and the stack's answer have the turn within
 * their first three items. Four more turns name a rare token in passing in a long message, and a
 * few everyday questions are asked; their ranks are printed with the fusion's signals, not checked.
 */
class RareTokenRecallTest {

  private static final String AGENT = "a1";
  private static final String OWNER = "user:rare";
  private static final int TOP = 3;

  /** One rare token: the turn that holds it and a question that names it among ordinary words. */
  record Rare(String token, int position, String message, String reply, String question) {}

  /** Turns about their rare token: each is checked. */
  static final List<Rare> RARE =
      List.of(
          new Rare(
              "ZX-4471-QB",
              23,
              "I finally placed order ZX-4471-QB for the standing desk, they said it ships soon",
              "Good, I will remember that the desk is on its way.",
              "what was the status of order ZX-4471-QB?"),
          new Rare(
              "Vanderkolk",
              61,
              "My new dentist is Dr. Vanderkolk, the first visit went better than I feared",
              "I am glad it went well, a good dentist makes a difference.",
              "how did the appointment with Dr. Vanderkolk go?"),
          new Rare(
              "quokka",
              97,
              "On the island we saw a quokka and it really looked like it was smiling at us",
              "That must have been a lovely moment on the trip.",
              "where did we see the quokka?"),
          new Rare(
              "欧阳青禾",
              131,
              "My colleague 欧阳青禾 wants to join us for the weekend in the mountains",
              "The more the merrier, tell me if you need help with the plan.",
              "is 欧阳青禾 coming on the hiking trip with us?"));

  /**
   * Long turns about something else that name their rare token in passing, asked for the record
   * only: BM25's length normalisation and the question's ordinary words can rank such a turn below
   * shorter ones before any fusion, which is not what this test is about.
   */
  static final List<Rare> IN_PASSING =
      List.of(
          new Rare(
              "KP-2093-RM",
              40,
              "Long day. The kids had swimming, I burned the rice, and the shop finally wrote that"
                  + " KP-2093-RM is held at customs until next month. Anyway, what should we cook"
                  + " tomorrow?",
              "Sorry about the rice! Maybe a simple pasta tomorrow.",
              "what was the status of order KP-2093-RM?"),
          new Rare(
              "Oyelaran",
              78,
              "Busy morning: dropped the car at the garage, then the dentist, Oyelaran, who was"
                  + " kind about my wisdom tooth, then back to work for the budget meeting",
              "That is a full morning, I hope the afternoon is quieter.",
              "how did the appointment with Dr. Oyelaran go?"),
          new Rare(
              "axolotl",
              112,
              "Back from the aquarium trip: the bus was late, the café was packed, an axolotl"
                  + " stared at us for ages, and we had the best fish for dinner",
              "That sounds like a trip to remember.",
              "where did we see the axolotl?"),
          new Rare(
              "司徒沐岚",
              150,
              "Work was fine today, the new intern started, 司徒沐岚 said yes to the weekend by the"
                  + " lake, and I still have to pack the tent",
              "Tell me if you need help with the packing list.",
              "is 司徒沐岚 coming on the camping trip with us?"));

  /** Ordinary questions, asked for the record only: their figures are printed, not checked. */
  static final List<String> ORDINARY =
      List.of(
          "how is the sourdough starter doing?",
          "what did my sister say about the wedding?",
          "when is the quarterly tax report due?",
          "what was the status of the grocery order?",
          "where did we go hiking last weekend?");

  /** Turns that share the questions' ordinary words, and their meaning, without the rare token. */
  static final List<String> NEAR =
      List.of(
          "Can you check the status of my grocery order from Tuesday?",
          "The order of speakers at the conference changed again",
          "My status report for the team is due on Friday",
          "I want to order a new phone case, the old one cracked",
          "What was the delivery status of the couch we bought?",
          "The tracking page says my order is out for delivery, finally",
          "The status of the kitchen order is still pending, they keep saying next week",
          "The appointment with my doctor moved to Thursday afternoon",
          "I have a dentist appointment next month and I am dreading it",
          "How did the job interview go, you asked? Quite well actually",
          "The appointment at the bank went fine, the loan is approved",
          "My appointment with the physiotherapist went well, the knee is better",
          "We saw a kangaroo at the zoo and the kids loved it",
          "Where did I leave my keys, I looked everywhere",
          "We saw a great movie at the open air cinema",
          "We saw dolphins from the boat on the last day of the holiday",
          "My colleague is coming over for dinner on Thursday",
          "We are planning a hiking trip to the mountains in May",
          "Is anyone coming with us on the hiking trip this weekend?",
          "The hiking boots I ordered are too small",
          "My brother is coming on the hiking trip too, he booked the hut");

  static final List<String> SUBJECTS =
      List.of(
          "the sourdough starter",
          "my sister's wedding",
          "the quarterly tax report",
          "the tomatoes in the garden",
          "my knee after running",
          "the trip to Lisbon",
          "the piano lessons",
          "the new apartment",
          "the database migration at work",
          "the book club novel",
          "the vet visit for the dog",
          "the camping weekend",
          "the car repair",
          "the team offsite");

  static final List<String> FRAMES =
      List.of(
          "I spent the whole evening on %s and I am exhausted",
          "Remind me to follow up on %s next week",
          "Honestly %s is stressing me out a bit",
          "Good news about %s: it went better than expected",
          "Can you help me plan %s?",
          "My partner asked me about %s again this morning",
          "I keep forgetting the details of %s",
          "What should I do first for %s?",
          "I talked to my mother about %s on the phone",
          "I made some progress on %s today",
          "Let's not talk about %s for a while",
          "I wrote a checklist for %s");

  static final List<String> REPLIES =
      List.of(
          "Noted, I will keep that in mind.",
          "That sounds like a lot, take it one step at a time.",
          "Happy to help, let me know what you need.",
          "I will remind you next week.",
          "That is good to hear!",
          "Maybe start with the smallest piece of it.",
          "Thanks for telling me.");

  /**
   * The conversation, deterministic: every subject in every frame shuffled with a fixed seed (the
   * first 150), the near turns spread among them, and the rare turns at their positions.
   */
  static List<String[]> conversation() {
    List<String> ordinary = new ArrayList<>();
    for (String subject : SUBJECTS) {
      for (String frame : FRAMES) {
        ordinary.add(String.format(Locale.ROOT, frame, subject));
      }
    }
    Random random = new Random(4471);
    Collections.shuffle(ordinary, random);
    List<String> messages = new ArrayList<>(ordinary.subList(0, 150));
    for (int i = 0; i < NEAR.size(); i++) {
      messages.add(5 + i * 7, NEAR.get(i));
    }
    List<String[]> turns = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      turns.add(new String[] {messages.get(i), REPLIES.get(random.nextInt(REPLIES.size()))});
    }
    List<Rare> rare = new ArrayList<>(RARE);
    rare.addAll(IN_PASSING);
    rare.sort(Comparator.comparingInt(Rare::position));
    for (Rare r : rare) {
      turns.add(r.position(), new String[] {r.message(), r.reply()});
    }
    return turns;
  }

  @Test
  void aTurnAboutARareTokenIsInTheFirstThreeOfEveryProviderAndOfTheStack() {
    List<String[]> turns = conversation();
    assertThat(turns).hasSizeGreaterThanOrEqualTo(150);
    try (TestHost host =
        TestHost.create("raretoken")
            .with("memstack.stack.context.provider-timeout", "10s")
            .with("memstack.stack.context.deadline", "15s")
            .with("memstack.stack.system-prompt.timeout", "10s")) {
      host.start();
      HostClient api = host.client();
      org.awaitility.Awaitility.await("health UP")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(200))
          .until(api::up);

      // a turn every 29 minutes from 07:00 six days ago: the same four daily notes at every run
      Instant first =
          Instant.now()
              .truncatedTo(ChronoUnit.DAYS)
              .minus(Duration.ofDays(6))
              .plus(Duration.ofHours(7));
      for (int i = 0; i < turns.size(); i++) {
        ObjectNode body = HostClient.JSON.createObjectNode();
        body.put("ownerKey", OWNER);
        body.put("conversationId", "conv-rare");
        body.put("turnId", "rare-" + i);
        body.put("userMessage", turns.get(i)[0]);
        body.put("assistantReply", turns.get(i)[1]);
        body.put("triggerSource", "api");
        body.put(
            "time",
            first.plus(Duration.ofMinutes(29L * i)).truncatedTo(ChronoUnit.SECONDS).toString());
        api.post("/api/v1/agents/" + AGENT + "/memory/turns", body).expect(202);
      }
      for (String provider : List.of("builtin", "vector")) {
        api.awaitBacklog(
            "every turn delivered to " + provider,
            provider,
            Duration.ofSeconds(300),
            backlog -> {
              assertThat(backlog.get("pending").asInt()).as(backlog.toString()).isZero();
              assertThat(backlog.get("delivered").asLong())
                  .as(backlog.toString())
                  .isGreaterThanOrEqualTo(turns.size());
            });
      }

      StackMembers members = host.bean(StackMembers.class);
      // delivered is not yet searchable: the embedded store makes a delivered batch visible within
      // a second (LuceneIndex.BATCH_VISIBILITY_MILLIS); wait until the last turn can be found
      String last = turns.get(turns.size() - 1)[0];
      org.awaitility.Awaitility.await("the last turn searchable in vector")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  provider(members, "vector", last).stream()
                      .anyMatch(item -> item.text().contains(last)));
      SoftAssertions softly = new SoftAssertions();
      StringBuilder table = new StringBuilder();
      table.append(
          String.format(
              Locale.ROOT,
              "%n%-12s | %-8s | %-8s | %-8s | %s%n",
              "token",
              "builtin",
              "vector",
              "stack",
              "signals"));
      for (Rare rare : RARE) {
        Landing landing = landing(members, api, rare, table);
        softly
            .assertThat(landing.builtin())
            .as("builtin's rank of the turn holding %s", rare.token())
            .isBetween(1, TOP);
        softly
            .assertThat(landing.vector())
            .as("vector's rank of the turn holding %s", rare.token())
            .isBetween(1, TOP);
        softly
            .assertThat(landing.stack())
            .as("the stack's rank of the turn holding %s: %s", rare.token(), landing.answer())
            .isBetween(1, TOP);
      }
      table.append(String.format(Locale.ROOT, "%nnamed in passing (not checked):%n"));
      for (Rare rare : IN_PASSING) {
        landing(members, api, rare, table);
      }
      table.append(String.format(Locale.ROOT, "%nordinary questions (not checked):%n"));
      for (String question : ORDINARY) {
        List<RecallItem> builtin = provider(members, "builtin", question);
        table.append(String.format(Locale.ROOT, "%s%n  builtin: %s%n", question, lead(builtin)));
        for (int i = 0; i < Math.min(TOP, builtin.size()); i++) {
          table.append(
              String.format(
                  Locale.ROOT,
                  "    %d. %s %s%n",
                  i + 1,
                  gist(builtin.get(i)),
                  signals(builtin.get(i))));
        }
        List<JsonNode> recall = api.context(AGENT, OWNER, question, 10, true).expect(200).recall();
        for (int i = 0; i < Math.min(TOP, recall.size()); i++) {
          table.append(
              String.format(
                  Locale.ROOT,
                  "  stack %d. %s %s%n",
                  i + 1,
                  last(recall.get(i).get("text").asString()),
                  recall.get(i).get("metadata").get("stack.ranks")));
        }
      }
      System.out.println(table);
      softly.assertAll();
    }
  }

  /** Where the turn holding a rare token landed: its 1-based ranks (0: absent) and the answer. */
  record Landing(int builtin, int vector, int stack, Answer answer) {}

  /** Asks the providers and the stack {@code rare}'s question; adds a line to {@code table}. */
  private static Landing landing(
      StackMembers members, HostClient api, Rare rare, StringBuilder table) {
    List<RecallItem> ofBuiltin = provider(members, "builtin", rare.question());
    List<RecallItem> ofVector = provider(members, "vector", rare.question());
    int builtin = rank(ofBuiltin, rare.token());
    int vector = rank(ofVector, rare.token());
    Answer answer = api.context(AGENT, OWNER, rare.question(), 10, true).expect(200);
    List<JsonNode> recall = answer.recall();
    int stack = 0;
    String ranks = "";
    for (int i = 0; i < recall.size(); i++) {
      if (recall.get(i).get("text").asString().contains(rare.token())) {
        stack = i + 1;
        ranks = "stack.ranks=" + recall.get(i).get("metadata").get("stack.ranks");
        break;
      }
    }
    table.append(
        String.format(
            Locale.ROOT,
            "%-12s | %-8s | %-8s | %-8s | %s%s%s%n  %s%n",
            rare.token(),
            shown(builtin),
            shown(vector),
            shown(stack),
            ranks,
            builtin == 0 ? "" : " builtin: " + signals(ofBuiltin.get(builtin - 1)),
            vector == 0 ? "" : " vector: " + vectorSignals(ofVector.get(vector - 1)),
            lead(ofBuiltin)));
    return new Landing(builtin, vector, stack, answer);
  }

  /**
   * The provider's own answer, best first as the stack sorts it, asked for 100 items: as many
   * candidates as for the stack's 30 (both searches take at least 100 and 200), so the order is the
   * one the stack sees, only longer.
   */
  private static List<RecallItem> provider(StackMembers members, String id, String question) {
    StackMember member = members.find(id).orElseThrow(() -> new AssertionError("no " + id));
    RecallRequest request =
        new RecallRequest(
            AgentId.of(AGENT),
            OwnerKey.of(OWNER),
            null,
            question,
            100,
            Instant.now().plusSeconds(30));
    List<RecallItem> items =
        new ArrayList<>(
            PluginClassLoader.call(member.classLoader(), () -> member.provider().prefetch(request))
                .items());
    items.sort(Comparator.comparingDouble(RecallItem::score).reversed());
    return items;
  }

  /** The 1-based rank of the first item holding {@code token}, 0 when none does. */
  private static int rank(List<RecallItem> items, String token) {
    for (int i = 0; i < items.size(); i++) {
      if (items.get(i).text().contains(token)) {
        return i + 1;
      }
    }
    return 0;
  }

  /** BM25's lead: the keyword scores of the keyword list's first two hits. */
  private static String lead(List<RecallItem> items) {
    Double first = null;
    Double second = null;
    for (RecallItem item : items) {
      String rank = item.metadata().get("keywordRank");
      if ("1".equals(rank)) {
        first = Double.valueOf(item.metadata().get("keywordScore"));
      } else if ("2".equals(rank)) {
        second = Double.valueOf(item.metadata().get("keywordScore"));
      }
    }
    return first == null || second == null
        ? "keyword #1 " + first + ", #2 " + second
        : String.format(
            Locale.ROOT, "keyword #1 / #2 = %.2f / %.2f = %.2f", first, second, first / second);
  }

  private static String signals(RecallItem item) {
    Map<String, String> m = item.metadata();
    return "keywordRank="
        + m.get("keywordRank")
        + " denseRank="
        + m.get("denseRank")
        + " fused="
        + m.get("fused")
        + (m.containsKey("keywordLead") ? " keywordLead" : "");
  }

  private static String vectorSignals(RecallItem item) {
    Map<String, String> m = item.metadata();
    return "vector_rank="
        + m.get("signal.vector_rank")
        + " keyword_rank="
        + m.get("signal.keyword_rank")
        + " fused="
        + m.get("signal.fused");
  }

  private static String gist(RecallItem item) {
    return last(item.text());
  }

  /** The user's line of an item's text. */
  private static String last(String text) {
    for (String line : text.split("\n")) {
      if (line.startsWith("**User:** ")) {
        return line.substring("**User:** ".length());
      }
    }
    return text.replace('\n', ' ');
  }

  private static String shown(int rank) {
    return rank == 0 ? "absent" : Integer.toString(rank);
  }
}
