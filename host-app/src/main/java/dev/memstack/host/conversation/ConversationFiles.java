package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON files the host keeps per agent, owner and conversation ({@link FileConversationLog}'s
 * turns, the window's summaries): {@code {"agentId", "ownerKey", "conversationId", <list>: [...]}},
 * read whole and rewritten atomically.
 */
public final class ConversationFiles {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private ConversationFiles() {}

  /**
   * What {@code parse} makes of the file's tree; a file that cannot be read or parsed is an error
   * naming {@code what}.
   */
  public static <T> T read(Path file, String what, Function<JsonNode, T> parse) {
    try {
      return parse.apply(JSON.readTree(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot read the " + what + " " + file, e);
    }
  }

  /** Whose a file is: the agent, the owner and the conversation it holds items of. */
  public record Head(AgentId agent, String ownerKey, String conversationId) {}

  /**
   * Writes the file of one conversation: its {@code head}, and under {@code list} one object per
   * item, filled by {@code fill}; creates its folder. {@code what} names the file in the error.
   */
  public static <T> void write(
      Path file,
      String what,
      Head head,
      String list,
      List<T> items,
      BiConsumer<ObjectNode, T> fill) {
    ObjectNode node = JSON.createObjectNode();
    node.put("agentId", head.agent().value());
    node.put("ownerKey", head.ownerKey());
    node.put("conversationId", head.conversationId());
    ArrayNode array = node.putArray(list);
    items.forEach(item -> fill.accept(array.addObject(), item));
    try {
      AtomicFiles.createParentDirectories(file);
      AtomicFiles.writeString(file, JSON.writeValueAsString(node));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the " + what + " " + file, e);
    }
  }
}
