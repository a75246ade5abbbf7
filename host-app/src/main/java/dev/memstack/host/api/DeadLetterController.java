package dev.memstack.host.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.InvalidRequestException;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.journal.DeadLetter;
import io.swagger.v3.oas.annotations.Operation;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The outbox's dead letters (admin): turns a provider would not take, parked out of its lane so
 * that the turns behind them are delivered. {@code GET /api/v1/outbox/dead-letters[?provider=]}
 * lists them, oldest parked first, without the turns' text; {@code POST
 * /api/v1/outbox/dead-letters/{id}/retry} hands one to its provider again as a new record at the
 * end of its lane (202); {@code DELETE /api/v1/outbox/dead-letters/{id}} forgets it (204). An id
 * that is not one is a 400, an unknown one a 404; a retry for a provider that is no longer
 * configured is a 409.
 */
@RestController
public class DeadLetterController {

  private static final Pattern PROVIDER_ID = Pattern.compile("[a-z][a-z0-9-]{0,63}");

  private final OutboxEngine engine;
  private final StackMembers members;

  public DeadLetterController(OutboxEngine engine, StackMembers members) {
    this.engine = engine;
    this.members = members;
  }

  /** One dead letter. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record DeadLetterView(
      String id,
      String provider,
      long position,
      String ownerKey,
      String agentId,
      String conversationId,
      String turnId,
      Instant acceptedAt,
      Instant parkedAt,
      int attempts,
      String reason,
      String detail) {

    static DeadLetterView of(DeadLetter letter) {
      return new DeadLetterView(
          letter.id(),
          letter.provider(),
          letter.position(),
          letter.owner(),
          letter.agent(),
          letter.conversationId(),
          letter.turnId(),
          letter.acceptedAt(),
          letter.parkedAt(),
          letter.attempts(),
          letter.reason(),
          letter.detail());
    }
  }

  /** The list: {@code count} is the number of items. */
  public record DeadLettersView(int count, List<DeadLetterView> deadLetters) {}

  /** A retried dead letter: it is queued again for its provider. */
  public record RetriedView(String id, String provider, String turnId, String status) {}

  @Operation(summary = "Turns the providers would not take, parked as dead letters")
  @RequiresRole(Role.ADMIN)
  @GetMapping(path = "/api/v1/outbox/dead-letters", produces = MediaType.APPLICATION_JSON_VALUE)
  public DeadLettersView deadLetters(@RequestParam(required = false) String provider) {
    if (provider != null && !PROVIDER_ID.matcher(provider).matches()) {
      throw new InvalidRequestException("provider", "must be a provider id ([a-z][a-z0-9-]*)");
    }
    List<DeadLetterView> views =
        engine.deadLetters().list(provider).stream().map(DeadLetterView::of).toList();
    return new DeadLettersView(views.size(), views);
  }

  @Operation(summary = "Hand a dead letter to its provider again")
  @RequiresRole(Role.ADMIN)
  @PostMapping(
      path = "/api/v1/outbox/dead-letters/{id}/retry",
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<RetriedView> retryDeadLetter(@PathVariable String id) {
    DeadLetter letter = find(id);
    boolean configured =
        members.find(letter.provider()).isPresent()
            || members.disabled().contains(letter.provider());
    if (!configured) {
      throw new ConflictException(
          "provider "
              + letter.provider()
              + " is no longer configured (memstack.providers); delete the dead letter instead");
    }
    DeadLetter retried =
        engine
            .deadLetters()
            .retry(id)
            .orElseThrow(() -> new NotFoundException("no dead letter " + id));
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .body(new RetriedView(retried.id(), retried.provider(), retried.turnId(), "queued"));
  }

  @Operation(summary = "Forget a dead letter")
  @RequiresRole(Role.ADMIN)
  @DeleteMapping(path = "/api/v1/outbox/dead-letters/{id}")
  public ResponseEntity<Void> deleteDeadLetter(@PathVariable String id) {
    find(id);
    if (!engine.deadLetters().delete(id)) {
      throw new NotFoundException("no dead letter " + id);
    }
    return ResponseEntity.noContent().build();
  }

  private DeadLetter find(String id) {
    if (!DeadLetter.isId(id)) {
      throw new InvalidRequestException(
          "id", "must be a dead-letter id: <position>.<provider>, such as 1234.vector");
    }
    return engine
        .deadLetters()
        .find(id)
        .orElseThrow(() -> new NotFoundException("no dead letter " + id));
  }
}
