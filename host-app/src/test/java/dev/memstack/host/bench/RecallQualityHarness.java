package dev.memstack.host.bench;

import dev.memstack.host.model.BundledModel;
import dev.memstack.host.model.ModelProperties;
import dev.memstack.host.model.OnnxEmbedder;
import dev.memstack.spi.Embedder.Kind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Recall quality of the three rankings the vector provider can use: vector alone, BM25 alone and
 * their fusion, per bundled embedding model. Not a test; run it with
 *
 * <pre>
 * ./mvnw -B -q -o -pl host-app test-compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
 *     -Dexec.classpathScope=test -Dexec.mainClass=dev.memstack.host.bench.RecallQualityHarness
 * </pre>
 *
 * Optional arguments ({@code -Dexec.args="..."}): owners (default 40), turns per owner (default
 * 40), seed (default 7), then model ids (default all four). The data set is generated from the
 * seed: 60% of each owner's turns are facts drawn from {@link #FACTS} (a slot filled at random,
 * each fact at most once per owner), the rest small talk and near misses (on the facts' topics,
 * answering nothing); every fact comes with questions worded apart from it ("what kind of dog do I
 * have?" for "I adopted a retired greyhound ..."), and a question's answer is the turn that stated
 * the fact. Only the asking owner's turns are ranked, as the provider filters by owner. Turns are
 * stored as the provider stores a user message: {@code [yyyy-MM-dd] user: text}, embedded with the
 * model's passage prefix, indexed for BM25 with the provider's English analyzer and stop words. The
 * fused ranking reproduces {@code dev.memstack.vector.RecallRanker} at the provider's defaults
 * (weighted reciprocal rank fusion, vector weight 1.0, keyword weight 0.5, k = 20, vector threshold
 * 0.3, max(3 × limit, 20) candidates per list); its recency factor is left out (1) since the dates
 * are synthetic.
 */
public final class RecallQualityHarness {

  /** {@code dev.memstack.vector.RecallRanker} defaults, from {@code VectorSettings}. */
  private static final double VECTOR_WEIGHT = 1.0;

  private static final double KEYWORD_WEIGHT = 0.5;
  private static final int RRF_K = 20;
  private static final double THRESHOLD = 0.3;

  /** {@code LuceneMemoryVectorStore.STOP_WORDS}, copied: the host never links a provider class. */
  private static final List<String> STOP_WORDS =
      List.of(
          ("a about above after again against all am an and any are as at be because been "
                  + "before being below between both but by can could did do does doing down during "
                  + "each few for from further had has have having he her here hers herself him "
                  + "himself his how i if in into is it its itself just me more most my myself no "
                  + "nor not now of off on once only or other our ours ourselves out over own same "
                  + "she should so some such than that the their theirs them themselves then there "
                  + "these they this those through to too under until up very was we were what when "
                  + "where which while who whom why will with would you your yours yourself "
                  + "yourselves i'm i've i'd i'll you're you've it's that's don't doesn't didn't "
                  + "can't won't let's please tell remember remind user assistant")
              .split(" "));

  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT).withZone(ZoneOffset.UTC);

  /**
   * A fact: the utterance with one {@code %s} slot, the slot's values, and paraphrased questions.
   */
  private record Fact(String utterance, List<String> values, List<String> questions) {}

  private static Fact fact(String utterance, String values, String... questions) {
    return new Fact(utterance, List.of(values.split("\\|")), List.of(questions));
  }

  static final List<Fact> FACTS =
      List.of(
          fact(
              "I adopted a retired greyhound named %s last spring.",
              "Biscuit|Pepper|Rocket|Mabel|Juniper",
              "what kind of dog do I have?",
              "which pet did I bring home?"),
          fact(
              "Our tabby cat %s keeps knocking plants off the windowsill.",
              "Miso|Tiger|Olive|Ziggy",
              "what is my kitten called?",
              "which animal keeps making a mess at home?"),
          fact(
              "I keep two %s in a big tank in the living room.",
              "goldfish|axolotls|turtles|guppies", "do I have any aquarium animals?"),
          fact(
              "I work as a %s at a small firm downtown.",
              "tax accountant|structural engineer|paralegal|graphic designer|pharmacist",
              "what do I do for a living?",
              "what is my profession?"),
          fact(
              "I just started a new position as %s at a hospital.",
              "night-shift nurse|radiology technician|medical receptionist",
              "where did I get hired recently?"),
          fact(
              "I grew up in %s before my parents relocated.",
              "Lisbon|Krakow|Osaka|Valparaiso|Tampere",
              "which city is my hometown?",
              "where did I spend my childhood?"),
          fact(
              "We moved into a flat in %s three months ago.",
              "Rotterdam|Leeds|Montreal|Lyon|Bilbao",
              "where do I live these days?",
              "what town is my current home in?"),
          fact(
              "Every Saturday morning I go %s with a club.",
              "rock climbing|trail running|rowing|birdwatching",
              "what sport do I practice on weekends?",
              "how do I spend my weekend mornings?"),
          fact(
              "Lately I have been teaching myself to play the %s.",
              "cello|banjo|ukulele|saxophone|harp", "which instrument am I learning?"),
          fact(
              "I collect vintage %s and have nearly two hundred of them.",
              "postcards|fountain pens|vinyl records|board games", "what is my collecting hobby?"),
          fact(
              "My favourite dish is %s, I could eat it daily.",
              "mushroom risotto|pad thai|shakshuka|bibimbap|lasagne",
              "what meal do I like most?",
              "which food could I have every day?"),
          fact(
              "I stopped eating meat two years ago and went fully %s.",
              "vegetarian|vegan|pescatarian", "do I follow any particular diet?"),
          fact(
              "I can't stand %s, the smell alone puts me off.",
              "blue cheese|coriander|licorice|durian", "is there something I refuse to eat?"),
          fact(
              "My older sister %s is a pilot for a cargo airline.",
              "Clara|Ingrid|Noor|Yuki",
              "what does my sibling do for work?",
              "who in my family flies planes?"),
          fact(
              "My son %s turns seven in June and wants a dinosaur party.",
              "Leo|Tomas|Arjun|Felix",
              "how old is my boy going to be?",
              "what celebration am I planning for my kid?"),
          fact(
              "My husband %s works nights at the bakery.",
              "Marco|Daniel|Kenji|Pavel", "what is my partner's job?"),
          fact(
              "My grandmother %s still bakes bread at ninety-one.",
              "Rosa|Edith|Hanna|Greta", "how old is my granny?"),
          fact(
              "We booked two weeks in %s for August.",
              "Iceland|Vietnam|Sardinia|Patagonia|Morocco",
              "where am I travelling this summer?",
              "what holiday destination did I pick?"),
          fact(
              "Next month I fly to %s for a trade fair.",
              "Singapore|Chicago|Milan|Dubai", "do I have any business trips coming up?"),
          fact(
              "I am badly allergic to %s and carry an epipen.",
              "peanuts|shellfish|bee stings|sesame",
              "what am I allergic to?",
              "which things trigger a severe reaction in me?"),
          fact(
              "Pollen season wrecks me, I take %s every morning from April.",
              "antihistamines|cetirizine|loratadine", "what medication do I use for hay fever?"),
          fact(
              "I speak %s fluently because of my mother.",
              "Portuguese|Polish|Japanese|Greek|Swahili",
              "which languages do I know?",
              "besides English, what can I converse in?"),
          fact(
              "I am taking evening classes in %s at the community college.",
              "Mandarin|Arabic|Italian|Korean", "what language am I studying?"),
          fact(
              "I drive an old %s that keeps breaking down.",
              "Volvo estate|Fiat Panda|Toyota Corolla|Land Rover",
              "what car do I own?",
              "which vehicle is unreliable?"),
          fact(
              "I commute by %s, about forty minutes each way.",
              "ferry|tram|e-bike|train", "how do I get to the office?"),
          fact(
              "I am running the %s marathon in October.",
              "Berlin|Chicago|Amsterdam|Valencia",
              "which race am I training for?",
              "do I have a long-distance running event planned?"),
          fact(
              "My knee surgery is scheduled for %s.",
              "the twelfth|next Tuesday|early March|the end of the month", "when is my operation?"),
          fact(
              "I have type 1 diabetes and check my %s several times a day.",
              "glucose|blood sugar|sugar levels", "do I have any chronic illness?"),
          fact(
              "I support %s and never miss a home game.",
              "Celtic|Benfica|Ajax|Napoli", "which football team am I a fan of?"),
          fact(
              "I finished reading %s and loved the ending.",
              "Middlemarch|Dune|The Overstory|Piranesi",
              "what book did I complete recently?",
              "which novel did I enjoy?"),
          fact(
              "I am binge watching %s with my flatmate.",
              "Severance|The Bear|Shogun|Slow Horses", "what show am I watching?"),
          fact(
              "I prefer %s in the morning, no sugar.",
              "green tea|espresso|oolong|black coffee", "how do I take my first drink of the day?"),
          fact(
              "My birthday is on %s, same day as my dad's.",
              "the 3rd of May|the 17th of November|the 9th of January|the 28th of July",
              "when was I born?",
              "what date should I get congratulated on?"),
          fact(
              "Our wedding anniversary is %s, we married in a barn.",
              "in late September|on Valentine's Day|the first of June", "when did I get married?"),
          fact(
              "I am saving up for a %s by next year.",
              "down payment on a house|sailboat|camper van|sabbatical",
              "what is my financial goal?",
              "what am I putting money aside for?"),
          fact(
              "I volunteer at the %s on Wednesdays.",
              "food bank|animal shelter|public library|hospice", "do I do any charity work?"),
          fact(
              "I studied %s at university but never worked in it.",
              "astrophysics|art history|marine biology|philosophy",
              "what was my degree in?",
              "which subject did I major in?"),
          fact(
              "I am afraid of %s, always have been.",
              "heights|deep water|spiders|flying", "what is my phobia?", "what scares me?"),
          fact(
              "I grow %s on the balcony every summer.",
              "tomatoes|chillies|strawberries|basil",
              "what plants do I cultivate?",
              "is there any gardening I do?"),
          fact(
              "I wake up at %s to meditate before work.",
              "five|half past five|six", "what time do I get out of bed?"),
          fact(
              "I use %s as my editor and dark mode everywhere.",
              "vim|emacs|VS Code|IntelliJ", "which text editor do I code in?"),
          fact(
              "My laptop is a %s I bought second hand.",
              "ThinkPad X1|MacBook Air|Framework 13|Dell XPS", "what computer do I use?"),
          fact(
              "I play %s online with old school friends on Fridays.",
              "chess|Minecraft|Rocket League|poker",
              "what games do I play at the end of the week?"),
          fact(
              "I am renovating the %s myself, tiles arrive Monday.",
              "bathroom|kitchen|attic|garage",
              "which room is under construction?",
              "what DIY project am I working on?"),
          fact(
              "My best friend %s is getting married in Crete.",
              "Sofia|Omar|Lena|Theo", "whose wedding am I attending?"),
          fact(
              "I need to renew my %s before the trip.",
              "passport|driving licence|visa|travel insurance",
              "what document is about to expire?"),
          fact(
              "I lost my job at the %s in January.",
              "insurance company|newspaper|call centre|car factory",
              "was I made redundant?",
              "what happened to my last employment?"),
          fact(
              "I sing %s in a community choir.",
              "alto|tenor|soprano|bass",
              "what is my voice part?",
              "do I perform music with a group?"),
          fact(
              "I ride a %s to work when it is not raining.",
              "fixed-gear bike|scooter|recumbent bicycle", "how do I travel on dry days?"),
          fact(
              "I am training my puppy %s to stop chewing shoes.",
              "Noodle|Bingo|Waffle|Scout", "what behaviour problem does my young dog have?"),
          fact(
              "I always book an aisle seat because of my %s.",
              "long legs|back pain|claustrophobia", "where do I like to sit on planes?"),
          fact(
              "Our landlord is raising the rent by %s in spring.",
              "ten percent|eighty euros|a hundred pounds", "is my housing going to cost more?"),
          fact(
              "I bake %s every Sunday for the neighbours.",
              "sourdough|cinnamon rolls|banana bread|focaccia",
              "what do I make in the oven at the weekend?"),
          fact(
              "I have a standing appointment with my %s every other Thursday.",
              "therapist|physiotherapist|personal trainer|dentist",
              "who do I see regularly on Thursdays?"),
          fact(
              "I quit smoking %s ago and use nicotine gum.",
              "eight months|a year|six weeks", "did I use to have any bad habits?"),
          fact(
              "My daughter %s just started piano lessons.",
              "Ava|Mina|Ella|Zoe",
              "what instrument is my girl learning?",
              "which activity did my child begin?"));

  private static final List<String> SMALL_TALK =
      List.of(
          "Hi there, how are you doing today?",
          "Thanks, that was helpful.",
          "Can you summarise what we just talked about?",
          "Ha, that's funny.",
          "Ok, let me think about it for a minute.",
          "What's the weather looking like tomorrow?",
          "Good morning! Busy day ahead.",
          "Can you help me write an email to my colleague?",
          "Never mind, I figured it out.",
          "I'm a bit tired today, long week.",
          "Could you explain that again more simply?",
          "Let's continue this later.",
          "That makes sense, thank you.",
          "Give me three ideas for a quick lunch.",
          "How do I convert Celsius to Fahrenheit?",
          "What's a good way to stay focused?",
          "Write a short poem about autumn.",
          "Sorry, I got distracted.",
          "Is it better to rent or to buy?",
          "What's the capital of Australia?");

  /** Filler near the facts' topics that answers none of the questions: the hard negatives. */
  private static final List<String> NEAR_MISSES =
      List.of(
          "My neighbour's dog barks all night, it drives everyone mad.",
          "Do you know any good documentaries about cats?",
          "Which city has the best museums in Europe, in your opinion?",
          "My colleague keeps complaining about her job.",
          "What are some easy vegetarian recipes for a crowd?",
          "How long does it take to learn a new language as an adult?",
          "What's the cheapest time of year to fly to Asia?",
          "Are electric cars actually cheaper to run?",
          "How many people finish a marathon each year?",
          "What do you think of people who collect things obsessively?",
          "Is it normal for kids to be scared of the dark?",
          "Recommend a good series to watch this weekend.",
          "What's the difference between a latte and a flat white?",
          "How do I ask my boss for a raise?",
          "Which plants are hard to kill for beginners?",
          "Is it worth buying a refurbished computer?",
          "What should I pack for a rainy holiday?",
          "My friend says meditation changed her life, is that real?",
          "How do hospitals schedule surgeries?",
          "What are common food allergies in children?",
          "Tell me a fun fact about football.",
          "How do I fix a squeaky door hinge?",
          "What's a good present for a grandparent?",
          "Why are rents going up everywhere?");

  /** One stored turn of an owner. */
  private record StoredTurn(String id, String owner, String text) {}

  /** A question of an owner with the ids of the turns that answer it. */
  private record Question(String owner, String text, Set<String> answers) {}

  private record DataSet(List<StoredTurn> turns, List<Question> questions) {}

  /** recall@5 and @10 of one ranking. */
  private record Recall(double at5, double at10) {}

  private RecallQualityHarness() {}

  public static void main(String[] args) throws IOException {
    int owners = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    int turnsPerOwner = args.length > 1 ? Integer.parseInt(args[1]) : 40;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 7;
    List<BundledModel> models = new ArrayList<>();
    for (int i = 3; i < args.length; i++) {
      String id = args[i];
      models.add(
          Arrays.stream(BundledModel.values())
              .filter(m -> m.id().equals(id))
              .findFirst()
              .orElseThrow(() -> new IllegalArgumentException("unknown model " + id)));
    }
    if (models.isEmpty()) {
      models.addAll(List.of(BundledModel.values()));
    }
    DataSet data = generate(owners, turnsPerOwner, seed);
    System.out.printf(
        Locale.ROOT,
        "%d owners x %d turns = %d turns, %d questions, %d fact templates, seed %d%n",
        owners,
        turnsPerOwner,
        data.turns().size(),
        data.questions().size(),
        FACTS.size(),
        seed);

    Map<String, List<String>> keyword = bm25(data);
    Recall bm25 = recall(data.questions(), q -> keyword.get(q.text() + "\u0000" + q.owner()));

    System.out.println(
        "| model | vector @5 | vector @10 | BM25 @5 | BM25 @10 | fused @5 | fused @10 |"
            + " fused, no threshold @5 | @10 | embed s (turns + questions) |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|");
    for (BundledModel model : models) {
      try (OnnxEmbedder embedder =
          new OnnxEmbedder(model, new ModelProperties.Onnx(1, 512, 1, 0, true, false))) {
        embedder.load();
        long start = System.nanoTime();
        List<float[]> passages =
            embedder.embed(data.turns().stream().map(StoredTurn::text).toList(), Kind.PASSAGE);
        List<float[]> queries =
            embedder.embed(data.questions().stream().map(Question::text).toList(), Kind.QUERY);
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, float[]> turnVectors = new HashMap<>();
        for (int i = 0; i < passages.size(); i++) {
          turnVectors.put(data.turns().get(i).id(), passages.get(i));
        }
        Map<Question, float[]> questionVectors = new HashMap<>();
        for (int i = 0; i < queries.size(); i++) {
          questionVectors.put(data.questions().get(i), queries.get(i));
        }
        Map<String, List<StoredTurn>> byOwner = new HashMap<>();
        data.turns()
            .forEach(t -> byOwner.computeIfAbsent(t.owner(), o -> new ArrayList<>()).add(t));

        Map<Question, List<Scored>> vectorRanks = new HashMap<>();
        for (Question q : data.questions()) {
          vectorRanks.put(
              q, cosineRanking(questionVectors.get(q), byOwner.get(q.owner()), turnVectors));
        }
        Recall vector =
            recall(data.questions(), q -> vectorRanks.get(q).stream().map(Scored::id).toList());
        Recall fused = fusedRecall(data.questions(), vectorRanks, keyword, THRESHOLD);
        Recall fusedAll = fusedRecall(data.questions(), vectorRanks, keyword, -1);
        System.out.printf(
            Locale.ROOT,
            "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f |%n",
            model.id(),
            vector.at5(),
            vector.at10(),
            bm25.at5(),
            bm25.at10(),
            fused.at5(),
            fused.at10(),
            fusedAll.at5(),
            fusedAll.at10(),
            seconds);
      }
    }
  }

  /** The generated conversation set; the same seed gives the same set. */
  static DataSet generate(int owners, int turnsPerOwner, long seed) {
    if (owners < 1 || turnsPerOwner < 1) {
      throw new IllegalArgumentException("owners and turns per owner must be positive");
    }
    Random random = new Random(seed);
    Instant start = Instant.parse("2026-01-05T09:00:00Z");
    List<StoredTurn> turns = new ArrayList<>();
    List<Question> questions = new ArrayList<>();
    int factsPerOwner = Math.min(FACTS.size(), Math.max(1, turnsPerOwner * 3 / 5));
    for (int o = 0; o < owners; o++) {
      String owner = "owner-" + o;
      List<Fact> shuffled = new ArrayList<>(FACTS);
      Collections.shuffle(shuffled, random);
      List<Object> slots =
          new ArrayList<>(shuffled.subList(0, Math.min(factsPerOwner, turnsPerOwner)));
      while (slots.size() < turnsPerOwner) {
        List<String> filler = random.nextBoolean() ? SMALL_TALK : NEAR_MISSES;
        slots.add(filler.get(random.nextInt(filler.size())));
      }
      Collections.shuffle(slots, random);
      Instant day = start.plus(random.nextInt(60), ChronoUnit.DAYS);
      for (int t = 0; t < slots.size(); t++) {
        String id = owner + "/turn-" + t;
        String message;
        if (slots.get(t) instanceof Fact f) {
          message =
              String.format(
                  Locale.ROOT, f.utterance(), f.values().get(random.nextInt(f.values().size())));
          String question = f.questions().get(random.nextInt(f.questions().size()));
          questions.add(new Question(owner, question, Set.of(id)));
        } else {
          message = (String) slots.get(t);
        }
        // as MemoryTexts.dated(time, "user: " + message) writes a user message
        turns.add(new StoredTurn(id, owner, "[" + DAY.format(day) + "] user: " + message));
        day = day.plus(random.nextInt(3), ChronoUnit.DAYS);
      }
    }
    return new DataSet(turns, questions);
  }

  private record Scored(String id, double score) {}

  private static List<Scored> cosineRanking(
      float[] query, List<StoredTurn> turns, Map<String, float[]> vectors) {
    List<Scored> ranked = new ArrayList<>();
    for (StoredTurn turn : turns) {
      float[] v = vectors.get(turn.id());
      double dot = 0;
      for (int i = 0; i < v.length; i++) {
        dot += query[i] * v[i];
      }
      ranked.add(new Scored(turn.id(), dot));
    }
    ranked.sort(Comparator.comparingDouble(Scored::score).reversed().thenComparing(Scored::id));
    return ranked;
  }

  /**
   * {@code RecallRanker.rank} for one limit: the top max(3 × limit, 20) of each list (vector hits
   * at or above the threshold), {@code Σ w / (k + rank)} normalised by {@code (w_v + w_k) / (k +
   * 1)}, ties broken by id, recency factor 1.
   */
  private static List<String> fuse(
      List<Scored> vector, List<String> keyword, int limit, double threshold) {
    int candidates = Math.max(limit * 3, 20);
    Map<String, Double> fused = new LinkedHashMap<>();
    int rank = 0;
    for (Scored s : vector) {
      if (rank >= candidates || s.score() < threshold) {
        break;
      }
      rank++;
      fused.merge(s.id(), VECTOR_WEIGHT / (RRF_K + rank), Double::sum);
    }
    for (int i = 0; i < Math.min(candidates, keyword.size()); i++) {
      fused.merge(keyword.get(i), KEYWORD_WEIGHT / (RRF_K + i + 1), Double::sum);
    }
    double best = (VECTOR_WEIGHT + KEYWORD_WEIGHT) / (RRF_K + 1);
    return fused.entrySet().stream()
        .map(e -> new Scored(e.getKey(), e.getValue() / best))
        .sorted(Comparator.comparingDouble(Scored::score).reversed().thenComparing(Scored::id))
        .limit(limit)
        .map(Scored::id)
        .toList();
  }

  /** recall@5/@10 of the fused ranking, each limit fused as the provider would for it. */
  private static Recall fusedRecall(
      List<Question> questions,
      Map<Question, List<Scored>> vectorRanks,
      Map<String, List<String>> keyword,
      double threshold) {
    int[] limits = {5, 10};
    double[] at = new double[2];
    for (int i = 0; i < 2; i++) {
      int limit = limits[i];
      at[i] =
          average(
              questions,
              q ->
                  recallAt(
                      fuse(
                          vectorRanks.get(q),
                          keyword.get(q.text() + "\u0000" + q.owner()),
                          limit,
                          threshold),
                      q.answers(),
                      limit));
    }
    return new Recall(at[0], at[1]);
  }

  /** BM25 (Lucene defaults) over each owner's turns: question + owner → ranked turn ids. */
  private static Map<String, List<String>> bm25(DataSet data) throws IOException {
    Map<String, List<String>> out = new HashMap<>();
    try (Analyzer analyzer = new EnglishAnalyzer(new CharArraySet(STOP_WORDS, true));
        ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
      try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(analyzer))) {
        for (StoredTurn turn : data.turns()) {
          Document doc = new Document();
          doc.add(new StringField("id", turn.id(), Field.Store.YES));
          doc.add(new StringField("owner", turn.owner(), Field.Store.NO));
          doc.add(new TextField("text", turn.text(), Field.Store.NO));
          writer.addDocument(doc);
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        StoredFields fields = searcher.storedFields();
        for (Question q : data.questions()) {
          // as LuceneMemoryVectorStore.keywordQuery: distinct analysed terms as SHOULD clauses
          BooleanQuery.Builder text = new BooleanQuery.Builder();
          for (String term : terms(analyzer, q.text())) {
            text.add(new TermQuery(new Term("text", term)), Occur.SHOULD);
          }
          BooleanQuery full =
              new BooleanQuery.Builder()
                  .add(text.build(), Occur.MUST)
                  .add(new TermQuery(new Term("owner", q.owner())), Occur.FILTER)
                  .build();
          List<String> ids = new ArrayList<>();
          for (ScoreDoc hit : searcher.search(full, 1000).scoreDocs) {
            ids.add(fields.document(hit.doc).get("id"));
          }
          out.put(q.text() + "\u0000" + q.owner(), ids);
        }
      }
    }
    return out;
  }

  private static Set<String> terms(Analyzer analyzer, String text) {
    Set<String> terms = new LinkedHashSet<>();
    try (TokenStream tokens = analyzer.tokenStream("text", text)) {
      CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
      tokens.reset();
      while (tokens.incrementToken()) {
        terms.add(term.toString());
      }
      tokens.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return terms;
  }

  private static Recall recall(
      List<Question> questions, java.util.function.Function<Question, List<String>> ranking) {
    return new Recall(
        average(questions, q -> recallAt(ranking.apply(q), q.answers(), 5)),
        average(questions, q -> recallAt(ranking.apply(q), q.answers(), 10)));
  }

  private static double recallAt(List<String> ranked, Set<String> answers, int k) {
    long found = ranked.stream().limit(k).filter(answers::contains).count();
    return found / (double) answers.size();
  }

  private static double average(
      List<Question> questions, java.util.function.ToDoubleFunction<Question> value) {
    return questions.stream().mapToDouble(value).average().orElse(0);
  }
}
