package dev.memstack.host.api;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;
import tools.jackson.databind.JsonNode;

/**
 * Refuses a JSON request body that is not valid UTF-8 with a 400 naming {@code body}, before
 * Jackson reads it: Jackson's decoder takes an overlong form ({@code C0 AF}, read as {@code /}) as
 * the character it spells, so the strict check is made here, on the bytes (already bounded by
 * {@link BodySizeLimitFilter}).
 */
@ControllerAdvice
public class Utf8BodyAdvice extends RequestBodyAdviceAdapter {

  @Override
  public boolean supports(
      MethodParameter parameter,
      Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType) {
    return targetType instanceof Class<?> type && JsonNode.class.isAssignableFrom(type);
  }

  @Override
  public HttpInputMessage beforeBodyRead(
      HttpInputMessage input,
      MethodParameter parameter,
      Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType)
      throws IOException {
    byte[] bytes;
    try (InputStream body = input.getBody()) {
      bytes = body.readAllBytes();
    }
    int bad = firstInvalidByte(bytes);
    if (bad >= 0) {
      throw new BadRequestException(
          "body",
          "the body is not valid UTF-8: an overlong, truncated or stray byte sequence at byte "
              + bad);
    }
    HttpHeaders headers = input.getHeaders();
    return new HttpInputMessage() {
      @Override
      public InputStream getBody() {
        return new ByteArrayInputStream(bytes);
      }

      @Override
      public HttpHeaders getHeaders() {
        return headers;
      }
    };
  }

  /** The offset of the first byte that is not part of valid UTF-8, or -1. */
  static int firstInvalidByte(byte[] bytes) {
    boolean ascii = true;
    for (int i = 0; i < bytes.length && ascii; i++) {
      ascii = bytes[i] >= 0;
    }
    if (ascii) {
      return -1;
    }
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(Math.max(16, bytes.length));
    CoderResult result = decoder.decode(in, out, true);
    if (result.isError()) {
      return in.position();
    }
    result = decoder.flush(out);
    return result.isError() ? in.position() : -1;
  }
}
