package dev.memstack.host.jobs;

import io.swagger.v3.oas.models.Operation;
import java.util.Map;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Stable operation ids for the memory-job routes, which answer at two paths with one handler: the
 * routes under {@link MemoryJobsController#BASE} are named after the handler ({@code
 * summarizeConversation}, {@code runEmergence}, {@code dreamingStatus}), the aliases under {@link
 * MemoryJobsController#ALIAS} keep the ids they had before the agent paths existed ({@code
 * summarize}, {@code emergence}, {@code status}), whichever of the two springdoc met first; the
 * lifecycle routes that also answer there ({@code morningCard}, {@code structuredConsolidation})
 * keep their handler's name at the agent path and get a {@code seed} prefix at the alias.
 */
@Configuration(proxyBeanMethods = false)
public class MemoryJobsApiDocs {

  /** Handler name to the operation id of its alias path. */
  private static final Map<String, String> ALIAS_IDS =
      Map.of(
          "summarizeConversation", "summarize",
          "runEmergence", "emergence",
          "dreamingStatus", "status",
          "morningCard", "seedMorningCard",
          "structuredConsolidation", "seedStructuredConsolidation");

  private static final String ALIAS_PREFIX =
      MemoryJobsController.ALIAS.substring(0, MemoryJobsController.ALIAS.indexOf('{'));

  @Bean
  OpenApiCustomizer memoryJobOperationIds() {
    return openApi -> {
      if (openApi.getPaths() == null) {
        return;
      }
      openApi
          .getPaths()
          .forEach(
              (path, item) -> {
                boolean alias = path.startsWith(ALIAS_PREFIX);
                for (Operation operation : item.readOperations()) {
                  rename(operation, alias);
                }
              });
    };
  }

  private static void rename(Operation operation, boolean alias) {
    String id = operation.getOperationId();
    if (id == null) {
      return;
    }
    String handler = id.replaceFirst("_\\d+$", "");
    if (ALIAS_IDS.containsKey(handler)) {
      operation.setOperationId(alias ? ALIAS_IDS.get(handler) : handler);
    }
  }
}
