package dev.memstack.host.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Refuses request bodies larger than {@code memstack.api.max-body-bytes} with 400: at once when
 * {@code Content-Length} says so, otherwise by counting the bytes while the body is read (chunked
 * bodies, or a wrong length), in which case reading fails with {@link BodyTooLargeException} and
 * the API's error handler answers. Either way the request reaches no provider.
 */
public final class BodySizeLimitFilter extends OncePerRequestFilter {

  private final long limit;
  private final JsonMapper json;

  public BodySizeLimitFilter(long limit, JsonMapper json) {
    this.limit = limit;
    this.json = json;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (request.getContentLengthLong() > limit) {
      response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
      response.setContentType(MediaType.APPLICATION_JSON_VALUE);
      response.setHeader("Connection", "close");
      response
          .getOutputStream()
          .write(
              json.writeValueAsBytes(
                  new ApiError(
                      ApiError.BAD_REQUEST, "body", BodyTooLargeException.message(limit))));
      return;
    }
    chain.doFilter(new LimitedRequest(request, limit), response);
  }

  /** A request whose body stream fails once more than {@code limit} bytes were read. */
  private static final class LimitedRequest extends HttpServletRequestWrapper {

    private final long limit;
    private ServletInputStream stream;

    LimitedRequest(HttpServletRequest request, long limit) {
      super(request);
      this.limit = limit;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new CountingStream(super.getInputStream(), limit);
      }
      return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      String encoding = getCharacterEncoding();
      Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
      return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }
  }

  private static final class CountingStream extends ServletInputStream {

    private final ServletInputStream in;
    private final long limit;
    private long count;

    CountingStream(ServletInputStream in, long limit) {
      this.in = in;
      this.limit = limit;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws IOException {
      count += n;
      if (count > limit) {
        throw new BodyTooLargeException(limit);
      }
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }

    @Override
    public int available() throws IOException {
      return in.available();
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
