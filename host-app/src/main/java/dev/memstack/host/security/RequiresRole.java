package dev.memstack.host.security;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The least role a REST route needs. Every handler method under {@code /api/**} must carry it (on
 * the method, or on its controller class for all its methods): a route without one is refused with
 * {@code 403} for every token, so a forgotten rule fails closed. Owner checks that need the parsed
 * request come on top, through {@link AccessPolicy}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RequiresRole {

  /** The least role. */
  Role value();
}
