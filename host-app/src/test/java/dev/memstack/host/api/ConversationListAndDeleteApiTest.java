package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.memstack.host.conversation.ConversationDeletionListener;
import dev.memstack.host.conversation.FileConversationLog;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.Caller;
import dev.memstack.host.security.OwnerBinding;
import dev.memstack.host.security.Role;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/**
 * {@code GET .../conversations} and {@code DELETE .../conversations/{conversationId}} over MockMvc
 * on a real file log: the list, the deletion with its listeners, 404, and the owner rules.
 */
class ConversationListAndDeleteApiTest {

  static final String BASE = "/api/v1/agents/a1/conversations";

  @TempDir Path dir;

  private final List<String> told = new CopyOnWriteArrayList<>();
  private FileConversationLog log;
  private MockMvc mvc;

  @BeforeEach
  void setUp() {
    log = new FileConversationLog(dir, dev.memstack.host.conversation.ConversationLimits.DEFAULT);
    ConversationDeletionListener listener =
        (agent, owner, conversation) -> told.add(agent + "/" + owner.value() + "/" + conversation);
    StaticListableBeanFactory beans = new StaticListableBeanFactory(Map.of("window", listener));
    mvc =
        MockMvcBuilders.standaloneSetup(
                new ConversationController(
                    log,
                    new AccessPolicy(),
                    beans.getBeanProvider(ConversationDeletionListener.class)))
            .setControllerAdvice(new ApiExceptionHandler())
            .defaultRequest(get("/").requestAttr(Caller.ATTRIBUTE, Caller.unchecked()))
            .build();
    append("t1", "user:1", "c-old", "2026-11-29T08:00:00Z");
    append("t2", "user:1", "c-old", "2026-11-29T09:00:00Z");
    append("t3", "user:1", "c-new", "2026-11-29T10:00:00Z");
    append("t4", "user:2", "c-old", "2026-11-29T11:00:00Z");
  }

  @Test
  void theListShowsTheOwnersConversationsNewestFirst() throws Exception {
    mvc.perform(get(BASE).param("ownerKey", "user:1"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.agentId").value("a1"))
        .andExpect(jsonPath("$.ownerKey").value("user:1"))
        .andExpect(jsonPath("$.count").value(2))
        .andExpect(jsonPath("$.conversations[0].conversationId").value("c-new"))
        .andExpect(jsonPath("$.conversations[0].turns").value(1))
        .andExpect(jsonPath("$.conversations[0].lastTurnAt").value("2026-11-29T10:00:00Z"))
        .andExpect(jsonPath("$.conversations[1].conversationId").value("c-old"))
        .andExpect(jsonPath("$.conversations[1].turns").value(2));
    mvc.perform(get(BASE).param("ownerKey", "user:3"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.count").value(0))
        .andExpect(jsonPath("$.conversations").isEmpty());
  }

  @Test
  void deletingClearsOneOwnersConversationAndTellsTheListeners() throws Exception {
    mvc.perform(delete(BASE + "/c-old").param("ownerKey", "user:1"))
        .andExpect(status().isNoContent());

    assertThat(told).containsExactly("a1/user:1/c-old");
    assertThat(log.turns(AgentId.of("a1"), OwnerKey.of("user:1"), "c-old")).isEmpty();
    assertThat(log.turns(AgentId.of("a1"), OwnerKey.of("user:2"), "c-old")).isPresent();
    mvc.perform(get(BASE + "/c-old").param("ownerKey", "user:1")).andExpect(status().isNotFound());
    mvc.perform(get(BASE).param("ownerKey", "user:1"))
        .andExpect(jsonPath("$.conversations[0].conversationId").value("c-new"))
        .andExpect(jsonPath("$.count").value(1));
    // a second deletion finds nothing, and the listeners are still told
    mvc.perform(delete(BASE + "/c-old").param("ownerKey", "user:1"))
        .andExpect(status().isNotFound())
        .andExpect(jsonPath("$.error").value("not_found"))
        .andExpect(jsonPath("$.message").value(org.hamcrest.Matchers.containsString("c-old")));
    assertThat(told).hasSize(2);
  }

  @Test
  void anOwnerBoundTokenActsForItsOwnerAndOthersMustNameOne() throws Exception {
    Caller one = new Caller("one", Role.MEMBER, OwnerBinding.of("user:1"));
    Caller platform = new Caller("platform", Role.MEMBER, OwnerBinding.of("user:*"));

    mvc.perform(as(get(BASE), one))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.ownerKey").value("user:1"));
    mvc.perform(as(get(BASE).param("ownerKey", "user:2"), one)).andExpect(status().isForbidden());
    mvc.perform(as(delete(BASE + "/c-old").param("ownerKey", "user:2"), one))
        .andExpect(status().isForbidden());
    assertThat(log.turns(AgentId.of("a1"), OwnerKey.of("user:2"), "c-old")).isPresent();
    for (MockHttpServletRequestBuilder request :
        List.of(get(BASE), delete(BASE + "/c-old"), as(get(BASE), platform))) {
      mvc.perform(request)
          .andExpect(status().isBadRequest())
          .andExpect(jsonPath("$.field").value("ownerKey"));
    }
    mvc.perform(get(BASE).param("ownerKey", "  "))
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.field").value("ownerKey"));
    mvc.perform(get("/api/v1/agents/bad agent!/conversations").param("ownerKey", "user:1"))
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.field").value("agentId"));
    mvc.perform(as(delete(BASE + "/c-old"), one)).andExpect(status().isNoContent());
    assertThat(told).containsExactly("a1/user:1/c-old");
  }

  private static MockHttpServletRequestBuilder as(
      MockHttpServletRequestBuilder request, Caller caller) {
    return request.requestAttr(Caller.ATTRIBUTE, caller);
  }

  private void append(String id, String owner, String conversation, String time) {
    log.append(
        new Turn(
            id,
            AgentId.of("a1"),
            OwnerKey.of(owner),
            conversation,
            "said " + id,
            "ok",
            TriggerSource.API,
            Instant.parse(time)));
  }
}
