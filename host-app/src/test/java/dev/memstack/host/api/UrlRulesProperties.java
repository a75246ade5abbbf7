package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.FuzzCorpus;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import tools.jackson.databind.JsonNode;

/**
 * The path and query rules of {@link RequestGuardFilter} ({@link UrlChecks}) under arbitrary input:
 * no request line makes them throw; a path they pass (and the container does not refuse first)
 * decodes to valid UTF-8 with no {@code .} or {@code ..} segment and no path parameter; a parameter
 * repeated under any percent-encoding of its name is found; and every refusal is a 400 or 415 with
 * the API's JSON error naming a field, the chain not called. The lines of {@code
 * fuzz/request-lines} (the adversarial pass's paths) are replayed as examples.
 */
class UrlRulesProperties {

  private static final RequestGuardFilter GUARD =
      new RequestGuardFilter(JsonBodyProperties.strictMapper());

  /** Pieces a path is built of: separators, dots in every spelling, encodings good and bad. */
  private static final List<String> PIECES =
      List.of(
          "/",
          "/",
          "/",
          ".",
          "..",
          "%2e",
          "%2E",
          "%2e%2e",
          ".%2e",
          "%252e",
          "a",
          "api",
          "v1",
          "agents",
          "actuator",
          "health",
          "prometheus",
          "user:1",
          ";",
          ";x=1",
          "%3B",
          "%2f",
          "%2F",
          "%5c",
          "%00",
          "%C0%AF",
          "%c0%ae",
          "%E0%80%AF",
          "%ED%A0%80",
          "%E2%82",
          "%C3%A9",
          "%F0%9F%98%80",
          "%",
          "%G1",
          "%1",
          "\u00C0\u00AF",
          "\u00E9",
          "\\",
          "<",
          "|",
          " ",
          "~",
          "%7E",
          "%25",
          "+",
          "?",
          "#",
          "&");

  private static final List<String> NAMES = List.of("ownerKey", "scope", "preview", "x", "a b");

  // ---- paths

  @Property(tries = 1500, seed = "250901")
  void aPathThatPassesHasNoDotSegmentNoParameterAndValidUtf8(@ForAll("paths") String raw) {
    checkPath(raw);
  }

  @Example
  void theRequestLinesOfTheCorpusPassOrAreRefusedCleanly() {
    List<byte[]> corpus = FuzzCorpus.files("request-lines");
    assertThat(corpus).isNotEmpty();
    for (byte[] file : corpus) {
      for (String line : new String(file, StandardCharsets.ISO_8859_1).split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        int query = line.indexOf('?');
        String path = query < 0 ? line : line.substring(0, query);
        String queryString = query < 0 ? null : line.substring(query + 1);
        checkPath(path);
        checkGuard(path, queryString, null);
        if (!refusedByContainer(path)
            && UrlChecks.pathProblem(path) == null
            && path.contains("/..")) {
          throw new AssertionError("a dot segment passed: " + line);
        }
      }
    }
  }

  static void checkPath(String raw) {
    String problem = UrlChecks.pathProblem(raw);
    if (problem != null) {
      assertThat(problem).isNotBlank();
      return;
    }
    if (refusedByContainer(raw)) {
      return;
    }
    assertThat(raw).doesNotContain(";");
    String decoded = strictlyDecoded(raw);
    assertThat(decoded).as("a passed path is valid UTF-8: %s", raw).isNotNull();
    for (String segment : decoded.split("/", -1)) {
      assertThat(segment).as("a segment of %s (%s)", raw, decoded).isNotIn(".", "..");
    }
  }

  /** What Tomcat refuses before any filter: an encoded {@code /}, {@code \} or NUL. */
  private static boolean refusedByContainer(String raw) {
    String lower = raw.toLowerCase(Locale.ROOT);
    return lower.contains("%2f") || lower.contains("%5c") || lower.contains("%00");
  }

