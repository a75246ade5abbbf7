package dev.memstack.builtin.bench;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Latency of the builtin provider's hot paths on synthetic workspaces written straight to disk (so
 * start-up also measures the index catch-up):
 *
 * <ol>
 *   <li>prefetch for one owner with 1,000 daily notes and 50 other files (2 of them enabled);
 *   <li>systemPromptBlock, cached and right after a write to MEMORY.md;
 *   <li>keyword search (the search tool, JSON included) over 10,000 files one owner can see.
 * </ol>
 *
 * <p>Run: {@code ./mvnw -B -q -pl provider-builtin test-compile exec:java
 * -Dexec.mainClass=dev.memstack.builtin.bench.BuiltinBenchmark -Dexec.classpathScope=test}
 */
public final class BuiltinBenchmark {

  private static final String[] WORDS =
      ("project meeting deadline budget design review release customer feedback server database"
              + " migration invoice travel flight hotel dinner birthday gift doctor appointment"
              + " garden recipe coffee tea running training marathon guitar piano lesson school"
              + " homework report slides presentation client contract lawyer apartment rent"
              + " moving boxes kitchen paint color blue green friday monday weekend holiday"
              + " summer winter vacation beach mountain hiking camera photo album book novel"
              + " author chapter podcast episode music concert ticket train station bicycle"
              + " repair insurance bank account password backup laptop phone charger cable"
              + " printer office desk chair lamp plant water cat dog vet food allergy peanut")
          .split(" ");
  private static final String[] CHINESE = {
    "手冲咖啡", "周末徒步", "项目评审", "生日礼物", "搬家计划", "吉他课程", "年度预算", "客户反馈"
  };

  private static final String[] SYLLABLES =
      "ka lo mi ra te su na vo pe di ru sa ko be li ta mo ne gu fi".split(" ");

  private final Random random = new Random(42);
  private final String[] vocabulary = vocabulary();
  private final double[] cumulative = zipf(vocabulary.length);
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

  /** The meaningful words first (most frequent), then 4,000 made-up words. */
  private String[] vocabulary() {
    Random words = new Random(7);
    String[] vocabulary = new String[WORDS.length + 4000];
    System.arraycopy(WORDS, 0, vocabulary, 0, WORDS.length);
    for (int i = WORDS.length; i < vocabulary.length; i++) {
      StringBuilder word = new StringBuilder();
      for (int s = 0; s < 2 + words.nextInt(3); s++) {
        word.append(SYLLABLES[words.nextInt(SYLLABLES.length)]);
      }
      vocabulary[i] = word.toString();
    }
    return vocabulary;
  }

