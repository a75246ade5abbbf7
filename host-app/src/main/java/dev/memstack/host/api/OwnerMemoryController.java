package dev.memstack.host.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.window.ConversationWindows;
import dev.memstack.outbox.OwnerEraser;
import dev.memstack.outbox.OwnerErasure;
import dev.memstack.outbox.ProviderErasure;
import dev.memstack.spi.OwnerKey;
import io.swagger.v3.oas.annotations.Operation;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code DELETE /api/v1/owners/{ownerKey}/memory}: erases one owner in every configured provider
 * and drops the owner's turns still waiting for delivery. The answer (200) lists each provider's
 * outcome: {@code erased}, {@code queued} (not running or still busy; the erasure runs when it
 * can), {@code unsupported} (the provider cannot forget owners) or {@code error} (the provider
 * failed; the journal outbox retries it). An invalid owner key answers 400 naming {@code ownerKey};
 * a journal that cannot be written answers 503. Needs an {@code admin} token, or a {@code member}
 * token bound to owners that covers this one (403 otherwise). The owner's conversation turns and
 * the conversation window's cached summaries are deleted too (in shared mode they are rows of the
 * shared database, so for every host), and the answer counts both.
 */
@RestController
public class OwnerMemoryController {

  private final OwnerEraser eraser;
  private final ConversationLog conversations;
  private final ConversationWindows windows;
  private final AccessPolicy access;

  public OwnerMemoryController(
      OwnerEraser eraser,
      ConversationLog conversations,
      ConversationWindows windows,
      AccessPolicy access) {
    this.eraser = eraser;
    this.conversations = conversations;
    this.windows = windows;
    this.access = access;
  }

  /** The answer. */
  public record ErasureView(
      String ownerKey,
      List<ProviderErasureView> providers,
      long conversationTurnsRemoved,
      long conversationSummariesRemoved) {}

  /** One provider's outcome. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ProviderErasureView(
      String id, String outcome, long removed, int droppedPending, String detail) {

    static ProviderErasureView of(ProviderErasure erasure) {
      return new ProviderErasureView(
          erasure.id(),
          erasure.outcome(),
          erasure.removed(),
          erasure.droppedPending(),
          erasure.detail());
    }
  }

  @Operation(summary = "Erase one owner's memory in every provider and the conversation log")
  @RequiresRole(Role.MEMBER)
  @DeleteMapping(
      path = "/api/v1/owners/{ownerKey}/memory",
      produces = MediaType.APPLICATION_JSON_VALUE)
  public ErasureView erase(@PathVariable("ownerKey") String ownerKey) {
    OwnerKey owner = JsonBody.storedOwnerKey(ownerKey, access.caller());
    access.requireErase(owner);
    OwnerErasure erasure = eraser.erase(owner);
    return new ErasureView(
        erasure.owner().value(),
        erasure.providers().stream().map(ProviderErasureView::of).toList(),
        conversations.forget(owner),
        windows.forget(owner));
  }
}
