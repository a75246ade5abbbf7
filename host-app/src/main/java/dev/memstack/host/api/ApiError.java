package dev.memstack.host.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Objects;

/**
 * The JSON body of every error answer: {@code {"error":"bad_request","field":"ownerKey",
 * "message":"..."}}. {@code field} names the request field at fault and is left out when no single
 * field is.
 *
 * @param error a stable machine-readable code ({@code bad_request}, {@code unauthorized}, {@code
 *     forbidden}, {@code not_found}, {@code method_not_allowed}, ...), never {@code null}
 * @param field the request field at fault, or {@code null}
 * @param message what is wrong, for people; never {@code null}, never a secret
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ApiError(
    @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "bad_request") String error,
    @Schema(example = "ownerKey") String field,
    @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String message) {

  public static final String BAD_REQUEST = "bad_request";
  public static final String UNAUTHORIZED = "unauthorized";
  public static final String NOT_FOUND = "not_found";
  public static final String METHOD_NOT_ALLOWED = "method_not_allowed";
  public static final String UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type";
  public static final String NOT_ACCEPTABLE = "not_acceptable";
  public static final String CONFLICT = "conflict";
  public static final String FORBIDDEN = "forbidden";
  public static final String UNAVAILABLE = "unavailable";
  public static final String PLUGIN_FAILED = "plugin_failed";
  public static final String PROVIDER_FAILED = "provider_failed";
  public static final String INTERNAL = "internal";

  public ApiError {
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(message, "message");
  }
}
