package dev.memstack.host.bench;

import dev.memstack.host.model.BundledModel;
import dev.memstack.host.model.ModelProperties;
import dev.memstack.host.model.OnnxEmbedder;
import dev.memstack.host.plugin.PluginConfiguration;
import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.testing.ModelArgs;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.pf4j.PluginManager;
import org.pf4j.PluginWrapper;

/**
 * Recall quality of the real vector provider with its three rankings (vector alone, BM25 alone and
 * their fusion), per bundled embedding model. Not a test; run it with
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
 * the fact.
 *
 * <p>Nothing of the provider is copied here: the real {@code provider-vector} plugin zip (as {@link
 * PluginZips} finds it) is loaded by a PF4J manager, and each variant is an instance created by its
 * {@link MemoryProviderFactory}, on the embedded store in a temporary folder, with the host's ONNX
 * embedder of the model. Each owner's turns (user message, no reply) go in through {@link
 * MemoryProvider#syncTurns} in batches of 32 (the host's delivery batch); each question is asked
 * through {@link MemoryProvider#prefetch} with limit 5 and with limit 10, and recall@k is the share
 * of questions whose answer turn (metadata {@code turn}) is among the k items. The variants differ
 * only by {@code config.*} keys: vector only ({@code keyword-weight=0}), BM25 only ({@code
 * vector-weight=0}), fused (the defaults), fused without the vector threshold ({@code
 * threshold=-1}); all with {@code lifecycle-enabled=false}. The provider's clock is fixed a little
 * after the last turn, so its recency factor is part of the figures and they repeat. The embedder
 * is wrapped in a cache, so that the variants of a model embed each text once.
 */
public final class RecallQualityHarness {

  /** The host's delivery batch ({@code memstack.outbox.delivery-batch}). */
  private static final int BATCH = 32;

  private static final Instant START = Instant.parse("2026-01-05T09:00:00Z");

  private static final AgentId AGENT = AgentId.of("bench");

  /** A provider configuration: a column pair of the table. */
  private record Variant(String name, Map<String, String> config) {}

  private static final List<Variant> VARIANTS =
      List.of(
          new Variant("vector", Map.of("keyword-weight", "0")),
          new Variant("BM25", Map.of("vector-weight", "0")),
          new Variant("fused", Map.of()),
          new Variant("fused, no threshold", Map.of("threshold", "-1")));

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

  /** One turn of an owner: its id, its time and the user message. */
  private record StoredTurn(String owner, String turnId, Instant time, String message) {}

  /** A question of an owner with the turn ids that answer it. */
  private record Question(String owner, String text, Set<String> answers) {}

  private record DataSet(List<StoredTurn> turns, List<Question> questions) {}

  /** recall@5 and @10 of one variant. */
  private record Recall(double at5, double at10) {}

  private RecallQualityHarness() {}

  public static void main(String[] args) throws IOException {
    int owners = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    int turnsPerOwner = args.length > 1 ? Integer.parseInt(args[1]) : 40;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 7;
    List<BundledModel> models = ModelArgs.from(args, 3);
    DataSet data = generate(owners, turnsPerOwner, seed);
    Instant now =
        data.turns().stream()
            .map(StoredTurn::time)
            .max(Comparator.naturalOrder())
            .orElseThrow()
            .plus(1, ChronoUnit.DAYS);
    System.out.printf(
        Locale.ROOT,
        "%d owners x %d turns = %d turns, %d questions, %d fact templates, seed %d, clock %s%n",
        owners,
        turnsPerOwner,
        data.turns().size(),
        data.questions().size(),
        FACTS.size(),
        seed,
        now);

    Path temp = Files.createTempDirectory("memstack-recall-");
    PluginManager plugins = null;
    try {
      Path folder = Files.createDirectories(temp.resolve("plugins"));
      Path zip = PluginZips.zip("vector");
      Files.copy(zip, folder.resolve(zip.getFileName()));
      System.out.println("plugin zip: " + zip.toAbsolutePath().normalize());
      plugins = PluginConfiguration.pluginManager(folder, "0.1.0");
      plugins.loadPlugins();
      plugins.startPlugins();
      Plugin vector = vectorPlugin(plugins);

      StringBuilder header = new StringBuilder("| model |");
      StringBuilder rule = new StringBuilder("|---|");
      for (Variant v : VARIANTS) {
        header.append(' ').append(v.name()).append(" @5 | ").append(v.name()).append(" @10 |");
        rule.append("---|---|");
      }
      System.out.println(header.append(" embed s (turns + questions) |"));
      System.out.println(rule.append("---|"));
      for (BundledModel model : models) {
        try (OnnxEmbedder onnx =
            new OnnxEmbedder(model, new ModelProperties.Onnx(1, 512, 1, 0, true, false, ""))) {
          onnx.load();
          CachingEmbedder embedder = new CachingEmbedder(onnx);
          StringBuilder row = new StringBuilder("| " + model.id() + " |");
          for (Variant variant : VARIANTS) {
            Path dataDir =
                Files.createDirectories(
                    temp.resolve(model.id()).resolve(variant.name().replaceAll("\\W+", "-")));
            Recall r = measure(vector, variant, dataDir, embedder, data, now);
            row.append(String.format(Locale.ROOT, " %.3f | %.3f |", r.at5(), r.at10()));
          }
          row.append(String.format(Locale.ROOT, " %.1f |", embedder.seconds()));
          System.out.println(row);
        }
      }
    } finally {
      if (plugins != null) {
        stopAndUnload(plugins);
      }
      deleteRecursively(temp);
    }
  }

