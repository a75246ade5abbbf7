package dev.memstack.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The well-known tool names behind the host's capability routes: a provider that claims {@link
 * Capability#WORKSPACE_FILES}, {@link Capability#MEMORY_JOBS} or {@link Capability#MEMORY_ADMIN}
 * offers every tool of {@link #required(Capability)} under exactly these names, declares reads as
 * {@link ToolSpec.Effect#READ} and the others as changing memory ({@link #readOnly(String)}), takes
 * the arguments listed here (plus the common {@code agentId} and {@code ownerKey}) and answers a
 * JSON object. The host finds the provider by the capability and the tool by these names; it knows
 * no plugin's own vocabulary. A provider that claims neither capability may use these names for
 * tools of its own, except {@link #RUN_STRUCTURED_CONSOLIDATION}, which a provider may serve on its
 * own (see there).
 *
 * <p>Argument errors are {@link ToolException#invalidArgument(String, String)} naming the argument;
 * the other kinds map to HTTP as for every tool call.
 *
 * @since 0.2.0
 */
public final class StandardTools {

  /** {@link Capability#WORKSPACE_FILES}: lists files; {@code filenamePrefix?}, {@code scope?}. */
  public static final String LIST_WORKSPACE_FILES = "list_workspace_memory_files";

  /** {@link Capability#WORKSPACE_FILES}: reads one file; {@code filename}, {@code scope?}. */
  public static final String READ_WORKSPACE_FILE = "read_workspace_memory_file";

  /**
   * {@link Capability#WORKSPACE_FILES}: overwrites one file; {@code filename}, {@code content},
   * {@code scope?}.
   */
  public static final String WRITE_WORKSPACE_FILE = "write_workspace_memory_file";

  /**
   * {@link Capability#WORKSPACE_FILES}: turns a file on or off, or moves it; {@code filename},
   * {@code enabled?}, {@code sortOrder?}, {@code scope?}.
   */
  public static final String UPDATE_WORKSPACE_FILE_META = "update_workspace_file_meta";

  /**
   * {@link Capability#WORKSPACE_FILES}: keyword search; {@code query}, {@code limit?}, {@code
   * scope?}.
   */
  public static final String SEARCH_WORKSPACE = "search_workspace_memory";

  /**
   * {@link Capability#WORKSPACE_FILES}: a ZIP snapshot; {@code scope?}; answers {@code zipBase64}
   * and optionally {@code fileName}.
   */
  public static final String EXPORT_WORKSPACE = "export_workspace_memory";

  /**
   * {@link Capability#WORKSPACE_FILES}: imports a ZIP snapshot, every entry or none; {@code
   * zipBase64}, {@code preview} (classify only, write nothing), {@code scope?}.
   */
  public static final String IMPORT_WORKSPACE = "import_workspace_memory";

  /**
   * {@link Capability#MEMORY_JOBS}: extracts memory from one conversation of the owner now; {@code
   * conversationId}.
   */
  public static final String SUMMARIZE_CONVERSATION = "summarize_conversation";

  /** {@link Capability#MEMORY_JOBS}: dreams now (the owner's bucket when an owner is given). */
  public static final String RUN_EMERGENCE = "run_emergence";

  /** {@link Capability#MEMORY_JOBS}: the last and next dreaming run. */
  public static final String DREAMING_STATUS = "dreaming_status";

  /**
   * {@link Capability#MEMORY_ADMIN}: the memories the caller may see, newest first, in pages;
   * {@code offset?}, {@code limit?} (at most 100), and the filters {@code status?} (a name or a
   * list, or {@code any}; every status by default), {@code type?}, {@code scope?}, {@code text?}
   * (words the text holds), {@code since?} and {@code until?} (ISO dates or instants). Answers
   * {@code total}, {@code offset}, {@code limit} and {@code items}, each item an object with at
   * least {@code id}, {@code text}, {@code scope}, {@code type}, {@code status}, {@code createdAt}
   * and {@code updatedAt}, and where the provider has them {@code owner}, {@code name}, {@code
   * importance}, {@code weight} and {@code trust}.
   *
   * @since 0.5.0
   */
  public static final String LIST_MEMORIES = "list_memories";

  /**
   * {@link Capability#MEMORY_ADMIN}: how many memories the caller may see match the filters of
   * {@link #LIST_MEMORIES}; answers {@code total}, {@code byStatus} and {@code byType} (counts by
   * lower-case status and by type). With {@code allOwners} {@code true} (and no owner in the call)
   * it counts every owner's personal memories of the agent as well as the shared ones: the agent's
   * whole memory, for its statistics; the host passes it only for a caller bound to no owner.
   *
   * @since 0.5.0
   */
  public static final String COUNT_MEMORIES = "count_memories";

  /**
   * {@link Capability#MEMORY_ADMIN}: the owners the agent holds personal memory for, ordered by
   * owner key (Unicode code point order), in pages; {@code offset?}, {@code limit?} (at most 1000,
   * or 10,000 without counts), {@code q?} (a part of the key, any case), {@code prefix?} (keys that
   * start with it, as given) and {@code counts?} ({@code false}: the keys alone, which a provider
   * may answer without counting). With an owner in the call, that owner alone (when it has any).
   * Answers {@code total} (the owners that match), {@code offset}, {@code limit} and {@code
   * owners}, each with {@code ownerKey} and, unless {@code counts} is {@code false}, {@code count}
   * (the owner's personal memories of the agent, every status; 0 for an owner whose memory is all
   * gone but whom the provider still keeps). It reads across owners: the host never lets a token
   * bound to owners call it without either its own owner in the call or its own owner-key prefix as
   * {@code prefix}.
   *
   * @since 0.5.0
   */
  public static final String LIST_OWNERS = "list_owners";

  /**
   * {@link Capability#MEMORY_ADMIN}: one memory; {@code id}. Answers the item as {@link
   * #LIST_MEMORIES} does. An id the caller may not see is {@code NOT_FOUND}, as one that does not
   * exist.
   *
   * @since 0.5.0
   */
  public static final String GET_MEMORY = "get_memory";

  /**
   * {@link Capability#MEMORY_ADMIN}: archives, suppresses or activates one memory; {@code id},
   * {@code status} ({@code archived}, {@code suppressed} or {@code active}). Answers {@code id},
   * {@code status} and {@code previous}; a change the memory's status does not allow is {@code
   * CONFLICT}.
   *
   * @since 0.5.0
   */
  public static final String UPDATE_MEMORY_STATUS = "update_memory_status";

  /**
   * {@link Capability#MEMORY_ADMIN}: replaces one memory's text; {@code id}, {@code text}, {@code
   * updatedAt} (the {@code updatedAt} the caller read: optimistic locking). Answers the item as
   * {@link #LIST_MEMORIES} does; a stale {@code updatedAt} is {@code CONFLICT} and changes nothing.
   *
   * @since 0.5.0
   */
  public static final String EDIT_MEMORY = "edit_memory";

  /**
   * {@link Capability#MEMORY_ADMIN}: forgets one memory for good; {@code id}. Answers {@code id}
   * and {@code deleted}. Its text leaves its history too: the history keeps only that a forget
   * happened.
   *
   * @since 0.5.0
   */
  public static final String DELETE_MEMORY = "delete_memory";

  /**
   * {@link Capability#MEMORY_ADMIN}: one memory's history, oldest first; {@code id}. Answers {@code
   * id} and {@code events}, each with {@code at} (an instant), {@code event} ({@code added}, {@code
   * updated}, {@code status}, {@code superseded}, {@code supersedes}, {@code trust}, {@code
   * decision} or {@code forgotten}, or a provider's own), {@code actor} when known, and where it
   * applies {@code text} (the text after the change), {@code previous} (the text before it), {@code
   * status}, {@code previousStatus}, {@code reason} and {@code other} (the id of the other memory
   * of a supersession or a decision). A forgotten memory answers its one {@code forgotten} event.
   *
   * @since 0.5.0
   */
  public static final String MEMORY_HISTORY = "memory_history";

  /**
   * {@link Capability#LIFECYCLE}: the structured reports of dreaming runs, newest first; {@code
   * ownerKey?} (the owner's bucket, else the team's), {@code from?} and {@code to?} (ISO dates,
   * inclusive; archived months are read too). Answers {@code reports}, each with {@code id}, {@code
   * date}, {@code time}, {@code trigger}, {@code scope}, {@code read}, {@code patterns}, {@code
   * changes} (each {@code file}, {@code before}, {@code after}) and {@code items} (each {@code
   * index}, {@code text}, {@code kind}, {@code status}).
   *
   * @since 0.5.0
   */
  public static final String DREAM_REPORTS = "dream_reports";

  /**
   * {@link Capability#LIFECYCLE}: the owner's morning card, the items of the reports of one day
   * (yesterday by default); {@code ownerKey}, {@code date?} (ISO date), {@code zone?} (the time
   * zone that says which day is yesterday; UTC by default). Answers {@code date}, {@code zone} and
   * {@code items}, each with {@code reportId}, {@code index}, {@code text}, {@code kind} and {@code
   * status} ({@code pending}, {@code confirmed}, {@code edited}).
   *
   * @since 0.5.0
   */
  public static final String DREAM_MORNING_CARD = "dream_morning_card";

  /**
   * {@link Capability#LIFECYCLE}: the owner's answer to one card item; {@code ownerKey}, {@code
   * reportId}, {@code index}, {@code action} ({@code confirm}, {@code edit} with {@code text}, or
   * {@code forget}). An edit changes the memory the item names; a forget removes it from memory and
   * its text from every report, archive and journal. Answers the item.
   *
   * @since 0.5.0
   */
  public static final String RESOLVE_CARD_ITEM = "resolve_card_item";

  /**
   * {@link Capability#LIFECYCLE}: dreams now on one topic only; {@code ownerKey?}, {@code topic}.
   * Answers as {@link #RUN_EMERGENCE}. {@code CONFLICT} without a chat model.
   *
   * @since 0.5.0
   */
  public static final String RUN_FOCUSED_DREAM = "run_focused_dream";

  /**
   * {@link Capability#LIFECYCLE}: merges near-duplicate or outdated structured entries now; {@code
   * ownerKey?} (one owner's bucket, else the team's and up to the per-run maximum of owners).
   * Answers {@code ownersConsolidated}, {@code updated}, {@code entriesBefore}, {@code
   * entriesAfter}. Never writes more entries than it read. {@code CONFLICT} without a chat model.
   *
   * <p>Also served on its own: a provider that does not claim {@link Capability#LIFECYCLE} (whose
   * other tools are about dreaming) but keeps structured memory it can consolidate lists a tool of
   * this name with this contract, declared as changing memory; the name is never used for another
   * tool. The host's consolidation route calls it on every running provider that claims the
   * capability or lists the tool.
   *
   * @since 0.5.0
   */
  public static final String RUN_STRUCTURED_CONSOLIDATION = "run_structured_consolidation";

  /**
   * {@link Capability#CONTRADICTIONS}: the owner's open contradictions, oldest first; {@code
   * ownerKey}, {@code offset?}, {@code limit?}. Answers {@code total} and {@code items}, each with
   * {@code id} (of the contradiction), {@code createdAt}, {@code existing} and {@code incoming}
   * (each a memory item as {@link #LIST_MEMORIES} answers it).
   *
   * @since 0.5.0
   */
  public static final String LIST_CONTRADICTIONS = "list_contradictions";

  /**
   * {@link Capability#CONTRADICTIONS}: decides one contradiction; {@code ownerKey}, {@code id},
   * {@code decision} ({@code keep-new}: the incoming memory becomes active and supersedes the
   * existing one; {@code keep-old}: the incoming one is archived; {@code keep-both}: both are
   * active). Recorded in both memories' histories. Answers {@code id}, {@code decision}, {@code
   * existing} and {@code incoming}; a contradiction already decided is {@code NOT_FOUND}.
   *
   * @since 0.5.0
   */
  public static final String RESOLVE_CONTRADICTION = "resolve_contradiction";

  private static final Map<Capability, Set<String>> REQUIRED =
      Map.of(
          Capability.WORKSPACE_FILES,
          Set.of(
              LIST_WORKSPACE_FILES,
              READ_WORKSPACE_FILE,
              WRITE_WORKSPACE_FILE,
              UPDATE_WORKSPACE_FILE_META,
              SEARCH_WORKSPACE,
              EXPORT_WORKSPACE,
              IMPORT_WORKSPACE),
          Capability.MEMORY_JOBS,
          Set.of(SUMMARIZE_CONVERSATION, RUN_EMERGENCE, DREAMING_STATUS),
          Capability.LIFECYCLE,
          Set.of(
              DREAM_REPORTS,
              DREAM_MORNING_CARD,
              RESOLVE_CARD_ITEM,
              RUN_FOCUSED_DREAM,
              RUN_STRUCTURED_CONSOLIDATION),
          Capability.CONTRADICTIONS,
          Set.of(LIST_CONTRADICTIONS, RESOLVE_CONTRADICTION),
          Capability.MEMORY_ADMIN,
          Set.of(
              LIST_MEMORIES,
              COUNT_MEMORIES,
              LIST_OWNERS,
              GET_MEMORY,
              UPDATE_MEMORY_STATUS,
              EDIT_MEMORY,
              DELETE_MEMORY,
              MEMORY_HISTORY));

  private static final Set<String> READS =
      Set.of(
          LIST_WORKSPACE_FILES,
          READ_WORKSPACE_FILE,
          SEARCH_WORKSPACE,
          EXPORT_WORKSPACE,
          DREAMING_STATUS,
          LIST_MEMORIES,
          COUNT_MEMORIES,
          LIST_OWNERS,
          GET_MEMORY,
          MEMORY_HISTORY,
          DREAM_REPORTS,
          DREAM_MORNING_CARD,
          LIST_CONTRADICTIONS);

  private StandardTools() {}

  /**
   * The tools a provider that claims {@code capability} must offer; empty for a capability that
   * needs no tool.
   */
  public static Set<String> required(Capability capability) {
    Objects.requireNonNull(capability, "capability");
    return REQUIRED.getOrDefault(capability, Set.of());
  }

  /**
   * Whether the standard tool {@code name} must be declared {@link ToolSpec.Effect#READ} ({@code
   * true}) or as changing memory ({@code false}); {@code false} for a name that is no standard
   * tool.
   */
  public static boolean readOnly(String name) {
    return READS.contains(name);
  }
}
