package dev.memstack.host.api;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the REST API ({@code memstack.api.*}).
 *
 * @param maxBodyBytes the largest request body accepted; a larger one is refused with 400 before it
 *     is read to the end, whether or not it declares a {@code Content-Length}
 * @param healthTimeout the longest a provider health check may take before the provider is reported
 *     {@code DOWN}
 * @param maxImportBytes the largest request body of the workspace snapshot import routes ({@code
 *     .../workspace/memory/import} and {@code .../import/preview}), which take a ZIP of up to 16
 *     MiB; it also caps multipart uploads (it replaces {@code
 *     spring.servlet.multipart.max-file-size} and {@code max-request-size}, and multipart bodies
 *     are parsed only by the routes that read them)
 * @param workspaceProvider the id of the provider instance that serves the {@code .../workspace/**}
 *     routes (it must claim the capability WORKSPACE_FILES); unset, the first running provider in
 *     stack order that claims it
 * @param memoryJobsProvider the id of the provider instance that serves the memory-job routes
 *     ({@code .../memory/summarize}, {@code emergence}, {@code dreaming/status}; it must claim the
 *     capability MEMORY_JOBS); unset, the first running provider in stack order that claims it
 */
@ConfigurationProperties("memstack.api")
public record ApiProperties(
    @DefaultValue("1MB") DataSize maxBodyBytes,
    @DefaultValue("2s") Duration healthTimeout,
    @DefaultValue("17MB") DataSize maxImportBytes,
    String workspaceProvider,
    String memoryJobsProvider) {

  public ApiProperties {
    maxBodyBytes = maxBodyBytes == null ? DataSize.ofMegabytes(1) : maxBodyBytes;
    healthTimeout = healthTimeout == null ? Duration.ofSeconds(2) : healthTimeout;
    maxImportBytes = maxImportBytes == null ? DataSize.ofMegabytes(17) : maxImportBytes;
    workspaceProvider = unsetIfBlank(workspaceProvider);
    memoryJobsProvider = unsetIfBlank(memoryJobsProvider);
    if (maxBodyBytes.toBytes() < 1) {
      throw new IllegalArgumentException(
          "memstack.api.max-body-bytes must be positive, got: " + maxBodyBytes);
    }
    if (maxImportBytes.toBytes() < 1) {
      throw new IllegalArgumentException(
          "memstack.api.max-import-bytes must be positive, got: " + maxImportBytes);
    }
    instanceId("memstack.api.workspace-provider", workspaceProvider);
    instanceId("memstack.api.memory-jobs-provider", memoryJobsProvider);
    if (healthTimeout.isNegative() || healthTimeout.isZero()) {
      throw new IllegalArgumentException(
          "memstack.api.health-timeout must be positive, got: " + healthTimeout);
    }
  }

  private static String unsetIfBlank(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  /** Refuses a set value that is no provider instance id. */
  private static void instanceId(String key, String value) {
    if (value != null && !value.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException(
          key
              + " must be a provider instance id (1-64 characters of A-Z a-z 0-9 _ -), got: '"
              + value
              + "'");
    }
  }
}
