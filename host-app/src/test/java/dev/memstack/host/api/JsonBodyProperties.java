package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.security.AccessDeniedException;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.Caller;
import dev.memstack.host.security.OwnerBinding;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.ContextQuery;
import dev.memstack.host.stack.InvalidRequestException;
import dev.memstack.host.testing.FuzzCorpus;
import dev.memstack.spi.AgentId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON body readers under arbitrary and mutated input: the host's strict mapper ({@link
 * StrictJsonConfiguration}) and the readers of the context, turn and feedback bodies ({@link
 * MemoryRequests}, {@link JsonBody}, the {@code ContextQuery} and {@code TurnRequest} records). A
 * body either parses and is read, or fails as a parse error ({@link JacksonException}, a 400) or an
 * {@link InvalidRequestException} naming a field (or {@link AccessDeniedException}, a 403) — never
 * another exception — and the reader leaves the parsed body as it was and the mapper usable. The
 * corpus under {@code fuzz/json-bodies} is replayed first; the seeds fix the generated runs.
 */
class JsonBodyProperties {

  static final JsonMapper MAPPER = strictMapper();

  private static final AgentId AGENT = AgentId.of("fuzz-agent");
  private static final AccessPolicy ACCESS = new AccessPolicy();
  private static final List<Caller> CALLERS =
      List.of(Caller.unchecked(), new Caller("bound", Role.MEMBER, OwnerBinding.of("user:1")));
  private static final String GOOD_CONTEXT =
      "{\"ownerKey\":\"user:1\",\"query\":\"locker\",\"limit\":3}";

  private static final List<String> FIELDS =
      List.of(
          "ownerKey",
          "query",
          "conversationId",
          "limit",
          "explain",
          "providers",
          "userMessage",
          "assistantReply",
          "triggerSource",
          "turnId",
          "time",
          "used",
          "provider",
          "id",
          "weight",
          "__proto__",
          "");

  private static final List<String> NASTY =
      List.of(
          "user:1",
          "api:7",
          "user:p\u0430ypal",
          "user:a\u00a0b",
          "user:\ufeffx",
          "a\u0000b",
          "\u001b[31m",
          "\u0007",
          "\ud800",
          "x\udc00y",
          "\uffff",
          "\u202e",
          "</memory-context>",
          "&#60;/memory&#45;context&#62;",
          "api",
          "2026-03-02T10:15:30Z",
          "+99999-01-01T00:00:00Z",
          "../../etc/passwd",
          "a;b",
          "\t\r\n",
          "");

  static JsonMapper strictMapper() {
    JsonMapper.Builder builder = JsonMapper.builder();
    new StrictJsonConfiguration().strictDuplicateKeys().customize(builder);
    return builder.build();
  }

  // ---- the properties

  @Property(tries = 600, seed = "250825")
  void arbitraryJsonIsReadOrRefusedCleanly(@ForAll("bodies") String body) {
    checkBytes(body.getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 600, seed = "250826")
  void mutatedBodiesAreReadOrRefusedCleanly(@ForAll("mutated") byte[] body) {
    checkBytes(body);
  }

  @Example
  void theCorpusIsReadOrRefusedCleanly() {
    List<byte[]> corpus = FuzzCorpus.files("json-bodies");
    assertThat(corpus).hasSizeGreaterThan(10);
    corpus.forEach(JsonBodyProperties::checkBytes);
  }

  @Example
  void aDuplicateKeyIsAParseErrorNamingIt() {
    try {
      MAPPER.readTree("{\"ownerKey\":\"user:1\",\"ownerKey\":\"user:2\"}");
      throw new AssertionError("a duplicate key was read");
    } catch (JacksonException e) {
      assertThat(e.getOriginalMessage()).contains("ownerKey");
    }
  }

  /** Parses the bytes as the host does, then runs every body reader on what parsed. */
  static void checkBytes(byte[] bytes) {
    JsonNode body;
    try {
      body = MAPPER.readTree(bytes);
    } catch (JacksonException parseError) {
      assertThat(parseError.getOriginalMessage()).isNotBlank();
      assertStillUsable();
      return;
    }
    String before = body == null ? null : body.toString();
    for (Caller caller : CALLERS) {
      read(caller, body, node -> MemoryRequests.context(AGENT, node, ACCESS));
      read(caller, body, node -> MemoryRequests.turn(AGENT, node, ACCESS));
      read(
          caller,
          body,
          node -> {
            JsonBody json = JsonBody.of(node);
            MemoryRequests.feedbackOwner(json, ACCESS);
            MemoryRequests.used(json);
          });
    }
    assertThat(body == null ? null : body.toString())
        .as("the body after reading")
        .isEqualTo(before);
    assertStillUsable();
  }

  private static void read(Caller caller, JsonNode body, Consumer<JsonNode> reader) {
    try {
      ACCESS.actingAs(
          caller,
          () -> {
            reader.accept(body);
            return null;
          });
    } catch (InvalidRequestException refused) {
      assertThat(refused.field()).as(refused.getMessage()).isNotBlank();
      assertThat(refused.getMessage()).isNotBlank().doesNotContain("\tat ");
    } catch (AccessDeniedException denied) {
      assertThat(denied.getMessage()).isNotBlank();
    }
  }

  /** The shared mapper and readers still read a good body as before. */
  private static void assertStillUsable() {
    ContextQuery query =
        ACCESS.actingAs(
            Caller.unchecked(),
            () -> MemoryRequests.context(AGENT, MAPPER.readTree(GOOD_CONTEXT), ACCESS));
    assertThat(query.query()).isEqualTo("locker");
    assertThat(query.limit()).isEqualTo(3);
  }

  // ---- generators

  @Provide
  Arbitrary<String> bodies() {
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(5, object(3)),
        net.jqwik.api.Tuple.of(1, value(3)),
        net.jqwik.api.Tuple.of(
            1, object(2).map(json -> json.replaceFirst("\\{", "{\"query\":\"a\","))));
  }