  /** The started vector plugin's factory and class loader. */
  private record Plugin(MemoryProviderFactory factory, ClassLoader classLoader) {}

  private static Plugin vectorPlugin(PluginManager plugins) {
    for (PluginWrapper plugin : plugins.getStartedPlugins()) {
      ClassLoader loader = plugins.getPluginClassLoader(plugin.getPluginId());
      for (MemoryProviderFactory factory :
          withClassLoader(
              loader,
              () -> plugins.getExtensions(MemoryProviderFactory.class, plugin.getPluginId()))) {
        if ("vector".equals(withClassLoader(loader, factory::type))) {
          return new Plugin(factory, loader);
        }
      }
    }
    throw new IllegalStateException("no started plugin offers the provider type vector");
  }

  /** One variant: a fresh provider instance, every turn synced, every question prefetched. */
  private static Recall measure(
      Plugin plugin, Variant variant, Path dataDir, Embedder embedder, DataSet data, Instant now) {
    Map<String, String> config = new LinkedHashMap<>(variant.config());
    config.put("lifecycle-enabled", "false");
    ProviderContext context =
        new BenchContext(
            "vector",
            ProviderConfig.of("memstack.providers.vector.config", config),
            dataDir,
            Clock.fixed(now, ZoneOffset.UTC),
            embedder,
            LanguageModel.none());
    MemoryProvider provider =
        withClassLoader(plugin.classLoader(), () -> plugin.factory().create(context));
    try {
      Map<String, List<Turn>> byOwner = new LinkedHashMap<>();
      for (StoredTurn t : data.turns()) {
        byOwner
            .computeIfAbsent(t.owner(), o -> new ArrayList<>())
            .add(
                new Turn(
                    t.turnId(),
                    AGENT,
                    OwnerKey.of(t.owner()),
                    "conversation-1",
                    t.message(),
                    "",
                    TriggerSource.API,
                    t.time()));
      }
      for (List<Turn> turns : byOwner.values()) {
        for (int i = 0; i < turns.size(); i += BATCH) {
          List<Turn> batch = turns.subList(i, Math.min(turns.size(), i + BATCH));
          withClassLoader(
              plugin.classLoader(),
              () -> {
                provider.syncTurns(batch);
                return null;
              });
        }
      }
      awaitIndexed(plugin, provider, data);
      double[] found = new double[2];
      int[] limits = {5, 10};
      for (Question q : data.questions()) {
        for (int i = 0; i < limits.length; i++) {
          found[i] += recallAt(prefetch(plugin, provider, q.owner(), q.text(), limits[i]), q);
        }
      }
      int n = Math.max(1, data.questions().size());
      return new Recall(found[0] / n, found[1] / n);
    } finally {
      withClassLoader(
          plugin.classLoader(),
          () -> {
            provider.close();
            return null;
          });
    }
  }

