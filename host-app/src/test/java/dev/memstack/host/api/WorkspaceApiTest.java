package dev.memstack.host.api;

import static dev.memstack.host.security.TestTokens.VIEWER;
import static dev.memstack.host.testing.HostClient.JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * The workspace REST routes over HTTP against the real builtin plugin zip (issue 3's "done when"):
 * core files in a new agent's system prompt, a synced turn in the owner's daily note and in that
 * owner's search only, Chinese found by a two-character query, bad paths refused with nothing
 * changed on disk, export then import into another agent, zip bombs and zip slips refused, metadata
 * toggling the system prompt, the import's own body limit, and the token checks.
 */
@HostTest
@DirtiesContext
@DisplayName("Workspace REST routes")
class WorkspaceApiTest {

  @Autowired HostClient api;

  private static final String MEMBER_USER_1 = "test-member-user1-0123456789abcdef";
  private static final int MAX_IMPORT_BYTES = 1024 * 1024;

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.builtinOnly("workspace-api")
          .tokens(
              new String[] {TestTokens.ADMIN, "admin", null},
              new String[] {VIEWER, "viewer", null},
              new String[] {MEMBER_USER_1, "member", "user:1"})
          .with("memstack.api.max-body-bytes", "64KB")
          .with("memstack.api.max-import-bytes", MAX_IMPORT_BYTES + "B");

  // ---------------------------------------------------------------- issue 3: done when

  @Test
  @DisplayName("a new agent's context call lists the four core files in the system prompt")
  void aNewAgentHasTheFourCoreFilesInItsSystemPrompt() {
    Answer context = context("w-new", "user:1", "hello");

    assertThat(context.status()).as(context.body()).isEqualTo(200);
    String prompt = context.json().get("systemPrompt").asString();
    assertThat(List.of("AGENTS.md", "SOUL.md", "PROFILE.md", "MEMORY.md"))
        .allSatisfy(name -> assertThat(prompt).contains("--- " + name + " ---"));
    Answer list = api.get("/api/v1/agents/w-new/workspace/files").expect(200);
    assertThat(texts(list.json().get("files"), "filename"))
        .containsExactly("AGENTS.md", "SOUL.md", "PROFILE.md", "MEMORY.md");
  }

  @Test
  @DisplayName("a turn synced for user:1 is in user:1's daily note and found for user:1 only")
  void aSyncedTurnIsInTheOwnersDailyNoteAndSearchableForThatOwnerOnly() {
    Answer turn =
        api.post(
                "/api/v1/agents/w-turn/memory/turns",
                "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\","
                    + "\"userMessage\":\"My locker code word is quokkamarmalade.\","
                    + "\"assistantReply\":\"I will remember it.\",\"triggerSource\":\"web\"}")
            .expect(202);

    String note =
        await()
            .atMost(Duration.ofSeconds(15))
            .until(() -> personalDailyNote("w-turn", "user:1"), n -> n != null);
    Answer read = api.get("/api/v1/agents/w-turn/workspace/files/" + note + "?ownerKey=user:1");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().get("scope").asString()).isEqualTo("personal");
    assertThat(read.json().get("content").asString())
        .startsWith("# 20")
        .contains("quokkamarmalade")
        .contains("I will remember it.");

    // the note is on disk a moment before the turn's delivery has indexed it
    Answer mine =
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> search("w-turn", "quokkamarmalade", "user:1"),
                a -> a.status() == 200 && a.json().get("count").asInt() > 0);
    Answer theirs = search("w-turn", "quokkamarmalade", "user:2");
    Answer shared = search("w-turn", "quokkamarmalade", null);
    assertThat(mine.json().get("count").asInt()).isEqualTo(1);
    assertThat(mine.json().get("hits").get(0).get("filename").asString()).isEqualTo(note);
    assertThat(theirs.json().get("count").asInt()).isZero();
    assertThat(theirs.json().get("hits")).isEmpty();
    assertThat(shared.json().get("count").asInt()).isZero();
    Answer theirNote =
        api.get(
            "/api/v1/agents/w-turn/workspace/files/" + note + "?ownerKey=user:2&scope=personal");
    assertThat(theirNote.status()).isEqualTo(404);
  }

  @Test
  @DisplayName("a Chinese phrase written to MEMORY.md is found by a two-character query")
  void aChinesePhraseIsFoundByTwoCharacters() {
    Answer write =
        api.put(
                "/api/v1/agents/w-zh/workspace/files/MEMORY.md",
                "{\"content\":\"# MEMORY\\n\\n- 用户喜欢喝手冲咖啡，不加糖。\\n\"}")
            .expect(200);
    assertThat(write.json().get("scope").asString()).isEqualTo("team");

    Answer hits = search("w-zh", "咖啡", null);

    assertThat(hits.status()).isEqualTo(200);
    assertThat(hits.json().get("count").asInt()).isEqualTo(1);
    JsonNode hit = hits.json().get("hits").get(0);
    assertThat(hit.get("filename").asString()).isEqualTo("MEMORY.md");
    assertThat(hit.get("snippet").asString()).contains("手冲咖啡");
    assertThat(search("w-zh", "红茶", null).json().get("count").asInt()).isZero();
  }

  @Test
  @DisplayName("writes to ../x.md, /etc/x.md, x.txt or a/%2e%2e/b.md are 400 and change nothing")
  void badPathsAreRefusedAndChangeNothing() {
    assertThat(api.get("/api/v1/agents/w-bad/workspace/files").status()).isEqualTo(200);
    Map<String, String> before = stableTree();
    String body = "{\"content\":\"should never be written\"}";

    Map<String, Answer> answers = new LinkedHashMap<>();
    for (String path :
        List.of(
            "../x.md",
            "%2Fetc%2Fx.md",
            "x.txt",
            "a/%2e%2e/b.md",
            "a/%2E%2E/b.md",
            "a/..%2Fb.md",
            "%2e%2e/x.md",
            "a%5Cb.md",
            "a%00.md",
            "a%0Ab.md",
            "a/%252e%252e/b.md",
            "C%3A%5Cx.md",
            "a//b.md")) {
      answers.put(path, api.put("/api/v1/agents/w-bad/workspace/files/" + path, body));
    }
    answers.put("read ../", api.get("/api/v1/agents/w-bad/workspace/files/a/%2e%2e/AGENTS.md"));
    answers.put("patch ../", patch("/api/v1/agents/w-bad/workspace/files/%2e%2e/AGENTS.md", "{}"));

    assertThat(answers)
        .allSatisfy(
            (path, answer) -> {
              assertThat(answer.status()).as(path + " -> " + answer.body()).isEqualTo(400);
              // an encoded slash, backslash or NUL is refused by the servlet container (Tomcat)
              // before any route; WorkspaceFilePathTest covers the controller's own check
              if (!path.matches("(?i).*%(2F|5C|00).*")) {
                assertThat(answer.json()).as(path + " -> " + answer.body()).isNotNull();
                assertThat(answer.json().get("field").asString()).as(path).isEqualTo("path");
              }
            });
    assertThat(answers.get("x.txt").json().get("message").asString()).contains(".md");
    assertThat(answers.get("a/%2e%2e/b.md").json().get("message").asString()).contains("..");
    assertThat(tree()).isEqualTo(before);
  }

  @Test
  @DisplayName("an export imported into another agent reproduces the files")
  void exportThenImportReproducesTheFiles() throws IOException {
    Map<String, String> written = new TreeMap<>();
    written.put("MEMORY.md", "# MEMORY\n\n- The team ships on Thursdays.\n");
    written.put("KNOWLEDGE.md", "# KNOWLEDGE\n\nThe staging host is st-2.\n");
    written.put("memory/2026-04-01.md", "# 2026-04-01\n\n- Kick-off meeting.\n");
    for (Map.Entry<String, String> file : written.entrySet()) {
      Answer put =
          api.put(
                  "/api/v1/agents/w-src/workspace/files/" + file.getKey(),
                  JSON.writeValueAsString(Map.of("content", file.getValue(), "scope", "team")))
              .expect(200);
    }
    api.put(
        "/api/v1/agents/w-src/workspace/files/notes/scratch.md",
        "{\"content\":\"not in any snapshot\"}");

    HttpResponse<byte[]> export = getBytes("/api/v1/agents/w-src/workspace/memory/export");

    assertThat(export.statusCode()).isEqualTo(200);
    assertThat(export.headers().firstValue("Content-Type")).hasValue("application/zip");
    assertThat(export.headers().firstValue("Content-Disposition").orElseThrow())
        .startsWith("attachment")
        .contains(".zip");
    Map<String, String> entries = unzip(export.body());
    assertThat(entries.keySet())
        .contains(
            "manifest.json",
            "AGENTS.md",
            "SOUL.md",
            "PROFILE.md",
            "MEMORY.md",
            "KNOWLEDGE.md",
            "memory/2026-04-01.md")
        .doesNotContain("notes/scratch.md");

    Path target = HOST.data().resolve("builtin/agents/w-dst");
    Answer preview =
        api.send(
                api.request("/api/v1/agents/w-dst/workspace/memory/import/preview")
                    .header("Content-Type", "application/zip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(export.body())))
            .expect(200);
    assertThat(preview.json().get("preview").asBoolean()).isTrue();
    // the target agent was never used: its core files would be seeded from the same templates
    assertThat(actions(preview.json()))
        .containsEntry("KNOWLEDGE.md", "create")
        .containsEntry("memory/2026-04-01.md", "create")
        .containsEntry("MEMORY.md", "update")
        .containsEntry("AGENTS.md", "skip");
    assertThat(target).as("a preview writes nothing").doesNotExist();

    Answer imported = postMultipart("/api/v1/agents/w-dst/workspace/memory/import", export.body());

    assertThat(imported.status()).as(imported.body()).isEqualTo(200);
    assertThat(imported.json().get("applied").asBoolean()).isTrue();
    for (String name : entries.keySet()) {
      if (name.equals("manifest.json")) {
        continue;
      }
      Answer source = api.get("/api/v1/agents/w-src/workspace/files/" + name + "?scope=team");
      Answer copy = api.get("/api/v1/agents/w-dst/workspace/files/" + name + "?scope=team");
      assertThat(copy.status()).as(name + ": " + copy.body()).isEqualTo(200);
      assertThat(copy.json().get("content").asString())
          .as(name)
          .isEqualTo(source.json().get("content").asString());
    }
    assertThat(api.get("/api/v1/agents/w-dst/workspace/files/notes/scratch.md").status())
        .isEqualTo(404);
    Answer again =
        api.send(
            api.request("/api/v1/agents/w-dst/workspace/memory/import/preview")
                .header("Content-Type", "application/zip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(export.body())));
    assertThat(texts(again.json().get("entries"), "action")).containsOnly("skip");
  }

  @Test
  @DisplayName("a zip bomb or a zip-slip archive is refused with 400 and nothing written")
  void zipBombsAndZipSlipsAreRefused() {
    assertThat(api.get("/api/v1/agents/w-zip/workspace/files").status()).isEqualTo(200);
    Map<String, String> before = stableTree();
    // 2 MiB of one letter: a few KB compressed, over the 1 MiB entry cap inflated
    byte[] bomb = zip(Map.of("memory/2026-04-02.md", "a".repeat(2 * 1024 * 1024)));
    // twenty entries of 1,000,000 bytes: each under the entry cap, 20 MB in all
    Map<String, String> many = new TreeMap<>();
    for (int i = 1; i <= 20; i++) {
      many.put(String.format("memory/2026-03-%02d.md", i), "b".repeat(1_000_000));
    }
    byte[] wideBomb = zip(many);
    byte[] slip = zip(Map.of("MEMORY.md", "# fine\n", "../../evil.md", "# evil\n"));
    byte[] encodedSlip = zip(Map.of("memory/%2e%2e/evil.md", "# evil\n"));

    List<Answer> answers =
        List.of(
            postZip("/api/v1/agents/w-zip/workspace/memory/import", bomb),
            postMultipart("/api/v1/agents/w-zip/workspace/memory/import", wideBomb),
            postZip("/api/v1/agents/w-zip/workspace/memory/import", slip),
            postZip("/api/v1/agents/w-zip/workspace/memory/import/preview", slip),
            postMultipart("/api/v1/agents/w-zip/workspace/memory/import", encodedSlip),
            postZip("/api/v1/agents/w-zip/workspace/memory/import", "not a zip".getBytes()));

    assertThat(bomb.length).isLessThan(64 * 1024);
    assertThat(answers)
        .allSatisfy(
            answer -> {
              assertThat(answer.status()).as(answer.body()).isEqualTo(400);
              assertThat(answer.json().get("field").asString()).isEqualTo("file");
            });
    assertThat(answers.get(2).json().get("message").asString()).contains("evil.md");
    assertThat(tree()).isEqualTo(before);
    assertThat(HOST.data().resolve("builtin/evil.md")).doesNotExist();
  }

  @Test
  @DisplayName("PATCH enabled puts a file into the system prompt and takes it out again")
  void patchEnabledTogglesTheSystemPrompt() {
    Answer write =
        api.put(
                "/api/v1/agents/w-patch/workspace/files/KNOWLEDGE.md",
                "{\"content\":\"# KNOWLEDGE\\n\\nThe wifi password rotates monthly.\\n\"}")
            .expect(200);
    assertThat(write.json().get("enabled").asBoolean()).isFalse();
    assertThat(systemPrompt("w-patch")).doesNotContain("--- KNOWLEDGE.md ---");

    Answer on =
        patch(
                "/api/v1/agents/w-patch/workspace/files/KNOWLEDGE.md",
                "{\"enabled\":true,\"sortOrder\":4}")
            .expect(200);
    assertThat(on.json().get("enabled").asBoolean()).isTrue();
    assertThat(on.json().get("sortOrder").asInt()).isEqualTo(4);
    assertThat(systemPrompt("w-patch"))
        .contains("--- KNOWLEDGE.md ---\n# KNOWLEDGE")
        .contains("rotates monthly");

    Answer off =
        patch("/api/v1/agents/w-patch/workspace/files/KNOWLEDGE.md", "{\"enabled\":false}")
            .expect(200);
    assertThat(systemPrompt("w-patch")).doesNotContain("--- KNOWLEDGE.md ---");

    assertBadRequest(
        patch("/api/v1/agents/w-patch/workspace/files/KNOWLEDGE.md", "{\"enabled\":\"yes\"}"),
        "enabled");
    assertBadRequest(patch("/api/v1/agents/w-patch/workspace/files/KNOWLEDGE.md", "{}"), "body");
    assertThat(patch("/api/v1/agents/w-patch/workspace/files/NOPE.md", "{\"enabled\":true}"))
        .satisfies(a -> assertThat(a.status()).isEqualTo(404));
  }

  // ---------------------------------------------------------------- limits, errors and tokens

  @Test
  @DisplayName("the import takes bodies up to max-import-bytes, other routes up to max-body-bytes")
  void theImportHasItsOwnBodyLimit() {
    // about 400 KB of incompressible text in daily notes: over max-body-bytes (64 KB) zipped
    Random random = new Random(7);
    Map<String, String> notes = new TreeMap<>();
    for (int i = 1; i <= 4; i++) {
      byte[] noise = new byte[75_000];
      random.nextBytes(noise);
      notes.put(
          String.format("memory/2026-02-%02d.md", i),
          java.util.Base64.getEncoder().encodeToString(noise));
    }
    byte[] snapshot = zip(notes);
    assertThat(snapshot.length).isGreaterThan(64 * 1024);

    Answer preview = postZip("/api/v1/agents/w-size/workspace/memory/import/preview", snapshot);
    Answer elsewhere =
        api.send(
            api.request("/api/v1/agents/w-size/workspace/search")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(snapshot)));
    byte[] huge = new byte[MAX_IMPORT_BYTES + 1];
    Answer tooLarge = postZip("/api/v1/agents/w-size/workspace/memory/import", huge);
    Answer tooLargeChunked =
        api.send(
            api.request("/api/v1/agents/w-size/workspace/memory/import")
                .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(multipart(huge)))));

    assertThat(preview.status()).as(preview.body()).isEqualTo(200);
    assertThat(preview.json().get("entries").size()).isEqualTo(4);
    assertBadRequest(elsewhere, "body");
    assertThat(elsewhere.json().get("message").asString()).contains("max-body-bytes");
    assertBadRequest(tooLarge, "body");
    assertThat(tooLarge.json().get("message").asString()).contains("max-import-bytes");
    assertThat(tooLargeChunked.status()).as(tooLargeChunked.body()).isEqualTo(400);
    assertThat(tooLargeChunked.body()).contains("max-import-bytes");
  }

  @Test
  @DisplayName("wrong requests get clear errors: missing file, bad JSON, unknown field, media type")
  void wrongRequestsGetClearErrors() {
    Answer missing = api.get("/api/v1/agents/w-err/workspace/files/NOPE.md");
    Answer noContent = api.put("/api/v1/agents/w-err/workspace/files/A.md", "{\"scope\":\"team\"}");
    Answer unknown =
        api.put(
            "/api/v1/agents/w-err/workspace/files/A.md", "{\"content\":\"x\",\"colour\":\"red\"}");
    Answer badScope =
        api.put(
            "/api/v1/agents/w-err/workspace/files/A.md", "{\"content\":\"x\",\"scope\":\"moon\"}");
    Answer badOwner = api.get("/api/v1/agents/w-err/workspace/files?ownerKey=Nobody");
    Answer text =
        api.send(
            api.request("/api/v1/agents/w-err/workspace/memory/import")
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("zip?")));
    Answer noPart =
        api.send(
            api.request("/api/v1/agents/w-err/workspace/memory/import")
                .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                .POST(HttpRequest.BodyPublishers.ofByteArray(multipart("other", new byte[3]))));
    Answer noQuery = api.post("/api/v1/agents/w-err/workspace/search", "{\"ownerKey\":\"user:1\"}");
    Answer badAgent = api.get("/api/v1/agents/bad%20agent/workspace/files");

    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.json().get("error").asString()).isEqualTo("not_found");
    assertBadRequest(noContent, "content");
    assertBadRequest(unknown, "colour");
    assertBadRequest(badScope, "scope");
    assertBadRequest(badOwner, "ownerKey");
    assertThat(text.status()).isEqualTo(415);
    assertThat(text.json().get("message").asString()).contains("application/zip");
    assertBadRequest(noPart, "file");
    assertBadRequest(noQuery, "query");
    assertBadRequest(badAgent, "agentId");
    assertThat(HOST.data().resolve("builtin/agents/w-err/A.md")).doesNotExist();
  }

  @Test
  @DisplayName("tokens: viewers read, owner-bound members write their own personal files only")
  void tokensAreChecked() {
    HostClient viewer = api.as(VIEWER);
    HostClient member = api.as(MEMBER_USER_1);
    String memory = "/api/v1/agents/w-sec/workspace/files/MEMORY.md";
    Answer viewerList = viewer.get("/api/v1/agents/w-sec/workspace/files");
    Answer viewerWrite = viewer.put(memory, "{\"content\":\"x\"}");
    Answer ownWrite = member.put(memory, "{\"content\":\"# mine\",\"ownerKey\":\"user:1\"}");
    Answer sharedWrite = member.put(memory, "{\"content\":\"# shared\"}");
    Answer teamScopeWrite =
        member.put(memory, "{\"content\":\"# team\",\"ownerKey\":\"user:1\",\"scope\":\"team\"}");
    Answer otherOwner = member.get("/api/v1/agents/w-sec/workspace/files?ownerKey=user:2");
    Answer viewerImport =
        viewer.send(
            viewer
                .request("/api/v1/agents/w-sec/workspace/memory/import")
                .header("Content-Type", "application/zip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(zip(Map.of("MEMORY.md", "x")))));
    Answer noToken = api.as(null).get("/api/v1/agents/w-sec/workspace/files");

    assertThat(viewerList.status()).isEqualTo(200);
    assertThat(viewerWrite.status()).isEqualTo(403);
    assertThat(ownWrite.status()).as(ownWrite.body()).isEqualTo(200);
    assertThat(ownWrite.json().get("scope").asString()).isEqualTo("personal");
    assertThat(sharedWrite.status()).isEqualTo(403);
    assertThat(teamScopeWrite.status()).isEqualTo(403);
    assertThat(otherOwner.status()).isEqualTo(403);
    assertThat(viewerImport.status()).isEqualTo(403);
    assertThat(noToken.status()).isEqualTo(401);
    Answer team = api.get("/api/v1/agents/w-sec/workspace/files/MEMORY.md?scope=team");
    assertThat(team.json().get("content").asString()).doesNotContain("# shared", "# team");
  }

  // ---------------------------------------------------------------- helpers

  private static final String BOUNDARY = "memstack-test-boundary-7d1c";

  private HttpResponse<byte[]> getBytes(String path) {
    try {
      return HttpClient.newHttpClient()
          .send(api.request(path).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private Answer patch(String path, String json) {
    return api.send(
        api.request(path)
            .header("Content-Type", "application/json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString(json)));
  }

  private Answer postZip(String path, byte[] zip) {
    return api.send(
        api.request(path)
            .header("Content-Type", "application/zip")
            .POST(HttpRequest.BodyPublishers.ofByteArray(zip)));
  }

  private Answer postMultipart(String path, byte[] zip) {
    return api.send(
        api.request(path)
            .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
            .POST(HttpRequest.BodyPublishers.ofByteArray(multipart(zip))));
  }

  private static byte[] multipart(byte[] zip) {
    return multipart("file", zip);
  }

  private static byte[] multipart(String part, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String head =
        "--"
            + BOUNDARY
            + "\r\nContent-Disposition: form-data; name=\""
            + part
            + "\"; filename=\"snapshot.zip\"\r\nContent-Type: application/zip\r\n\r\n";
    out.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(content);
    out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  private Answer context(String agent, String owner, String query) {
    return api.post(
        "/api/v1/agents/" + agent + "/memory/context",
        "{\"ownerKey\":\"" + owner + "\",\"conversationId\":\"c1\",\"query\":\"" + query + "\"}");
  }

  private String systemPrompt(String agent) {
    Answer answer = context(agent, "user:1", "hello");
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().get("systemPrompt").asString();
  }

  private Answer search(String agent, String query, String owner) {
    Map<String, String> body = new TreeMap<>();
    body.put("query", query);
    if (owner != null) {
      body.put("ownerKey", owner);
    }
    return api.post("/api/v1/agents/" + agent + "/workspace/search", JSON.writeValueAsString(body));
  }

  /** The owner's personal daily note, or {@code null} while there is none. */
  private String personalDailyNote(String agent, String owner) {
    Answer list =
        api.get("/api/v1/agents/" + agent + "/workspace/files?prefix=memory/&ownerKey=" + owner);
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    return StreamSupport.stream(list.json().get("files").spliterator(), false)
        .filter(f -> f.get("scope").asString().equals("personal"))
        .map(f -> f.get("filename").asString())
        .findFirst()
        .orElse(null);
  }

  private static void assertBadRequest(Answer answer, String field) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(400);
    assertThat(answer.json().get("error").asString()).isEqualTo("bad_request");
    assertThat(answer.json().get("field").asString()).as(answer.body()).isEqualTo(field);
    assertThat(answer.json().get("message").asString()).isNotBlank();
  }

  private static Map<String, String> actions(JsonNode report) {
    Map<String, String> actions = new TreeMap<>();
    for (JsonNode entry : report.get("entries")) {
      actions.put(entry.get("filename").asString(), entry.get("action").asString());
    }
    return actions;
  }

  private static List<String> texts(JsonNode array, String field) {
    return StreamSupport.stream(array.spliterator(), false)
        .map(n -> n.get(field).asString())
        .toList();
  }

  private static byte[] zip(Map<String, String> entries) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      for (Map.Entry<String, String> entry : entries.entrySet()) {
        zip.putNextEntry(new ZipEntry(entry.getKey()));
        zip.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static Map<String, String> unzip(byte[] zip) throws IOException {
    Map<String, String> entries = new TreeMap<>();
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
      for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
        entries.put(entry.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    return entries;
  }

  /** The data directory's tree once two looks 300 ms apart agree (background writes settled). */
  private static Map<String, String> stableTree() {
    return await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              Map<String, String> first = tree();
              Thread.sleep(300);
              return tree().equals(first) ? first : null;
            },
            t -> t != null);
  }

  /** Every path under the data directory with the SHA-256 of each file's content. */
  private static Map<String, String> tree() {
    Map<String, String> tree = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(HOST.data())) {
      for (Path path : paths.toList()) {
        String key = HOST.data().relativize(path).toString();
        if (Files.isDirectory(path)) {
          tree.put(key + "/", "dir");
        } else if (Files.isRegularFile(path)) {
          tree.put(
              key,
              HexFormat.of()
                  .formatHex(
                      MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(path))));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return tree;
  }
}
