package dev.memstack.host.stack;

import dev.memstack.host.conversation.ConversationLog;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * Counts, once the host is ready and on a thread of its own, the owner keys of the conversation log
 * that the identifier rule ({@link RequestChecks#ownerKey}) now refuses: keys stored before the
 * rule (an invisible character, a mixed-script look-alike) that only an admin can still erase and
 * export. A count above zero is a warning; the keys themselves are not logged. The conversation log
 * is the host's one store of owner keys it can list without asking the providers; owners without a
 * recorded turn are not counted.
 */
final class StoredOwnerKeys implements ApplicationListener<ApplicationReadyEvent> {

  private static final Logger log = LoggerFactory.getLogger(StoredOwnerKeys.class);

  private final ConversationLog conversations;

  StoredOwnerKeys(ConversationLog conversations) {
    this.conversations = conversations;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    Thread thread = new Thread(this::report, "memstack-stored-owner-keys");
    thread.setDaemon(true);
    thread.start();
  }

  void report() {
    try {
      Set<String> keys = conversations.ownerKeys();
      long refused = refused(keys);
      if (refused > 0) {
        log.warn(
            "{} of {} owner key(s) in the conversation log are refused by the identifier rule"
                + " (invisible, control or format characters, not NFC, or mixed-script look-alikes);"
                + " an admin can still export and erase them",
            refused,
            keys.size());
      } else {
        log.info(
            "All {} owner key(s) in the conversation log pass the identifier rule", keys.size());
      }
    } catch (RuntimeException e) {
      log.warn(
          "Could not count the stored owner keys the identifier rule refuses: {}", e.toString());
    }
  }

  /** How many of {@code keys} the identifier rule refuses. */
  static long refused(Set<String> keys) {
    return keys.stream().filter(key -> !passes(key)).count();
  }

  private static boolean passes(String key) {
    try {
      RequestChecks.ownerKey("ownerKey", key);
      return true;
    } catch (InvalidRequestException e) {
      return false;
    }
  }
}