  /**
   * Waits until every synced turn is searchable: batches become visible within a second (the
   * embedded store refreshes its searcher at most once a second), so after that second each owner's
   * last fact turn must be found by its own text.
   */
  private static void awaitIndexed(Plugin plugin, MemoryProvider provider, DataSet data) {
    Map<String, StoredTurn> lastFact = new LinkedHashMap<>();
    Set<String> answers = new java.util.HashSet<>();
    data.questions().forEach(q -> answers.addAll(q.answers()));
    for (StoredTurn t : data.turns()) {
      if (answers.contains(t.owner() + "\u0000" + t.turnId())) {
        lastFact.put(t.owner(), t);
      }
    }
    sleep(1_500);
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (StoredTurn t : lastFact.values()) {
      while (prefetch(plugin, provider, t.owner(), t.message(), 50).stream()
          .noneMatch(item -> t.turnId().equals(item.metadata().get("turn")))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("turn " + t.turnId() + " of " + t.owner() + " not found");
        }
        sleep(200);
      }
    }
  }

  private static List<RecallItem> prefetch(
      Plugin plugin, MemoryProvider provider, String owner, String query, int limit) {
    RecallRequest request =
        new RecallRequest(
            AGENT, OwnerKey.of(owner), null, query, limit, Instant.now().plusSeconds(60));
    return withClassLoader(plugin.classLoader(), () -> provider.prefetch(request)).items();
  }

  private static double recallAt(List<RecallItem> items, Question q) {
    long found =
        items.stream()
            .filter(i -> q.owner().equals(i.owner() == null ? null : i.owner().value()))
            .map(i -> q.owner() + "\u0000" + i.metadata().get("turn"))
            .distinct()
            .filter(q.answers()::contains)
            .count();
    return found / (double) q.answers().size();
  }

  /** The generated conversation set; the same seed gives the same set. */
  static DataSet generate(int owners, int turnsPerOwner, long seed) {
    if (owners < 1 || turnsPerOwner < 1) {
      throw new IllegalArgumentException("owners and turns per owner must be positive");
    }
    Random random = new Random(seed);
    List<StoredTurn> turns = new ArrayList<>();
    List<Question> questions = new ArrayList<>();
    int factsPerOwner = Math.min(FACTS.size(), Math.max(1, turnsPerOwner * 3 / 5));
    for (int o = 0; o < owners; o++) {
      String owner = "user:owner-" + o;
      List<Fact> shuffled = new ArrayList<>(FACTS);
      Collections.shuffle(shuffled, random);
      List<Object> slots =
          new ArrayList<>(shuffled.subList(0, Math.min(factsPerOwner, turnsPerOwner)));
      while (slots.size() < turnsPerOwner) {
        List<String> filler = random.nextBoolean() ? SMALL_TALK : NEAR_MISSES;
        slots.add(filler.get(random.nextInt(filler.size())));
      }
      Collections.shuffle(slots, random);
      Instant day = START.plus(random.nextInt(60), ChronoUnit.DAYS);
      for (int t = 0; t < slots.size(); t++) {
        String turnId = "turn-" + t;
        String message;
        if (slots.get(t) instanceof Fact f) {
          message =
              String.format(
                  Locale.ROOT, f.utterance(), f.values().get(random.nextInt(f.values().size())));
          String question = f.questions().get(random.nextInt(f.questions().size()));
          questions.add(new Question(owner, question, Set.of(owner + "\u0000" + turnId)));
        } else {
          message = (String) slots.get(t);
        }
        turns.add(new StoredTurn(owner, turnId, day, message));
        day = day.plus(random.nextInt(3), ChronoUnit.DAYS);
      }
    }
    return new DataSet(turns, questions);
  }

  /**
   * The host's embedder with a cache in front, so that the variants of one model embed each text
   * once; {@link #seconds()} is the time spent in the model.
   */
  private static final class CachingEmbedder implements Embedder {

    private final Embedder delegate;
    private final Map<String, float[]> cache = new ConcurrentHashMap<>();
    private final AtomicLong nanos = new AtomicLong();

    CachingEmbedder(Embedder delegate) {
      this.delegate = delegate;
    }

    @Override
    public String modelId() {
      return delegate.modelId();
    }

    @Override
    public int dimension() {
      return delegate.dimension();
    }

    @Override
    public List<float[]> embed(List<String> texts, Kind kind) {
      List<String> missing =
          texts.stream().filter(t -> !cache.containsKey(key(t, kind))).distinct().toList();
      if (!missing.isEmpty()) {
        long start = System.nanoTime();
        List<float[]> vectors = delegate.embed(missing, kind);
        nanos.addAndGet(System.nanoTime() - start);
        for (int i = 0; i < missing.size(); i++) {
          cache.put(key(missing.get(i), kind), vectors.get(i));
        }
      }
      return texts.stream().map(t -> cache.get(key(t, kind)).clone()).toList();
    }

    double seconds() {
      return nanos.get() / 1e9;
    }

    private static String key(String text, Kind kind) {
      return kind.name() + "\u0000" + text;
    }
  }

  /** The context the host would hand the instance (without a system prompt cache to tell). */
  private record BenchContext(
      String instanceId,
      ProviderConfig config,
      Path dataDir,
      Clock clock,
      Embedder embedder,
      LanguageModel languageModel)
      implements ProviderContext {

    @Override
    public void systemPromptChanged(AgentId agent) {}
  }

  private static <T> T withClassLoader(ClassLoader loader, Supplier<T> body) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      return body.get();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** Stops the started plugins in reverse order, then unloads all, as the host's registry does. */
  private static void stopAndUnload(PluginManager plugins) {
    List<PluginWrapper> started = new ArrayList<>(plugins.getStartedPlugins());
    Collections.reverse(started);
    for (PluginWrapper plugin : started) {
      plugins.stopPlugin(plugin.getPluginId());
    }
    plugins.unloadPlugins();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