  /** Cumulative Zipf (s = 1) probabilities, as word frequencies in natural text. */
  private static double[] zipf(int n) {
    double[] cumulative = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1.0 / (i + 1);
      cumulative[i] = sum;
    }
    for (int i = 0; i < n; i++) {
      cumulative[i] /= sum;
    }
    return cumulative;
  }

  public static void main(String[] args) throws Exception {
    new BuiltinBenchmark().run();
  }

  private void run() throws Exception {
    System.out.printf(
        Locale.ROOT,
        "java %s, %d cores, load average at start: %s%n",
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        load());
    prefetchAndPrompt();
    searchOverTenThousandFiles();
    System.out.printf(Locale.ROOT, "load average at end: %s%n", load());
  }

  private void prefetchAndPrompt() throws Exception {
    Path dir = Files.createTempDirectory("builtin-bench-");
    AgentId agent = AgentId.of("bench");
    OwnerKey owner = OwnerKey.of("user:1");
    Path personal = dir.resolve("agents/bench/owners/user%3A1");
    LocalDate day = LocalDate.of(2023, 1, 1);
    for (int i = 0; i < 1000; i++) {
      write(personal.resolve("memory/" + day.plusDays(i) + ".md"), dailyNote(day.plusDays(i), 8));
    }
    write(personal.resolve("PROFILE.md"), "# Profile\n\n## Basics\n" + paragraph(40));
    write(personal.resolve("MEMORY.md"), "# Memory\n\n## Projects\n" + paragraph(120));
    for (int i = 0; i < 48; i++) {
      write(
          personal.resolve(String.format("topics/topic-%02d.md", i)),
          "# Topic\n\n" + paragraph(200));
    }

    long opened = System.nanoTime();
    MemoryProvider provider = open(dir);
    System.out.printf(
        Locale.ROOT,
        "setup 1: 1,050 files for one owner; start with index catch-up %.0f ms%n",
        ms(System.nanoTime() - opened));

    provider.systemPromptBlock(agent);
    Times prefetch =
        measure(
            500,
            3000,
            () ->
                provider.prefetch(
                    new RecallRequest(
                        agent, owner, "c1", query(), 10, Instant.now().plusSeconds(5))));
    report("prefetch (1,000 daily notes + 50 files, limit 10)", prefetch);

    Times cached = measure(5000, 20000, () -> provider.systemPromptBlock(agent));
    report("systemPromptBlock cached", cached);

    long[] afterWrite = new long[300];
    long[] afterWriteCpu = new long[300];
    for (int i = 0; i < afterWrite.length + 50; i++) {
      provider.callTool(
          new ToolCall(
              agent,
              null,
              "write_workspace_memory_file",
              "{\"scope\":\"team\",\"filename\":\"MEMORY.md\",\"content\":\"# Memory\\n\\n"
                  + paragraph(100).replace("\n", "\\n")
                  + "\"}"));
      long c = threads.getCurrentThreadCpuTime();
      long t = System.nanoTime();
      provider.systemPromptBlock(agent);
      if (i >= 50) {
        afterWrite[i - 50] = System.nanoTime() - t;
        afterWriteCpu[i - 50] = threads.getCurrentThreadCpuTime() - c;
      }
    }
    report("systemPromptBlock right after a write", new Times(afterWrite, afterWriteCpu));
    Times writes =
        measure(
            20,
            200,
            () ->
                provider.callTool(
                    new ToolCall(
                        agent,
                        null,
                        "write_workspace_memory_file",
                        "{\"scope\":\"team\",\"filename\":\"MEMORY.md\",\"content\":\"# Memory\\n\\n"
                            + paragraph(100).replace("\n", "\\n")
                            + "\"}")));
    report("write_workspace_memory_file (fsync, verify, index)", writes);
    provider.close();
    deleteTree(dir);
  }

  private void searchOverTenThousandFiles() throws Exception {
    Path dir = Files.createTempDirectory("builtin-bench-");
    AgentId agent = AgentId.of("bench");
    Path team = dir.resolve("agents/bench");
    Path personal = team.resolve("owners/user%3A1");
    LocalDate day = LocalDate.of(2008, 1, 1);
    for (int i = 0; i < 5000; i++) {
      write(
          team.resolve(String.format("topics/%04d.md", i)),
          "# Topic " + i + "\n\n" + paragraph(60));
      write(personal.resolve("memory/" + day.plusDays(i) + ".md"), dailyNote(day.plusDays(i), 3));
    }
    long opened = System.nanoTime();
    MemoryProvider searched = open(dir);
    System.out.printf(
        Locale.ROOT,
        "setup 2: 10,000 files visible to one owner; first start indexes them in %.0f ms%n",
        ms(System.nanoTime() - opened));
    Times search =
        measure(
            300,
            3000,
            () ->
                searched.callTool(
                    new ToolCall(
                        agent,
                        OwnerKey.of("user:1"),
                        "search_workspace_memory",
                        "{\"query\":\"" + query() + "\",\"limit\":10}")));
    report("search_workspace_memory over 10,000 files (limit 10)", search);
    Times twoChars =
        measure(
            300,
            3000,
            () ->
                searched.callTool(
                    new ToolCall(
                        agent,
                        OwnerKey.of("user:1"),
                        "search_workspace_memory",
                        "{\"query\":\"咖啡\",\"limit\":10}")));
    report("search_workspace_memory, two-character Chinese query", twoChars);
    searched.close();
    long restarted = System.nanoTime();
    MemoryProvider provider = open(dir);
    System.out.printf(
        Locale.ROOT,
        "restart on the same 10,000 files (index up to date): %.0f ms%n",
        ms(System.nanoTime() - restarted));
    provider.close();
    deleteTree(dir);
  }

  private static MemoryProvider open(Path dir) {
    return new BuiltinMemoryProviderFactory()
        .create(
            TestProviderContext.builder()
                .instanceId("builtin")
                .dataDir(dir)
                .clock(MutableClock.atSystemTime())
                .build());
  }

  /** A user message of twelve words. */
  private String query() {
    StringBuilder query = new StringBuilder("what about");
    for (int i = 0; i < 10; i++) {
      query.append(' ').append(word());
    }
    return query.toString();
  }

  private String word() {
    int index = Arrays.binarySearch(cumulative, random.nextDouble());
    return vocabulary[Math.min(index < 0 ? -index - 1 : index, vocabulary.length - 1)];
  }

  private String paragraph(int words) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        text.append(i % 15 == 0 ? "\n- " : " ");
      }
      text.append(random.nextInt(40) == 0 ? CHINESE[random.nextInt(CHINESE.length)] : word());
    }
    return text.append('\n').toString();
  }

  private String dailyNote(LocalDate date, int entries) {
    StringBuilder note = new StringBuilder("# ").append(date).append('\n');
    for (int i = 0; i < entries; i++) {
      note.append(
              String.format(
                  Locale.ROOT,
                  "%n### %02d:%02d · web · conversation c%d <!-- turn:t-%s-%d -->%n",
                  8 + i,
                  i * 7 % 60,
                  i,
                  date,
                  i))
          .append("**User:** ")
          .append(paragraph(25).strip())
          .append("\n**Assistant:** ")
          .append(paragraph(30).strip())
          .append('\n');
    }
    return note.toString();
  }

  /** Wall-clock and thread CPU times of each run. */
  private record Times(long[] wall, long[] cpu) {}

  private Times measure(int warmup, int runs, Supplier<?> call) {
    for (int i = 0; i < warmup; i++) {
      call.get();
    }
    long[] wall = new long[runs];
    long[] cpu = new long[runs];
    for (int i = 0; i < runs; i++) {
      long c = threads.getCurrentThreadCpuTime();
      long t = System.nanoTime();
      call.get();
      wall[i] = System.nanoTime() - t;
      cpu[i] = threads.getCurrentThreadCpuTime() - c;
    }
    return new Times(wall, cpu);
  }

  private static void report(String what, Times times) {
    System.out.printf(
        Locale.ROOT,
        "%-55s wall p50 %8.3f ms  p99 %8.3f ms | cpu p50 %8.3f ms  p99 %8.3f ms (n=%d)%n",
        what,
        ms(percentile(times.wall(), 50)),
        ms(percentile(times.wall(), 99)),
        ms(percentile(times.cpu(), 50)),
        ms(percentile(times.cpu(), 99)),
        times.wall().length);
  }

  private static long percentile(long[] values, int percent) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(sorted.length * percent / 100.0) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
  }

  private static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "n/a";
    }
  }

  private static double ms(long nanos) {
    return nanos / 1_000_000.0;
  }

  private static void write(Path file, String content) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      List<Path> all = paths.sorted(Comparator.reverseOrder()).toList();
      for (Path path : all) {
        Files.delete(path);
      }
    }
  }
}
