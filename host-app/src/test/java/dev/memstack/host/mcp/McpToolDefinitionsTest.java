package dev.memstack.host.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class McpToolDefinitionsTest {

  private final McpToolDefinitions definitions =
      new McpToolDefinitions(McpProperties.defaults(), JsonMapper.builder().build());

  @Test
  void hintsFollowTheDeclaredEffect() {
    assertThat(McpToolDefinitions.hints(ToolSpec.Effect.READ).readOnlyHint()).isTrue();
    assertThat(McpToolDefinitions.hints(ToolSpec.Effect.READ).destructiveHint()).isFalse();
    assertThat(McpToolDefinitions.hints(ToolSpec.Effect.WRITE).readOnlyHint()).isFalse();
    assertThat(McpToolDefinitions.hints(ToolSpec.Effect.WRITE).destructiveHint()).isFalse();
    for (ToolSpec.Effect effect :
        List.of(ToolSpec.Effect.DESTRUCTIVE, ToolSpec.Effect.UNDECLARED)) {
      assertThat(McpToolDefinitions.hints(effect).readOnlyHint()).isFalse();
      assertThat(McpToolDefinitions.hints(effect).destructiveHint()).isTrue();
    }
  }

  @Test
  void aProviderToolKeepsItsSchemaAndGainsTheOwnerArgument() {
    ToolSpec spec =
        new ToolSpec(
            "delete_memory",
            "Delete one memory.",
            "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
                + "\"required\":[\"id\"],\"additionalProperties\":false}",
            ToolSpec.Effect.DESTRUCTIVE);

    McpSchema.Tool tool = definitions.provider("vector__delete_memory", "vector", spec);

    assertThat(tool.name()).isEqualTo("vector__delete_memory");
    assertThat(tool.description()).isEqualTo("Delete one memory. (provider vector)");
    assertThat(tool.inputSchema())
        .containsEntry("required", List.of("id"))
        .containsEntry("additionalProperties", false);
    assertThat(properties(tool)).containsOnlyKeys("id", "ownerKey");
    assertThat(tool.annotations().destructiveHint()).isTrue();
  }

  @Test
  void anInvalidSchemaIsShownAsAnOpenObject() {
    McpSchema.Tool tool =
        definitions.provider(
            "p__t", "p", new ToolSpec("t", "T.", "not json", ToolSpec.Effect.READ));

    assertThat(tool.inputSchema()).containsEntry("type", "object");
    assertThat(properties(tool)).containsOnlyKeys("ownerKey");
  }

  @Test
  void theHostsToolsTakeTheirArgumentsAndTheOwner() {
    assertThat(properties(definitions.context()))
        .containsOnlyKeys("query", "conversationId", "limit", "window", "morningCard", "ownerKey");
    McpSchema.Tool remember = definitions.remember(ToolSpec.Effect.WRITE);
    assertThat(properties(remember)).containsOnlyKeys("text", "ownerKey");
    assertThat(remember.description()).contains("vector/remember");
    assertThat(remember.annotations()).isEqualTo(McpToolDefinitions.hints(ToolSpec.Effect.WRITE));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> properties(McpSchema.Tool tool) {
    return (Map<String, Object>) tool.inputSchema().get("properties");
  }
}