  /** The path decoded as the container does (raw characters as bytes), or null if not UTF-8. */
  private static String strictlyDecoded(String raw) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%' && i + 2 < raw.length()) {
        int high = Character.digit(raw.charAt(i + 1), 16);
        int low = Character.digit(raw.charAt(i + 2), 16);
        if (high < 0 || low < 0) {
          return null;
        }
        bytes.write(high * 16 + low);
        i += 2;
      } else if (c == '%' || c > 0xFF) {
        return null;
      } else {
        bytes.write(c);
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  // ---- queries

  @Property(tries = 800, seed = "250902")
  void aNameGivenTwiceUnderAnyEncodingIsFound(
      @ForAll("queries") List<Tuple.Tuple3<String, Integer, String>> pairs) {
    List<String> parts = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    boolean repeated = false;
    for (Tuple.Tuple3<String, Integer, String> pair : pairs) {
      repeated |= !seen.add(pair.get1());
      parts.add(encoded(pair.get1(), pair.get2()) + "=" + pair.get3());
    }
    String query = String.join("&", parts);
    String found = UrlChecks.repeatedParameter(query);
    assertThat(found != null).as(query).isEqualTo(repeated);
    if (found != null) {
      assertThat(seen).contains(found);
    }
  }

  /** {@code name} spelled plainly, fully percent-encoded, or with one letter encoded. */
  private static String encoded(String name, int how) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean encode = how == 1 || (how == 2 && i == name.length() - 1);
      if (c == ' ') {
        out.append(how == 0 ? "+" : "%20");
      } else if (encode) {
        out.append(String.format(how == 1 ? "%%%02X" : "%%%02x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  // ---- the filter

  @Property(tries = 1000, seed = "250903")
  void theGuardPassesOrRefusesWithTheApiErrorNeverThrows(
      @ForAll("paths") String path,
      @ForAll("rawQueries") String query,
      @ForAll("contentTypes") String contentType) {
    checkGuard("/api/v1" + path, query, contentType);
  }

  static void checkGuard(String path, String query, String contentType) {
    MockHttpServletRequest request = new MockHttpServletRequest("POST", path);
    request.setQueryString(query);
    if (contentType != null) {
      request.setContentType(contentType);
    }
    MockHttpServletResponse response = new MockHttpServletResponse();
    AtomicBoolean passed = new AtomicBoolean();
    try {
      GUARD.doFilter(request, response, (req, res) -> passed.set(true));
    } catch (Exception e) {
      throw new AssertionError("the guard threw on " + path + "?" + query, e);
    }
    if (passed.get()) {
      assertThat(response.getStatus()).isEqualTo(200);
      assertThat(response.getContentAsByteArray()).isEmpty();
      return;
    }
    assertThat(response.getStatus()).as(path).isIn(400, 415);
    assertThat(response.getContentType()).startsWith("application/json");
    JsonNode error = JsonBodyProperties.MAPPER.readTree(response.getContentAsByteArray());
    assertThat(error.path("error").asString())
        .isIn(ApiError.BAD_REQUEST, ApiError.UNSUPPORTED_MEDIA_TYPE);
    assertThat(error.path("field").asString()).isNotBlank();
    assertThat(error.path("message").asString()).isNotBlank().doesNotContain("Exception");
  }

  // ---- generators

  @Provide
  Arbitrary<String> paths() {
    return Arbitraries.of(PIECES).list().ofMaxSize(10).map(pieces -> "/" + String.join("", pieces));
  }

  @Provide
  Arbitrary<List<Tuple.Tuple3<String, Integer, String>>> queries() {
    return Combinators.combine(
            Arbitraries.of(NAMES),
            Arbitraries.integers().between(0, 2),
            Arbitraries.of("user:1", "", "a%2Cb", "x"))
        .as(Tuple::of)
        .list()
        .ofMaxSize(5);
  }

  @Provide
  Arbitrary<String> rawQueries() {
    return Arbitraries.oneOf(
            Arbitraries.of(PIECES).list().ofMaxSize(6).map(pieces -> String.join("", pieces)),
            queries()
                .map(
                    pairs ->
                        String.join(
                            "&",
                            pairs.stream()
                                .map(pair -> encoded(pair.get1(), pair.get2()) + "=" + pair.get3())
                                .toList())))
        .injectNull(0.1);
  }

  @Provide
  Arbitrary<String> contentTypes() {
    return Arbitraries.oneOf(
            Arbitraries.of(
                "application/json",
                "application/json; charset=UTF-8",
                "*/*",
                "application/*",
                "not a type",
                "text/plain",
                "application/zip",
                "application/json; charset=\"",
                ";",
                "/",
                "a/b/c",
                "application/json;;",
                "*/json"),
            Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(20))
        .injectNull(0.1);
  }
}
