package dev.memstack.host.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * A {@code @SpringBootTest} of the whole host on a random port with the kit's deterministic
 * embedder ({@link HashingEmbedderOverride}) in place of the bundled model. The test class gives
 * the plugin folder, data folder and properties through a {@link HostFolder} and {@code
 * DynamicPropertySource}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import({HashingEmbedderOverride.class, HostClientConfiguration.class})
@ContextCustomizerFactories(HostFolderProperties.class)
public @interface HostTest {}
