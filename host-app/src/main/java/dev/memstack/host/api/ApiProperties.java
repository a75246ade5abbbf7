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
 */
@ConfigurationProperties("memstack.api")
public record ApiProperties(
    @DefaultValue("1MB") DataSize maxBodyBytes, @DefaultValue("2s") Duration healthTimeout) {

  public ApiProperties {
    maxBodyBytes = maxBodyBytes == null ? DataSize.ofMegabytes(1) : maxBodyBytes;
    healthTimeout = healthTimeout == null ? Duration.ofSeconds(2) : healthTimeout;
    if (maxBodyBytes.toBytes() < 1) {
      throw new IllegalArgumentException(
          "memstack.api.max-body-bytes must be positive, got: " + maxBodyBytes);
    }
    if (healthTimeout.isNegative() || healthTimeout.isZero()) {
      throw new IllegalArgumentException(
          "memstack.api.health-timeout must be positive, got: " + healthTimeout);
    }
  }
}
