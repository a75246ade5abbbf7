package dev.memstack.host.security;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Tells read tools from write tools by the words of their names, since a tool's spec does not say:
 * a tool is a read when one of its {@code _}-separated words is a read verb ({@code read}, {@code
 * list}, {@code search}, {@code recall}, {@code get}, {@code find}, {@code query}, {@code export})
 * and none is a write verb ({@code write}, {@code edit}, {@code update}, {@code delete}, {@code
 * add}, {@code remember}, {@code import}, ...). Every other tool counts as a write, so an unusual
 * name needs the {@code member} role rather than slipping through with {@code viewer}.
 */
public final class ToolVerbs {

  private static final Set<String> READ =
      Set.of("read", "list", "search", "recall", "get", "find", "query", "export");
  private static final Set<String> WRITE =
      Set.of(
          "write",
          "edit",
          "update",
          "delete",
          "remove",
          "add",
          "remember",
          "import",
          "store",
          "save",
          "set",
          "put",
          "create",
          "forget",
          "clear",
          "erase",
          "move",
          "rename",
          "append",
          "insert",
          "upsert",
          "merge",
          "archive",
          "suppress",
          "activate",
          "reset",
          "enable",
          "disable");

  private ToolVerbs() {}

  /** Whether the tool named {@code toolName} only reads. */
  public static boolean isRead(String toolName) {
    List<String> words = Arrays.asList(toolName.split("_"));
    return words.stream().anyMatch(READ::contains) && words.stream().noneMatch(WRITE::contains);
  }
}
