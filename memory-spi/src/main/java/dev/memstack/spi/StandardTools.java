package dev.memstack.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The well-known tool names behind the host's capability routes: a provider that claims {@link
 * Capability#WORKSPACE_FILES} or {@link Capability#MEMORY_JOBS} offers every tool of {@link
 * #required(Capability)} under exactly these names, declares reads as {@link ToolSpec.Effect#READ}
 * and the others as changing memory ({@link #readOnly(String)}), takes the arguments listed here
 * (plus the common {@code agentId} and {@code ownerKey}) and answers a JSON object. The host finds
 * the provider by the capability and the tool by these names; it knows no plugin's own vocabulary.
 * A provider that claims neither capability may use these names for tools of its own.
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
          Set.of(SUMMARIZE_CONVERSATION, RUN_EMERGENCE, DREAMING_STATUS));

  private static final Set<String> READS =
      Set.of(
          LIST_WORKSPACE_FILES,
          READ_WORKSPACE_FILE,
          SEARCH_WORKSPACE,
          EXPORT_WORKSPACE,
          DREAMING_STATUS);

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
