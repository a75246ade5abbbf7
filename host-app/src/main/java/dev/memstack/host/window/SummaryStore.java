package dev.memstack.host.window;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.support.Require;
import java.time.Instant;
import java.util.List;

/**
 * The cache of conversation summaries, kept per agent, owner and conversation and keyed by the
 * covered prefix: the last covered turn id and a hash of what the summary was made from. The file
 * store ({@link FileSummaryStore}) is the default; in shared mode the summaries are rows of the
 * shared database ({@link PostgresSummaryStore}), so every host reuses what any host summarised.
 * Thread-safe.
 */
public interface SummaryStore {

  /** One cached summary. */
  record StoredSummary(
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      String lastTurnId,
      String hash,
      String text,
      int coversTurns,
      Instant created) {

    public StoredSummary {
      Require.nonNull(
          "agent owner conversationId lastTurnId hash text created",
          agent,
          owner,
          conversationId,
          lastTurnId,
          hash,
          text,
          created);
    }
  }

  /** The conversation's summaries made at or after {@code notBefore}, newest first. */
  List<StoredSummary> summaries(
      AgentId agent, OwnerKey owner, String conversationId, Instant notBefore);

  /**
   * Keeps {@code summary} unless one with the same last turn id and hash is kept, and drops the
   * conversation's summaries made before {@code expiredBefore}.
   */
  void put(StoredSummary summary, Instant expiredBefore);

  /** Erases every summary of {@code owner}, leaving no stored copy; returns how many. */
  long forget(OwnerKey owner);

  /** Erases the summaries of one conversation. */
  void forgetConversation(AgentId agent, OwnerKey owner, String conversationId);
}
