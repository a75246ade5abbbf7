package dev.memstack.host.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.host.stack.StackConfiguration;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OwnerEraser;
import dev.memstack.outbox.TurnOutbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;

class OutboxConfigurationTest {

  @TempDir Path data;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withUserConfiguration(StackConfiguration.class, OutboxConfiguration.class)
        .withBean(StackMembers.class, TestMembers::new)
        .withPropertyValues("memstack.data-dir=" + data);
  }

  @Test
  void theJournalIsTheDefaultOutboxAndLivesUnderTheDataDir() {
    runner()
        .withPropertyValues("memstack.outbox.segment-size=1MB", "memstack.outbox.degraded-lag=30s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(TurnOutbox.class)).isInstanceOf(OutboxEngine.class);
              assertThat(context.getBean(OwnerEraser.class)).isInstanceOf(OutboxEngine.class);
              assertThat(context).hasSingleBean(MemoryStack.class);
              assertThat(context).hasBean("outbox");
              OutboxProperties properties = context.getBean(OutboxProperties.class);
              assertThat(properties.segmentSize()).isEqualTo(DataSize.ofMegabytes(1));
              assertThat(properties.degradedLag()).isEqualTo(Duration.ofSeconds(30));
              assertThat(properties.fsync()).isTrue();
              assertThat(data.resolve("outbox/cursors")).isDirectory();
              assertThat(Files.list(data.resolve("outbox")).map(p -> p.getFileName().toString()))
                  .anyMatch(name -> name.endsWith(".seg"));
            });
  }

  @Test
  void typeMemoryRunsTheSameEngineOverTheMemoryJournal() {
    runner()
        .withPropertyValues("memstack.outbox.type=memory")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(TurnOutbox.class)).isInstanceOf(OutboxEngine.class);
              assertThat(context.getBean(OwnerEraser.class))
                  .isSameAs(context.getBean(TurnOutbox.class));
              assertThat(((OutboxEngine) context.getBean(TurnOutbox.class)).journalStats().type())
                  .isEqualTo("memory");
              assertThat(data.resolve("outbox")).doesNotExist();
            });
  }

  @Test
  void anUnknownTypeStopsTheStartNamingTheKey() {
    runner()
        .withPropertyValues("memstack.outbox.type=disk")
        .run(
            context ->
                assertThat(context).getFailure().hasStackTraceContaining("memstack.outbox.type"));
  }

  @Test
  void aTooSmallSegmentStopsTheStartNamingTheKey() {
    runner()
        .withPropertyValues("memstack.outbox.segment-size=1KB")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("memstack.outbox.segment-size must be at least 4KB"));
  }
}