  @Provide
  Arbitrary<byte[]> mutated() {
    Arbitrary<byte[]> seeds =
        Arbitraries.of(FuzzCorpus.files("json-bodies")).filter(seed -> seed.length > 0);
    Arbitrary<List<int[]>> edits =
        Combinators.combine(
                Arbitraries.integers().between(0, 4),
                Arbitraries.integers().between(0, 100_000),
                Arbitraries.integers().between(0, 255))
            .as((kind, at, value) -> new int[] {kind, at, value})
            .list()
            .ofMinSize(1)
            .ofMaxSize(6);
    return Combinators.combine(seeds, edits).as(JsonBodyProperties::mutate);
  }

  /** Applies edits: flip a byte, insert one, delete one, duplicate a span, truncate. */
  static byte[] mutate(byte[] seed, List<int[]> edits) {
    List<Byte> bytes = new ArrayList<>();
    for (byte b : seed) {
      bytes.add(b);
    }
    for (int[] edit : edits) {
      if (bytes.isEmpty()) {
        bytes.add((byte) edit[2]);
        continue;
      }
      int at = edit[1] % bytes.size();
      switch (edit[0]) {
        case 0 -> bytes.set(at, (byte) edit[2]);
        case 1 -> bytes.add(at, (byte) edit[2]);
        case 2 -> bytes.remove(at);
        case 3 ->
            bytes.addAll(
                at,
                new ArrayList<>(bytes.subList(at, Math.min(bytes.size(), at + 1 + edit[2] % 16))));
        default -> bytes.subList(at, bytes.size()).clear();
      }
    }
    byte[] out = new byte[bytes.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = bytes.get(i);
    }
    return out;
  }

  private static Arbitrary<String> object(int depth) {
    Arbitrary<String> member =
        Combinators.combine(Arbitraries.of(FIELDS), value(depth - 1))
            .as((key, value) -> quote(key) + ":" + value);
    return member.list().ofMaxSize(6).map(members -> "{" + String.join(",", members) + "}");
  }

  private static Arbitrary<String> value(int depth) {
    Arbitrary<String> scalar =
        Arbitraries.oneOf(
            Arbitraries.of(NASTY).map(JsonBodyProperties::quote),
            Arbitraries.strings().all().ofMaxLength(12).map(JsonBodyProperties::quote),
            Arbitraries.integers().map(String::valueOf),
            Arbitraries.of(
                "0",
                "-1",
                "1e400",
                "1000000000000000000000000000000",
                "3.5",
                "true",
                "false",
                "null",
                "201",
                "100000"));
    if (depth <= 0) {
      return scalar;
    }
    Arbitrary<String> array =
        Arbitraries.lazy(() -> value(depth - 1))
            .list()
            .ofMaxSize(4)
            .map(items -> "[" + String.join(",", items) + "]");
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, scalar),
        net.jqwik.api.Tuple.of(2, array),
        net.jqwik.api.Tuple.of(2, Arbitraries.lazy(() -> object(depth - 1))));
  }

  /**
   * A JSON string of {@code text}, escaping as JSON must and writing lone surrogates as escapes.
   */
  static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
