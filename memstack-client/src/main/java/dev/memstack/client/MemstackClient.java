package dev.memstack.client;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * A client of one memstack host, for one agent: the context call before the model runs, the turn
 * after it answered, feedback on recalled items, the providers' tools, an owner's conversations and
 * their window, and the erasure of an owner.
 *
 * <pre>{@code
 * MemstackClient memstack = MemstackClient.builder(URI.create("http://127.0.0.1:8080"))
 *     .token(System.getenv("MEMSTACK_TOKEN"))
 *     .agentId("support-bot")
 *     .build();
 * }</pre>
 *
 * <p>Every call blocks the calling thread for at most the connect timeout plus the request timeout
 * and throws a {@link MemstackApiException} when the host answers with an error status (its JSON
 * error attached) or a {@link MemstackConnectionException} when no answer comes. The client is
 * immutable and safe for concurrent use; one instance per host is enough ({@link #forAgent(String)}
 * shares its connections). It never logs, and the token appears in no message.
 */
public final class MemstackClient {

  /** The host's agent ids. */
  private static final Pattern AGENT_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private final URI baseUrl;
  private final String agentId;
  private final JsonHttp http;

  private MemstackClient(URI baseUrl, String agentId, JsonHttp http) {
    this.baseUrl = baseUrl;
    this.agentId = agentId;
    this.http = http;
  }

  /** A builder for a host at {@code baseUrl} ({@code http://127.0.0.1:8080}, no {@code /api}). */
  public static Builder builder(URI baseUrl) {
    return new Builder(baseUrl);
  }

  /** The same host, token and connections for another agent. */
  public MemstackClient forAgent(String otherAgentId) {
    return new MemstackClient(baseUrl, checkedAgent(otherAgentId), http);
  }

  /** The host's base URL. */
  public URI baseUrl() {
    return baseUrl;
  }

  /** The agent this client acts for. */
  public String agentId() {
    return agentId;
  }

  /** {@code POST /api/v1/agents/{agentId}/memory/context}: what to put into the prompt. */
  public ContextAnswer context(ContextRequest request) {
    Objects.requireNonNull(request, "request");
    return http.exchange("POST", agentUri("/memory/context"), request, ContextAnswer.class);
  }

  /**
   * {@code POST /api/v1/agents/{agentId}/memory/context/preview}: what {@link #context} would
   * answer now, changing nothing (no provider tracks the recall, no morning card is claimed).
   */
  public ContextAnswer preview(ContextRequest request) {
    Objects.requireNonNull(request, "request");
    return http.exchange("POST", agentUri("/memory/context/preview"), request, ContextAnswer.class);
  }

  /** {@code POST /api/v1/agents/{agentId}/memory/turns}: hands in a finished turn. */
  public TurnAccepted postTurn(TurnRequest turn) {
    Objects.requireNonNull(turn, "turn");
    return http.exchange("POST", agentUri("/memory/turns"), turn, TurnAccepted.class);
  }

  /**
   * {@code POST /api/v1/agents/{agentId}/memory/feedback}: the owner used recalled items ({@code
   * used}: their trust goes up) or marked them wrong ({@code wrong}: their trust goes down, and an
   * item marked wrong often enough is suppressed for this owner). Either list may be empty, not
   * both; each holds at most 200 items.
   *
   * @param ownerKey the owner the items were recalled for
   * @param used the items the answer used; {@code null} or empty for none
   * @param wrong the items the owner marked wrong; {@code null} or empty for none
   */
  public FeedbackApplied feedback(
      String ownerKey, List<FeedbackItem> used, List<FeedbackItem> wrong) {
    Objects.requireNonNull(ownerKey, "ownerKey");
    boolean anyUsed = used != null && !used.isEmpty();
    boolean anyWrong = wrong != null && !wrong.isEmpty();
    if (!anyUsed && !anyWrong) {
      throw new IllegalArgumentException("feedback needs used or wrong items");
    }
    java.util.Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("ownerKey", ownerKey);
    if (anyUsed) {
      body.put("used", List.copyOf(used));
    }
    if (anyWrong) {
      body.put("wrong", List.copyOf(wrong));
    }
    return http.exchange("POST", agentUri("/memory/feedback"), body, FeedbackApplied.class);
  }

  /** {@link #feedback} with {@code wrong} items only: the owner marked them wrong. */
  public FeedbackApplied wrong(String ownerKey, List<FeedbackItem> wrong) {
    return feedback(ownerKey, null, wrong);
  }

  /** {@code GET /api/v1/agents/{agentId}/tools}: every running provider's tools. */
  public List<Tool> tools() {
    return http.exchange("GET", agentUri("/tools"), null, ToolList.class).tools();
  }

  /**
   * {@code POST /api/v1/agents/{agentId}/tools/{providerId}/{tool}}: calls one tool.
   *
   * @param ownerKey the owner the call acts for; {@code null} reaches shared memory only
   * @param arguments the tool's arguments: a {@code Map}, a record or a {@code JsonNode} that
   *     serialises to a JSON object; {@code null} for none
   * @return the tool's JSON answer
   */
  public JsonNode callTool(String providerId, String tool, String ownerKey, Object arguments) {
    Objects.requireNonNull(providerId, "providerId");
    Objects.requireNonNull(tool, "tool");
    String path = "/tools/" + segment(providerId) + "/" + segment(tool);
    if (ownerKey != null) {
      path += "?ownerKey=" + URLEncoder.encode(ownerKey, StandardCharsets.UTF_8);
    }
    Object body = arguments == null ? http.json().createObjectNode() : arguments;
    return http.exchange("POST", agentUri(path), body, JsonNode.class);
  }

  /**
   * {@code DELETE /api/v1/owners/{ownerKey}/memory}: erases the owner in every provider (for every
   * agent) and drops their turns still waiting for delivery.
   */
  public Erasure eraseOwner(String ownerKey) {
    Objects.requireNonNull(ownerKey, "ownerKey");
    URI uri = resolve("/api/v1/owners/" + segment(ownerKey) + "/memory");
    return http.exchange("DELETE", uri, null, Erasure.class);
  }

  /**
   * {@code POST /api/v1/tokens}: makes an API token (needs an admin token bound to no owner).
   *
   * @param role {@code VIEWER}, {@code MEMBER} or {@code ADMIN}
   * @param owner the owner binding ({@code api:42} or {@code api:*}), or {@code null} for any owner
   * @return the token, whose secret this answer alone carries
   */
  public CreatedToken createToken(String name, String role, String owner) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    java.util.Map<String, String> body = new java.util.LinkedHashMap<>();
    body.put("name", name);
    body.put("role", role);
    if (owner != null) {
      body.put("owner", owner);
    }
    return http.exchange("POST", resolve("/api/v1/tokens"), body, CreatedToken.class);
  }

  /** {@code GET /api/v1/tokens}: every token, configured and managed, without secrets. */
  public List<ApiToken> listTokens() {
    return http.exchange("GET", resolve("/api/v1/tokens"), null, TokenList.class).tokens();
  }

  /**
   * {@code DELETE /api/v1/tokens/{id}}: revokes a managed token at once on every host.
   *
   * @return {@code true} when it was revoked, {@code false} when the host knows no such token (it
   *     answered 404)
   * @throws MemstackApiException with status 409 for a configured token
   */
  public boolean revokeToken(String id) {
    Objects.requireNonNull(id, "id");
    try {
      http.exchange("DELETE", resolve("/api/v1/tokens/" + segment(id)), null, Void.class);
      return true;
    } catch (MemstackApiException e) {
      if (e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** {@code GET /api/v1/whoami}: what this client's token may do. */
  public WhoAmI whoami() {
    return http.exchange("GET", resolve("/api/v1/whoami"), null, WhoAmI.class);
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/conversations?ownerKey=}: the owner's conversations, the
   * one with the newest turn first.
   *
   * @param ownerKey the owner; {@code null} for the owner of a token bound to one owner key
   */
  public List<ConversationSummary> conversations(String ownerKey) {
    return http.exchange(
            "GET", agentUri("/conversations" + ownerQuery(ownerKey)), null, ConversationList.class)
        .conversations();
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/conversations/{conversationId}?ownerKey=}: the owner's kept
   * turns of the conversation, oldest first.
   *
   * @param ownerKey the owner; {@code null} for the owner of a token bound to one owner key
   * @throws MemstackApiException with status 404 when the owner has no turn in it
   */
  public Conversation conversation(String ownerKey, String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    String path = "/conversations/" + segment(conversationId) + ownerQuery(ownerKey);
    return http.exchange("GET", agentUri(path), null, Conversation.class);
  }

  /**
   * {@code DELETE /api/v1/agents/{agentId}/conversations/{conversationId}?ownerKey=}: clears the
   * owner's log of the conversation and what the host keeps with it (a window's summaries).
   *
   * @param ownerKey the owner; {@code null} for the owner of a token bound to one owner key
   * @return {@code true} when turns were removed, {@code false} when the host has none of the owner
   *     in the conversation (it answered 404)
   */
  public boolean deleteConversation(String ownerKey, String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    String path = "/conversations/" + segment(conversationId) + ownerQuery(ownerKey);
    try {
      http.exchange("DELETE", agentUri(path), null, Void.class);
      return true;
    } catch (MemstackApiException e) {
      if (e.status() == 404) {
        return false;
      }
      throw e;
    }
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/conversations/{conversationId}/window?ownerKey=}: the
   * messages the host would send the model next for the conversation, within its token budget, with
   * the summary of the earlier turns once there is one.
   *
   * @param ownerKey the owner; {@code null} for the owner of a token bound to one owner key
   * @throws MemstackApiException with status 404 when the host has no such conversation or no
   *     window route (a host before the conversation window)
   */
  public ConversationWindow window(String ownerKey, String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    String path = "/conversations/" + segment(conversationId) + "/window" + ownerQuery(ownerKey);
    return http.exchange("GET", agentUri(path), null, ConversationWindow.class);
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/memory/items}: the owner's memories in one provider that
   * claims the admin capability, newest first.
   *
   * @param ownerKey the owner; {@code null} for shared memory only (or the owner of a token bound
   *     to one owner key)
   * @param query the other query parameters ({@code provider}, {@code offset}, {@code limit},
   *     {@code status}, {@code type}, {@code scope}, {@code text}, {@code since}, {@code until}),
   *     or {@code null}
   * @return the answer: {@code total}, {@code offset}, {@code limit} and {@code items}
   */
  public JsonNode memories(String ownerKey, java.util.Map<String, String> query) {
    return http.exchange("GET", itemsUri("", ownerKey, query), null, JsonNode.class);
  }

  /** {@code GET .../memory/items/count}: {@code total}, {@code byStatus} and {@code byType}. */
  public JsonNode countMemories(String ownerKey, java.util.Map<String, String> query) {
    return http.exchange("GET", itemsUri("/count", ownerKey, query), null, JsonNode.class);
  }

  /**
   * {@code GET .../memory/items/{id}}: one memory.
   *
   * @throws MemstackApiException with status 404 when the owner may not see it or it is gone
   */
  public JsonNode memory(String ownerKey, String id) {
    return http.exchange("GET", itemUri(id, "", ownerKey), null, JsonNode.class);
  }

  /**
   * {@code PATCH .../memory/items/{id}}: replaces a memory's text.
   *
   * @param updatedAt the {@code updatedAt} read with the memory
   * @throws MemstackApiException with status 409 when the memory changed after {@code updatedAt}
   *     (nothing is written)
   */
  public JsonNode editMemory(String ownerKey, String id, String text, String updatedAt) {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(updatedAt, "updatedAt");
    java.util.Map<String, String> body = java.util.Map.of("text", text, "updatedAt", updatedAt);
    return http.exchange("PATCH", itemUri(id, "", ownerKey), body, JsonNode.class);
  }

  /**
   * {@code POST .../memory/items/{id}/archive}, {@code /suppress} or {@code /activate}.
   *
   * @param status {@code archived}, {@code suppressed} or {@code active}
   * @throws MemstackApiException with status 409 when the memory's status does not allow it
   */
  public JsonNode setMemoryStatus(String ownerKey, String id, String status) {
    Objects.requireNonNull(status, "status");
    String action =
        switch (status) {
          case "archived" -> "/archive";
          case "suppressed" -> "/suppress";
          case "active" -> "/activate";
          default ->
              throw new IllegalArgumentException(
                  "status must be archived, suppressed or active, got: " + status);
        };
    return http.exchange("POST", itemUri(id, action, ownerKey), null, JsonNode.class);
  }

  /**
   * {@code DELETE .../memory/items/{id}}: forgets a memory; its history keeps only that it was
   * forgotten.
   */
  public JsonNode forgetMemory(String ownerKey, String id) {
    return http.exchange("DELETE", itemUri(id, "", ownerKey), null, JsonNode.class);
  }

  /**
   * {@code GET .../memory/items/{id}/history}: {@code id}, {@code forgotten} and {@code events}.
   */
  public JsonNode memoryHistory(String ownerKey, String id) {
    return http.exchange("GET", itemUri(id, "/history", ownerKey), null, JsonNode.class);
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/memory/dream/morning-card}: what dreaming concluded about
   * the owner on one day (yesterday in the host's {@code memstack.lifecycle.zone} when {@code date}
   * is {@code null}), item by item.
   */
  public JsonNode morningCard(String ownerKey, String date) {
    java.util.Map<String, String> query = new java.util.HashMap<>();
    query.put("date", date);
    return http.exchange(
        "GET", queryUri("/memory/dream/morning-card", ownerKey, query), null, JsonNode.class);
  }

  /**
   * {@code POST .../memory/dream/reports/{reportId}/items/{index}}: the owner confirms, edits (with
   * {@code text}) or forgets one item of a dreaming report.
   */
  public JsonNode resolveCardItem(
      String ownerKey, String reportId, int index, String action, String text) {
    Objects.requireNonNull(reportId, "reportId");
    Objects.requireNonNull(action, "action");
    java.util.Map<String, String> body = new java.util.HashMap<>();
    body.put("action", action);
    if (text != null) {
      body.put("text", text);
    }
    String path =
        "/memory/dream/reports/" + segment(reportId) + "/items/" + index + ownerQuery(ownerKey);
    return http.exchange("POST", agentUri(path), body, JsonNode.class);
  }

  /** {@code GET .../memory/dream/reports}: the dreaming reports, newest first. */
  public JsonNode dreamReports(String ownerKey, String from, String to) {
    java.util.Map<String, String> query = new java.util.HashMap<>();
    query.put("from", from);
    query.put("to", to);
    return http.exchange(
        "GET", queryUri("/memory/dream/reports", ownerKey, query), null, JsonNode.class);
  }

  /** {@code POST .../memory/dream/focused}: dreams now on one topic (needs a chat model). */
  public JsonNode focusedDream(String ownerKey, String topic) {
    Objects.requireNonNull(topic, "topic");
    return http.exchange(
        "POST",
        agentUri("/memory/dream/focused" + ownerQuery(ownerKey)),
        java.util.Map.of("topic", topic),
        JsonNode.class);
  }

  /**
   * {@code POST .../memory/structured-consolidation}: merges near-duplicate structured entries now
   * on every provider that serves it (needs a chat model): the sums of {@code ownersConsolidated},
   * {@code updated}, {@code entriesBefore} and {@code entriesAfter}, every {@code buckets} entry
   * with its {@code provider}, and each provider's own answer under {@code providers}.
   */
  public JsonNode structuredConsolidation(String ownerKey) {
    return http.exchange(
        "POST",
        agentUri("/memory/structured-consolidation" + ownerQuery(ownerKey)),
        java.util.Map.of(),
        JsonNode.class);
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/memory/inbox}: the owner's open contradictions in one
   * provider that claims the contradictions capability, oldest first: a newer statement (incoming,
   * pending) that conflicts with an active memory (existing), both kept until the owner decides.
   *
   * @param ownerKey the owner; {@code null} for shared memory only (or the owner of a token bound
   *     to one owner key)
   * @param query the other query parameters ({@code provider}, {@code offset}, {@code limit}), or
   *     {@code null}
   * @return the answer: {@code total}, {@code offset}, {@code limit} and {@code items}, each with
   *     {@code id}, {@code createdAt}, {@code existing} and {@code incoming}
   */
  public JsonNode contradictions(String ownerKey, java.util.Map<String, String> query) {
    return http.exchange("GET", queryUri("/memory/inbox", ownerKey, query), null, JsonNode.class);
  }

  /**
   * {@code POST .../memory/inbox/{id}}: decides one contradiction, in both memories' histories.
   *
   * @param decision {@code keep-new} (the incoming memory becomes active and supersedes the
   *     existing one), {@code keep-old} (the incoming one is archived) or {@code keep-both}
   * @return the answer: {@code id}, {@code decision}, {@code existing} and {@code incoming}
   * @throws MemstackApiException with status 404 when the owner may not see it or it is decided
   */
  public JsonNode resolveContradiction(String ownerKey, String id, String decision) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(decision, "decision");
    if (!java.util.Set.of("keep-new", "keep-old", "keep-both").contains(decision)) {
      throw new IllegalArgumentException(
          "decision must be keep-new, keep-old or keep-both, got: " + decision);
    }
    URI uri = agentUri("/memory/inbox/" + segment(id) + ownerQuery(ownerKey));
    return http.exchange("POST", uri, java.util.Map.of("decision", decision), JsonNode.class);
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/owners}: the owners the agent holds personal memories of,
   * by owner key, each with its count per provider.
   *
   * @param offset owners to skip, or {@code null} (0)
   * @param limit owners per page (1 to 1000), or {@code null} (50)
   * @param q a part of the owner key (any case), or {@code null}
   * @return the answer: {@code owners} (each {@code ownerKey}, {@code counts} by provider and
   *     {@code total}), {@code offset}, {@code limit} and {@code total}
   */
  public JsonNode listOwners(Integer offset, Integer limit, String q) {
    java.util.Map<String, String> query = new java.util.HashMap<>();
    query.put("offset", offset == null ? null : offset.toString());
    query.put("limit", limit == null ? null : limit.toString());
    query.put("q", q);
    return http.exchange("GET", queryUri("/owners", null, query), null, JsonNode.class);
  }

  /**
   * {@code GET /api/v1/agents/{agentId}/stats}: the agent's statistics, or one owner's.
   *
   * @param ownerKey the owner, or {@code null} for the agent (every owner's; needs a token bound to
   *     no owner)
   * @return the answer: {@code counts} ({@code byProvider}, {@code byType}, {@code byStatus}),
   *     {@code recent} ({@code turnsLastHour}, {@code memoriesCreatedLastHour}), {@code outbox}
   *     ({@code pending}, {@code deadLetters}, {@code lagSeconds}) and {@code samples} of the last
   *     hour
   */
  public JsonNode stats(String ownerKey) {
    return http.exchange("GET", queryUri("/stats", ownerKey, null), null, JsonNode.class);
  }

  private URI itemUri(String id, String rest, String ownerKey) {
    Objects.requireNonNull(id, "id");
    return agentUri("/memory/items/" + segment(id) + rest + ownerQuery(ownerKey));
  }

  private URI itemsUri(String rest, String ownerKey, java.util.Map<String, String> query) {
    return queryUri("/memory/items" + rest, ownerKey, query);
  }

  private URI queryUri(String route, String ownerKey, java.util.Map<String, String> query) {
    StringBuilder path = new StringBuilder(route).append(ownerQuery(ownerKey));
    if (query != null) {
      for (java.util.Map.Entry<String, String> e : new java.util.TreeMap<>(query).entrySet()) {
        if (e.getValue() == null) {
          continue;
        }
        path.append(path.indexOf("?") < 0 ? '?' : '&')
            .append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8))
            .append('=')
            .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
      }
    }
    return agentUri(path.toString());
  }

  private static String ownerQuery(String ownerKey) {
    return ownerKey == null
        ? ""
        : "?ownerKey=" + URLEncoder.encode(ownerKey, StandardCharsets.UTF_8);
  }

  private URI agentUri(String rest) {
    return resolve("/api/v1/agents/" + agentId + rest);
  }

  private URI resolve(String path) {
    String base = baseUrl.toString();
    return URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path);
  }

  /** A path segment, percent-encoded; a colon stays readable ({@code user:42}). */
  private static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("%3A", ":");
  }

  private static String checkedAgent(String agentId) {
    Objects.requireNonNull(agentId, "agentId");
    if (!AGENT_ID.matcher(agentId).matches()) {
      throw new IllegalArgumentException(
          "agentId must be 1-64 characters of [A-Za-z0-9_-], got: \"" + agentId + "\"");
    }
    return agentId;
  }

  /** The conversation list answer. */
  private record ConversationList(List<ConversationSummary> conversations) {
    ConversationList {
      conversations = conversations == null ? List.of() : List.copyOf(conversations);
    }
  }

  /** The token list answer. */
  private record TokenList(List<ApiToken> tokens) {
    TokenList {
      tokens = tokens == null ? List.of() : List.copyOf(tokens);
    }
  }

  /** The tool list answer. */
  private record ToolList(List<Tool> tools) {
    ToolList {
      tools = tools == null ? List.of() : List.copyOf(tools);
    }
  }

  /** Settings of a {@link MemstackClient}; {@link #agentId(String)} is required. */
  public static final class Builder {

    private final URI baseUrl;
    private String token;
    private String agentId;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration timeout = Duration.ofSeconds(10);

    private Builder(URI baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      String scheme = baseUrl.getScheme();
      if (!"http".equals(scheme) && !"https".equals(scheme) || baseUrl.getHost() == null) {
        throw new IllegalArgumentException(
            "baseUrl must be an http or https URL such as http://127.0.0.1:8080, got: " + baseUrl);
      }
      this.baseUrl = baseUrl;
    }

    /** The bearer token; {@code null} sends none (a host with security turned off). */
    public Builder token(String bearerToken) {
      this.token = bearerToken == null || bearerToken.isBlank() ? null : bearerToken.strip();
      return this;
    }

    /** The agent every call acts for: 1-64 characters of {@code [A-Za-z0-9_-]}. */
    public Builder agentId(String id) {
      this.agentId = checkedAgent(id);
      return this;
    }

    /** Longest wait for a connection; default 5 s. */
    public Builder connectTimeout(Duration value) {
      this.connectTimeout = positive(value, "connectTimeout");
      return this;
    }

    /** Longest wait for the host's answer to one call, once connected; default 10 s. */
    public Builder timeout(Duration value) {
      this.timeout = positive(value, "timeout");
      return this;
    }

    public MemstackClient build() {
      if (agentId == null) {
        throw new IllegalStateException(
            "agentId is required: MemstackClient.builder(..).agentId(..)");
      }
      HttpClient http =
          HttpClient.newBuilder()
              .connectTimeout(connectTimeout)
              // plain HTTP/1.1: no h2c upgrade attempt on every new connection
              .version(HttpClient.Version.HTTP_1_1)
              .followRedirects(HttpClient.Redirect.NEVER)
              .build();
      return new MemstackClient(baseUrl, agentId, new JsonHttp(http, token, timeout));
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, got: " + value);
      }
      return value;
    }
  }
}
