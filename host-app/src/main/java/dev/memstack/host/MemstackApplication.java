package dev.memstack.host;

import dev.memstack.host.plugin.PluginZipsEarly;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The memstack host: loads the provider plugins, stacks their instances and serves the REST API.
 * Listens on {@code 127.0.0.1:8080} unless {@code server.address} / {@code server.port} say
 * otherwise.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class MemstackApplication {

  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(MemstackApplication.class);
    // the plugin zips expand while the context is made (PluginZipsEarly)
    application.addListeners(new PluginZipsEarly());
    application.run(args);
  }
}
