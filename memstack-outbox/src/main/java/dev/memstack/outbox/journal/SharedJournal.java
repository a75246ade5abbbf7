package dev.memstack.outbox.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.IntConsumer;
import java.util.zip.CRC32;

/**
 * A {@link Journal} that several hosts append to and deliver from at once ({@link
 * PostgresJournal}). Its records are split into {@link #shards()} shards by a hash of their owner,
 * and a lane is one provider's share of one shard ({@link #laneId}): the engine keeps one lane per
 * (provider, shard), and the lane delivers only while this host holds its lease ({@link
 * #tryLease}). A leased lane does not wait for records to be handed to it: it reads them from the
 * journal ({@link #scan}), because other hosts append too, and it saves its cursor, guarded by its
 * lease, before each delivery ({@link #claim}), so that a host that takes the lane over after a
 * crash resumes there and knows which records may be delivered twice.
 *
 * <p>Within one shard, positions are commit-ordered: a record with a higher position than another
 * of its shard is never visible before it. A lane can therefore read "position at or after my
 * cursor" without skipping one that commits late. Positions of different shards interleave freely.
 */
public interface SharedJournal extends Journal {

  /**
   * What a host finds when it takes a lane.
   *
   * @param cursor the cursor the last holder saved
   * @param attemptedBefore the last holder may have delivered records before this position that are
   *     at or after the cursor (it was delivering them when it stopped); records the new holder
   *     delivers below it are counted as redeliveries
   */
  record Taken(Cursor cursor, long attemptedBefore) {}

  /**
   * A read of a lane's shard.
   *
   * @param entries the records addressed to the lane's provider, in position order
   * @param scannedTo every record of the shard before this position was looked at (those not
   *     addressed to the provider are done for it)
   */
  record Scan(List<Entry> entries, long scannedTo) {}

  /**
   * The backlog of one provider across every host.
   *
   * @param turns turns not yet done
   * @param erasures erasures not yet done, parked ones included
   * @param oldestAcceptedMillis when the oldest of them was accepted; {@code Long.MAX_VALUE} when
   *     none
   */
  record Pending(long turns, long erasures, long oldestAcceptedMillis) {}

  /**
   * What every host sees of the shared journal, refreshed about once a second.
   *
   * @param host this host's id
   * @param liveHosts hosts whose heartbeat is recent
   * @param pending backlog per provider id
   * @param holders lane id to the id of the host holding its lease (lanes nobody holds are absent)
   */
  record State(
      String host, int liveHosts, Map<String, Pending> pending, Map<String, String> holders) {}

  /** Shards of the journal ({@code memstack.outbox.shards}). */
  int shards();

  /** This host's id, as lease holders are named. */
  String hostId();

  /**
   * Takes the lane after {@link #tryLease} gave it to this host: its saved cursor and what the last
   * holder was delivering.
   */
  Taken taken(String lane) throws IOException;

  /**
   * The records of the lane's shard from {@code from} on that are addressed to the lane's provider,
   * at most {@code limit}, in position order.
   */
  Scan scan(String lane, long from, int limit) throws IOException;

  /**
   * Saves the lane's cursor before records before {@code attemptedBefore} are delivered; answers
   * {@code false}, saving nothing, when this host no longer holds the lane's lease.
   */
  boolean claim(String lane, Cursor done, long attemptedBefore) throws IOException;

  /**
   * Whether this host holds more of the provider's lanes than its share ({@code ceil(shards / live
   * hosts)}) and should give this one up.
   */
  boolean overShare(String lane);

  /** Gives the lane's lease up (its cursor is saved first by the caller). */
  void release(String lane);

  /** The cursor position of a lane, as saved by whichever host holds it; empty if unknown. */
  OptionalLong savedNext(String lane) throws IOException;

  /**
   * How many turns of {@code owner} before {@code before} are not yet done, per provider (what an
   * erasure drops).
   */
  Map<String, Integer> undone(String owner, long before) throws IOException;

  /**
   * The position before which the oldest turns waiting for {@code provider} lie beyond its newest
   * {@code keep} waiting turns, over every shard and as the saved cursors stand; empty while no
   * more than {@code keep} wait.
   */
  OptionalLong backlogCut(String provider, int keep) throws IOException;

  /** Deletes the records that every lane of their shard is past; returns how many. */
  int compactDone();

  /** The shared backlog and leases, as of the last refresh. */
  State state();

  /** Calls {@code shard} with a shard's number whenever a host appends to it (best effort). */
  void onAppend(IntConsumer shard);

  /** The shard of an owner's records: a CRC32 of the owner key, modulo {@code shards}. */
  static int shardOf(String owner, int shards) {
    CRC32 crc = new CRC32();
    crc.update(owner.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % shards);
  }

  /** The id of the lane of {@code provider} over {@code shard}: {@code provider#shard}. */
  static String laneId(String provider, int shard) {
    return provider + "#" + shard;
  }

  /** The provider of a lane id (the id itself when it names no shard). */
  static String providerOf(String lane) {
    int hash = lane.lastIndexOf('#');
    return hash < 0 ? lane : lane.substring(0, hash);
  }

  /** The shard of a lane id; 0 when it names none. */
  static int shardOfLane(String lane) {
    int hash = lane.lastIndexOf('#');
    if (hash < 0) {
      return 0;
    }
    try {
      return Integer.parseInt(lane.substring(hash + 1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
