package dev.memstack.host.plugin;

import dev.memstack.host.MemstackApplication;
import dev.memstack.support.DaemonThreads;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.pf4j.util.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;

/**
 * Expands the plugin zips on a thread of its own as soon as the environment is known, while the
 * application context is still being made, instead of on the main thread when the plugin manager is
 * made (~0.5 s for the three shipped zips on two cores). The expansion is PF4J's own ({@link
 * FileUtils#expandIfZip}: a zip newer than its folder is expanded again), and the plugin manager
 * waits for it ({@link #awaitExpansion}), so PF4J never sees a half-expanded folder and finds every
 * folder up to date. Registered by {@link MemstackApplication#main}; a host started another way
 * (tests) expands on the main thread as before. A failure here is only logged: PF4J then expands,
 * and reports, as it always did.
 */
public final class PluginZipsEarly
    implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

  private static final Logger log = LoggerFactory.getLogger(PluginZipsEarly.class);

  private static volatile CompletableFuture<Void> expansion =
      CompletableFuture.completedFuture(null);

  @Override
  public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
    String configured = event.getEnvironment().getProperty("memstack.plugins.dir");
    Path folder =
        PluginFolder.locate(
            configured == null || configured.isBlank() ? null : Path.of(configured),
            PluginFolder.jarOf(MemstackApplication.class));
    CompletableFuture<Void> started = new CompletableFuture<>();
    expansion = started;
    DaemonThreads.named("memstack-plugin-zips")
        .newThread(
            () -> {
              try {
                expand(folder);
              } catch (IOException | RuntimeException e) {
                log.debug(
                    "Early expansion of the plugin zips in {} failed: {}", folder, e.toString());
              } finally {
                started.complete(null);
              }
            })
        .start();
  }

  /** Waits until the zips expanded early are expanded (at once when none were). */
  static void awaitExpansion() {
    expansion.join();
  }

  private static void expand(Path folder) throws IOException {
    if (!Files.isDirectory(folder)) {
      return;
    }
    try (DirectoryStream<Path> zips = Files.newDirectoryStream(folder, "*.zip")) {
      for (Path zip : zips) {
        FileUtils.expandIfZip(zip);
      }
    }
  }
}
