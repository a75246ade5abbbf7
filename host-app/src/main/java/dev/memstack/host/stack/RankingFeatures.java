package dev.memstack.host.stack;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The features the learned ranking reads for each candidate memory of one context call, by name
 * (the schema a {@link RankingModel} records). Computed by the host from what every candidate
 * carries: the query text, the item text, its time, the host's cosine of it to the query, the
 * stack's fused score and each provider's rank, score and named signals. The names:
 *
 * <ul>
 *   <li>{@code cosine}, {@code cosine.missing}, {@code cosine.gap} (best cosine in the list minus
 *       this one), {@code cosine.rank} (ln of its rank by cosine), {@code cosine.unnamed} and
 *       {@code cosine.unnamed.gap} (the same cosine with the speakers taken out of both sides, the
 *       names of those the question asks about from its vector and the item's speaker label from
 *       the item's, {@link StackRelevance}: what is asked and said apart from who, since a chat
 *       line's vector also carries its speaker's name);
 *   <li>{@code fusion} (the fused score over the best possible, as {@code stack.score}), {@code
 *       fusion.rank} (ln of its place by fused score), {@code providers} (how many found it);
 *   <li>{@code rank:<provider>} ({@code 1 / (1 + ln rank)}, 0 when that provider did not return
 *       it), {@code score:<provider>} (the provider's own score), {@code signal:<provider>:<key>}
 *       (a numeric value the provider put in the item's metadata under {@code key}: the <em>signals
 *       contract</em> for third-party providers; 0 when absent or not a number);
 *   <li>{@code length} (ln of 1 + its words), {@code short} (at most three words);
 *   <li>{@code overlap} (share of the question's content words in the item), {@code overlap.idf}
 *       (the same share with each word weighed by its rarity among the candidates), {@code
 *       question} (the item asks something: it holds a question mark), {@code names} (share of the
 *       names the question mentions found in the item), {@code speaker.asked} (the chat line's
 *       speaker is named in the question, by a word of the label, misspelt, or by what the other
 *       speakers call them: {@link AskedSpeakers}), {@code speaker.other} (the question names a
 *       speaker of the list, not this one);
 *   <li>{@code answer.time}, {@code answer.place}, {@code answer.person}, {@code answer.number}
 *       (the question wants that kind of answer and the item holds one), {@code time.named} (the
 *       question names a month or a year the item was written in), {@code date.named} (the question
 *       names a date, 12.01.2024, 2024-01-12 or 12 January 2024: 1 when the item was written that
 *       day, 0.5 the day before or after);
 *   <li>{@code neighbour.cosine}, {@code neighbour.overlap} (the best cosine and overlap among the
 *       candidates written within {@value #NEIGHBOUR_MINUTES} minutes of it: the conversation
 *       around it), {@code before.cosine}, {@code before.overlap} (the same among those written
 *       before it only: often the question it answers), {@code session.cosine} (mean of the best
 *       three cosines of that day's candidates).
 * </ul>
 *
 * Stateless.
 */
final class RankingFeatures {

  /** Minutes either side of an item within which another candidate is its neighbour. */
  static final int NEIGHBOUR_MINUTES = 10;

  /** The prefix of the features of the cosine with the speakers taken out of both sides. */
  static final String UNNAMED = "cosine.unnamed";

  /** The names that do not depend on the providers. */
  static final List<String> BASE =
      List.of(
          "cosine",
          "cosine.missing",
          "cosine.gap",
          "cosine.rank",
          "cosine.unnamed",
          "cosine.unnamed.gap",
          "fusion",
          "fusion.rank",
          "providers",
          "length",
          "short",
          "overlap",
          "overlap.idf",
          "question",
          "names",
          "speaker.asked",
          "speaker.other",
          "answer.time",
          "answer.place",
          "answer.person",
          "answer.number",
          "time.named",
          "date.named",
          "neighbour.cosine",
          "neighbour.overlap",
          "before.cosine",
          "before.overlap",
          "session.cosine");

  /**
   * One candidate memory as the ranking sees it.
   *
   * @param relevance the host's cosine of it to the query, NaN when unscored
   * @param unnamed its cosine with the speakers taken out of both sides, NaN when that was not
   *     computed: then {@code relevance} stands for it
   */
  record Candidate(
      String text,
      Instant createdAt,
      double relevance,
      double unnamed,
      double fusion,
      int fusionRank,
      Map<String, Integer> ranks,
      Map<String, Double> scores,
      Map<String, Map<String, String>> metadata) {}

  private RankingFeatures() {}

  /**
   * Whether the host can compute a feature of this name. A provider's {@link
   * MemoryStack#TRUST_SIGNAL} is never a feature: trust enters after the ranking score, as one
   * bounded adjustment, so a model that names it is refused.
   */
  static boolean known(String name) {
    return BASE.contains(name)
        || (name.startsWith("rank:") && name.length() > 5)
        || (name.startsWith("score:") && name.length() > 6)
        || (name.startsWith("signal:") && name.indexOf(':', 7) > 7 && !isTrust(name));
  }

  /** Whether {@code name} is a {@code signal:<provider>:} feature of the trust signal. */
  private static boolean isTrust(String name) {
    return name.startsWith("signal:") && name.endsWith(":" + MemoryStack.TRUST_SIGNAL);
  }

  /**
   * Every feature name that means something for {@code pool}: the base names, then {@code rank:}
   * and {@code score:} of each provider and {@code signal:} of each numeric metadata key the
   * providers reported, sorted.
   */
  static List<String> namesFor(List<Candidate> pool) {
    Set<String> providers = new java.util.TreeSet<>();
    Set<String> signals = new java.util.TreeSet<>();
    for (Candidate candidate : pool) {
      providers.addAll(candidate.ranks().keySet());
      candidate
          .metadata()
          .forEach(
              (provider, metadata) ->
                  metadata.forEach(
                      (key, value) -> {
                        if (!Double.isNaN(number(value)) && !MemoryStack.TRUST_SIGNAL.equals(key)) {
                          signals.add("signal:" + provider + ":" + key);
                        }
                      }));
    }
    List<String> names = new ArrayList<>(BASE);
    providers.forEach(p -> names.add("rank:" + p));
    providers.forEach(p -> names.add("score:" + p));
    names.addAll(signals);
    return names;
  }

  /**
   * The value of each feature of {@code names} for each candidate of {@code pool}; the question and
   * each candidate's text are read by {@code cues} (a call reads each text once).
   */
  static double[][] compute(
      List<String> names,
      String question,
      List<Candidate> pool,
      Function<String, QuestionCues> cues) {
    int n = pool.size();
    QuestionCues asked = cues.apply(question);
    QuestionCues.Wants wants = QuestionCues.wants(question);
    Set<String> questionWords = asked.all();
    Set<String> askedMonths = new HashSet<>();
    Set<Integer> askedYears = new HashSet<>();
    for (String word : questionWords) {
      if (QuestionCues.MONTHS.contains(word)) {
        askedMonths.add(word);
      }
      if (word.length() == 4 && word.chars().allMatch(Character::isDigit)) {
        askedYears.add(Integer.parseInt(word));
      }
    }

    Set<LocalDate> askedDates = QuestionDates.of(question);
    QuestionCues[] items = new QuestionCues[n];
    double[] overlap = new double[n];
    double best = Double.NEGATIVE_INFINITY;
    double bestUnnamed = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      items[i] = cues.apply(pool.get(i).text());
      overlap[i] = share(asked.words(), items[i].words());
      if (!Double.isNaN(pool.get(i).relevance())) {
        best = Math.max(best, pool.get(i).relevance());
        bestUnnamed = Math.max(bestUnnamed, unnamed(pool.get(i)));
      }
    }
    double[] idfOverlap = idfOverlap(asked.words(), items);
    Set<String> askedSpeakers = AskedSpeakers.of(asked, items);
    int[] cosineRank = cosineRanks(pool);
    double[] neighbourCosine = new double[n];
    double[] neighbourOverlap = new double[n];
    double[] beforeCosine = new double[n];
    double[] beforeOverlap = new double[n];
    neighbours(pool, overlap, neighbourCosine, neighbourOverlap, beforeCosine, beforeOverlap);
    double[] session = sessions(pool);

    // provider features: the provider id and metadata key read once per call, not per candidate
    String[] provider = new String[names.size()];
    String[] key = new String[names.size()];
    for (int f = 0; f < names.size(); f++) {
      String name = names.get(f);
      if (name.startsWith("rank:")) {
        provider[f] = name.substring(5);
      } else if (name.startsWith("score:")) {
        provider[f] = name.substring(6);
      } else if (name.startsWith("signal:")) {
        int colon = name.indexOf(':', 7);
        provider[f] = name.substring(7, colon);
        key[f] = name.substring(colon + 1);
      }
    }
    double[][] values = new double[n][names.size()];
    for (int i = 0; i < n; i++) {
      Candidate c = pool.get(i);
      QuestionCues item = items[i];
      boolean scored = !Double.isNaN(c.relevance());
      for (int f = 0; f < names.size(); f++) {
        String name = names.get(f);
        double v =
            switch (name) {
              case "cosine" -> scored ? c.relevance() : 0;
              case "cosine.missing" -> scored ? 0 : 1;
              case "cosine.gap" -> scored ? best - c.relevance() : 1;
              case "cosine.rank" -> Math.log(scored ? cosineRank[i] : n + 1);
              case "cosine.unnamed" -> scored ? unnamed(c) : 0;
              case "cosine.unnamed.gap" -> scored ? bestUnnamed - unnamed(c) : 1;
              case "fusion" -> c.fusion();
              case "fusion.rank" -> Math.log(c.fusionRank());
              case "providers" -> c.ranks().size();
              case "length" -> Math.log1p(item.length());
              case "short" -> item.length() <= 3 ? 1 : 0;
              case "overlap" -> overlap[i];
              case "overlap.idf" -> idfOverlap[i];
              case "question" -> c.text().indexOf('?') >= 0 ? 1 : 0;
              case "names" -> {
                if (asked.names().isEmpty()) {
                  yield 0;
                }
                yield share(asked.names(), item.all());
              }
              case "speaker.asked" -> askedSpeakers.contains(item.speaker()) ? 1 : 0;
              case "speaker.other" ->
                  !askedSpeakers.isEmpty() && !askedSpeakers.contains(item.speaker()) ? 1 : 0;
              case "answer.time" -> wants == QuestionCues.Wants.TIME && item.holds(wants) ? 1 : 0;
              case "answer.place" -> wants == QuestionCues.Wants.PLACE && item.holds(wants) ? 1 : 0;
              case "answer.person" ->
                  wants == QuestionCues.Wants.PERSON && item.holds(wants) ? 1 : 0;
              case "answer.number" ->
                  wants == QuestionCues.Wants.NUMBER && item.holds(wants) ? 1 : 0;
              case "time.named" -> timeNamed(c.createdAt(), askedMonths, askedYears);
              case "date.named" -> dateNamed(c.createdAt(), askedDates);
              case "neighbour.cosine" -> neighbourCosine[i];
              case "neighbour.overlap" -> neighbourOverlap[i];
              case "before.cosine" -> beforeCosine[i];
              case "before.overlap" -> beforeOverlap[i];
              case "session.cosine" -> session[i];
              default -> byProvider(name, provider[f], key[f], c);
            };
        values[i][f] = Double.isFinite(v) ? v : 0;
      }
    }
    return values;
  }

  /** The candidate's cosine with the speakers taken out, or its plain cosine when not computed. */
  private static double unnamed(Candidate c) {
    return Double.isNaN(c.unnamed()) ? c.relevance() : c.unnamed();
  }

  private static double byProvider(String name, String provider, String key, Candidate c) {
    if (provider == null) {
      return 0;
    }
    if (key != null) {
      Map<String, String> metadata = c.metadata().get(provider);
      double value = metadata == null ? Double.NaN : number(metadata.get(key));
      return Double.isNaN(value) ? 0 : value;
    }
    if (name.startsWith("rank:")) {
      Integer rank = c.ranks().get(provider);
      return rank == null ? 0 : 1 / (1 + Math.log(rank));
    }
    Double score = c.scores().get(provider);
    return score == null ? 0 : score;
  }

  /** A metadata value as a finite number, NaN when it is not one. */
  static double number(String value) {
    if (value == null || value.isEmpty() || value.length() > 32) {
      return Double.NaN;
    }
    char first = value.charAt(0);
    if (!(Character.isDigit(first) || first == '-' || first == '.')) {
      return Double.NaN;
    }
    try {
      double v = Double.parseDouble(value);
      return Double.isFinite(v) ? v : Double.NaN;
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  private static double share(Set<String> wanted, Set<String> found) {
    if (wanted.isEmpty()) {
      return 0;
    }
    int hit = 0;
    for (String word : wanted) {
      if (found.contains(word)) {
        hit++;
      }
    }
    return (double) hit / wanted.size();
  }

  private static int[] cosineRanks(List<Candidate> pool) {
    Integer[] order = new Integer[pool.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        (a, b) -> {
          double x = pool.get(a).relevance();
          double y = pool.get(b).relevance();
          if (Double.isNaN(x) || Double.isNaN(y)) {
            return Boolean.compare(Double.isNaN(x), Double.isNaN(y));
          }
          return Double.compare(y, x);
        });
    int[] ranks = new int[pool.size()];
    for (int r = 0; r < order.length; r++) {
      ranks[order[r]] = r + 1;
    }
    return ranks;
  }

  /**
   * Best cosine and overlap of the other candidates written close in time to each one, on both
   * sides and before it only.
   */
  private static void neighbours(
      List<Candidate> pool,
      double[] overlap,
      double[] bestCosine,
      double[] bestOverlap,
      double[] beforeCosine,
      double[] beforeOverlap) {
    List<Integer> timed = new ArrayList<>();
    for (int i = 0; i < pool.size(); i++) {
      if (pool.get(i).createdAt() != null) {
        timed.add(i);
      }
    }
    timed.sort((a, b) -> pool.get(a).createdAt().compareTo(pool.get(b).createdAt()));
    long window = Duration.ofMinutes(NEIGHBOUR_MINUTES).toMillis();
    for (int x = 0; x < timed.size(); x++) {
      int i = timed.get(x);
      long at = pool.get(i).createdAt().toEpochMilli();
      for (int step : new int[] {-1, 1}) {
        for (int y = x + step; y >= 0 && y < timed.size(); y += step) {
          int j = timed.get(y);
          if (Math.abs(pool.get(j).createdAt().toEpochMilli() - at) > window) {
            break;
          }
          double cosine = pool.get(j).relevance();
          if (!Double.isNaN(cosine)) {
            bestCosine[i] = Math.max(bestCosine[i], cosine);
            if (step < 0) {
              beforeCosine[i] = Math.max(beforeCosine[i], cosine);
            }
          }
          bestOverlap[i] = Math.max(bestOverlap[i], overlap[j]);
          if (step < 0) {
            beforeOverlap[i] = Math.max(beforeOverlap[i], overlap[j]);
          }
        }
      }
    }
  }

  /** Mean of the best three cosines among the candidates of each one's day (UTC). */
  private static double[] sessions(List<Candidate> pool) {
    Map<LocalDate, List<Double>> byDay = new HashMap<>();
    for (Candidate c : pool) {
      if (c.createdAt() != null && !Double.isNaN(c.relevance())) {
        byDay
            .computeIfAbsent(
                c.createdAt().atZone(ZoneOffset.UTC).toLocalDate(), d -> new ArrayList<>())
            .add(c.relevance());
      }
    }
    Map<LocalDate, Double> means = new HashMap<>();
    byDay.forEach(
        (day, cosines) -> {
          cosines.sort(Collections.reverseOrder());
          double sum = 0;
          int k = Math.min(3, cosines.size());
          for (int i = 0; i < k; i++) {
            sum += cosines.get(i);
          }
          means.put(day, sum / k);
        });
    double[] session = new double[pool.size()];
    for (int i = 0; i < session.length; i++) {
      Instant at = pool.get(i).createdAt();
      Double mean = at == null ? null : means.get(at.atZone(ZoneOffset.UTC).toLocalDate());
      session[i] = mean == null ? 0 : mean;
    }
    return session;
  }

  /**
   * Each item's share of the question's content words, each word weighed by {@code ln(1 + n / df)}
   * where {@code df} counts the candidates holding it.
   */
  private static double[] idfOverlap(Set<String> asked, QuestionCues[] items) {
    double[] out = new double[items.length];
    if (asked.isEmpty() || items.length == 0) {
      return out;
    }
    Map<String, Double> idf = new HashMap<>();
    double total = 0;
    for (String word : asked) {
      int df = 0;
      for (QuestionCues item : items) {
        if (item.words().contains(word)) {
          df++;
        }
      }
      double weight = Math.log1p((double) items.length / Math.max(1, df));
      idf.put(word, weight);
      total += weight;
    }
    for (int i = 0; i < items.length; i++) {
      double hit = 0;
      for (Map.Entry<String, Double> word : idf.entrySet()) {
        if (items[i].words().contains(word.getKey())) {
          hit += word.getValue();
        }
      }
      out[i] = hit / total;
    }
    return out;
  }

  private static double dateNamed(Instant at, Set<LocalDate> dates) {
    if (at == null || dates.isEmpty()) {
      return 0;
    }
    LocalDate day = at.atZone(ZoneOffset.UTC).toLocalDate();
    if (dates.contains(day)) {
      return 1;
    }
    return dates.contains(day.plusDays(1)) || dates.contains(day.minusDays(1)) ? 0.5 : 0;
  }

  private static double timeNamed(Instant at, Set<String> months, Set<Integer> years) {
    if (at == null || (months.isEmpty() && years.isEmpty())) {
      return 0;
    }
    var date = at.atZone(ZoneOffset.UTC);
    String month = date.getMonth().name().toLowerCase(Locale.ROOT);
    boolean monthOk = months.isEmpty() || months.contains(month);
    boolean yearOk = years.isEmpty() || years.contains(date.getYear());
    return monthOk && yearOk ? 1 : 0;
  }
}
