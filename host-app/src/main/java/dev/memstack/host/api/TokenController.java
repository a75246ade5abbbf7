package dev.memstack.host.api;

import dev.memstack.host.security.AccessDeniedException;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.BearerTokens;
import dev.memstack.host.security.Caller;
import dev.memstack.host.security.ManagedTokens;
import dev.memstack.host.security.OwnerBinding;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.security.StoredToken;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import tools.jackson.databind.JsonNode;

/**
 * API tokens an admin manages ({@code POST}, {@code GET} and {@code DELETE /api/v1/tokens[/{id}]})
 * beside the configured ones, and {@code GET /api/v1/whoami}, what the caller's own token may do. A
 * new token ({@code ms_<id>_<secret>}) is answered once, whole, and kept only as a salted digest
 * ({@link ManagedTokens}); the list shows every token, configured ones too (with their
 * configuration key as id), never a secret or a digest. A revocation is effective at once on every
 * host and ends the token's MCP sessions and open streams; a configured token cannot be revoked
 * here ({@code 409} naming its configuration key). Managing tokens needs an {@code admin} token
 * bound to no owner (one bound to owners could otherwise make itself an unbound one); {@code
 * whoami} any valid token.
 */
@JsonRoutes("/api/v1")
public class TokenController {

  /** The fields a token request may carry. */
  static final Set<String> TOKEN_FIELDS = ApiRequests.fields(ApiRequests.TokenRequest.class);

  private final BearerTokens tokens;
  private final AccessPolicy access;

  /** Manages the {@link BearerTokens#managed() managed tokens} of {@code tokens}. */
  public TokenController(BearerTokens tokens, AccessPolicy access) {
    this.tokens = tokens;
    this.access = access;
  }

  private ManagedTokens managed() {
    return tokens.managed().orElseThrow(() -> new IllegalStateException("no managed tokens"));
  }

  /**
   * A token just made: its whole value ({@code token}) is in this answer only.
   *
   * @param role {@code VIEWER}, {@code MEMBER} or {@code ADMIN}
   * @param owner the owner binding, or {@code null}
   */
  public record CreatedToken(
      String id, String name, String role, String owner, Instant createdAt, String token) {}

  /**
   * One token of the list.
   *
   * @param id the managed token's id, or the configuration key of a configured one ({@code
   *     memstack.security.tokens[0]}; {@code api-token} for the generated admin token)
   * @param source {@code api} (managed) or {@code configuration}
   * @param createdAt when a managed token was made; {@code null} for a configured one
   * @param lastUsedAt when a host last accepted it, to the minute; {@code null} when never (a
   *     configured token's is this host's since its start)
   */
  public record TokenView(
      String id,
      String name,
      Role role,
      String owner,
      String source,
      Instant createdAt,
      Instant lastUsedAt) {}

  /** The list answer. */
  public record TokenList(List<TokenView> tokens) {}

  /** What the caller's token may do; {@code owner} is {@code null} for any owner. */
  public record WhoAmI(String name, String role, String owner, String source) {}

  @Operation(summary = "Make an API token; its secret is in this answer only")
  @JsonRequestBody(ApiRequests.TokenRequest.class)
  @ApiResponse(responseCode = "201", description = "made")
  @RequiresRole(Role.ADMIN)
  @PostMapping(path = "/tokens", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<CreatedToken> createToken(@RequestBody(required = false) JsonNode body) {
    requireUnboundAdmin();
    JsonBody json = JsonBody.of(body).onlyFields(TOKEN_FIELDS);
    String name = name(json.requiredString("name"));
    Role role = role(json.requiredString("role"));
    String owner = json.optionalString("owner");
    OwnerBinding binding =
        owner == null ? null : JsonBody.parse("owner", () -> OwnerBinding.of(owner));
    ManagedTokens.Created created;
    try {
      created = managed().create(name, role, binding);
    } catch (IllegalStateException e) {
      throw new ConflictException(e.getMessage());
    }
    Caller caller = created.token().caller();
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(
            new CreatedToken(
                caller.tokenId(),
                caller.name(),
                caller.role().name(),
                pattern(caller.owner()),
                created.token().createdAt(),
                created.value()));
  }

  @Operation(summary = "Every API token, configured and managed, without secrets")
  @RequiresRole(Role.ADMIN)
  @GetMapping("/tokens")
  public TokenList listTokens() {
    requireUnboundAdmin();
    List<TokenView> views = new ArrayList<>();
    for (BearerTokens.Configured token : tokens.configured()) {
      views.add(view(token.id(), token.caller(), null, token.lastUsedAt()));
    }
    for (StoredToken token : managed().list()) {
      views.add(view(token.id(), token.caller(), token.createdAt(), token.lastUsedAt()));
    }
    return new TokenList(views);
  }

  @Operation(
      summary =
          "Revoke an API token at once on every host, ending its MCP sessions and streams (409 for"
              + " a configured one)")
  @ApiResponse(responseCode = "204", description = "revoked")
  @RequiresRole(Role.ADMIN)
  @DeleteMapping("/tokens/{id}")
  public ResponseEntity<Void> revokeToken(@PathVariable("id") String id) {
    requireUnboundAdmin();
    for (BearerTokens.Configured token : tokens.configured()) {
      if (token.id().equals(id)) {
        throw new ConflictException(configuredMessage(id));
      }
    }
    if (!ManagedTokens.isId(id) || !managed().revoke(id)) {
      throw new NotFoundException("no API token " + id);
    }
    return ResponseEntity.noContent().build();
  }

  @Operation(summary = "What the caller's own token may do: its name, role, owner and source")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/whoami")
  public WhoAmI whoami() {
    Caller caller = access.caller();
    return new WhoAmI(
        caller.name(), caller.role().name(), pattern(caller.owner()), caller.source());
  }

  private void requireUnboundAdmin() {
    Caller caller = access.caller();
    if (caller.ownerBound()) {
      throw new AccessDeniedException(
          "managing API tokens needs an admin token bound to no owner; this one is bound to "
              + caller.owner().pattern());
    }
  }

  private String configuredMessage(String id) {
    if (BearerTokens.GENERATED_ID.equals(id)) {
      return "api-token is the generated admin token in the data directory and cannot be revoked"
          + " through the API: configure memstack.security.tokens instead (the generated token is"
          + " then no longer accepted)";
    }
    return id
        + " is configured, not managed: it cannot be revoked through the API; remove it from the"
        + " configuration ("
        + id
        + ") of every host";
  }

  private static String name(String name) {
    String stripped = name.strip();
    if (stripped.isEmpty() || stripped.length() > ManagedTokens.MAX_NAME) {
      throw new BadRequestException(
          "name", "name must be 1-" + ManagedTokens.MAX_NAME + " characters, not blank");
    }
    for (int i = 0; i < stripped.length(); i++) {
      if (Character.isISOControl(stripped.charAt(i))) {
        throw new BadRequestException("name", "name must not hold control characters");
      }
    }
    return stripped;
  }

  private static Role role(String role) {
    try {
      return Role.valueOf(role.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("role", "role must be VIEWER, MEMBER or ADMIN, got: " + role);
    }
  }

  private static TokenView view(String id, Caller caller, Instant createdAt, Instant lastUsedAt) {
    return new TokenView(
        id,
        caller.name(),
        caller.role(),
        pattern(caller.owner()),
        caller.source(),
        createdAt,
        lastUsedAt);
  }

  private static String pattern(OwnerBinding owner) {
    return owner == null ? null : owner.pattern();
  }
}
