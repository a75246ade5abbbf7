package dev.memstack.host.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A REST controller of the host API: its routes lie under {@link #value()} and answer JSON
 * ({@code @RestController} with {@code @RequestMapping(path = value, produces =
 * "application/json")}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@RestController
@RequestMapping(produces = MediaType.APPLICATION_JSON_VALUE)
public @interface JsonRoutes {

  /** The base path of the routes. */
  @AliasFor(annotation = RequestMapping.class, attribute = "path")
  String[] value() default {};
}
