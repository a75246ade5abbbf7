package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.conversation.FileConversationLog;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The count the host logs at start: the owner keys of the conversation log that the identifier rule
 * refuses, read back from the files (one per agent and owner folder).
 */
class StoredOwnerKeysTest {

  @TempDir Path dataDir;

  @Test
  void countsTheStoredKeysTheIdentifierRuleRefuses() {
    FileConversationLog log =
        new FileConversationLog(dataDir, dev.memstack.host.conversation.ConversationLimits.DEFAULT);
    String[] owners = {"user:1", "line:山田", "user:p\u0430ypal", "user:a\u200bb", "user:1"};
    for (int i = 0; i < owners.length; i++) {
      for (String agent : new String[] {"a1", "a2"}) {
        log.append(
            new Turn(
                "t-" + i,
                AgentId.of(agent),
                OwnerKey.of(owners[i]),
                "c" + i,
                "hello",
                "hi",
                TriggerSource.WEB,
                Instant.parse("2026-04-01T09:30:00Z")));
      }
    }

    assertThat(log.ownerKeys())
        .containsExactlyInAnyOrder("user:1", "line:山田", "user:p\u0430ypal", "user:a\u200bb");
    assertThat(StoredOwnerKeys.refused(log.ownerKeys())).isEqualTo(2);
    new StoredOwnerKeys(log).report();
  }
}
