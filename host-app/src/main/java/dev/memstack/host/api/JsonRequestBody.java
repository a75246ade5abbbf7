package dev.memstack.host.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The documented body of a route that reads its JSON body as a tree (so that it can answer a 400
 * naming the field at fault): the schema of {@link #value()}, one of {@link ApiRequests}, under
 * every media type the route consumes ({@code application/json} when it names none). {@link
 * OpenApiConfiguration} writes it into the OpenAPI document.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface JsonRequestBody {

  /** The record that describes the body. */
  Class<? extends Record> value();

  /** Whether the route needs a body. */
  boolean required() default true;
}
