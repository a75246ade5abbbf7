package dev.memstack.host.api;

import dev.memstack.support.Require;
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
import java.util.List;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import tools.jackson.databind.json.JsonMapper;

/**
 * Refuses request bodies larger than {@code memstack.api.max-body-bytes} with 400: at once when
 * {@code Content-Length} says so, otherwise by counting the bytes while the body is read (chunked
 * bodies, or a wrong length), in which case reading fails with {@link BodyTooLargeException} and
 * the API's error handler answers. Either way the request reaches no provider. A few routes have a
 * limit of their own ({@link RouteLimit}, e.g. the snapshot import with {@code
 * memstack.api.max-import-bytes}), matched against the raw request path as the router matches it.
 * Multipart bodies are parsed by the servlet container past this filter's counting stream, so their
 * size while streaming is capped by the multipart limits (see {@code WorkspaceApiConfiguration}); a
 * declared {@code Content-Length} is checked here as for any body.
 */
public final class BodySizeLimitFilter extends ApiErrorFilter {

  /**
   * A limit for one method and path pattern ({@code /api/v1/agents/{agentId}/...}).
   *
   * @param method the HTTP method
   * @param pattern the route, as in a {@code @RequestMapping}
   * @param bytes the largest body accepted
   * @param key the configuration key of the limit, named in the error
   */
  public record RouteLimit(HttpMethod method, String pattern, long bytes, String key) {

    public RouteLimit {
      Require.nonNull("method pattern key", method, pattern, key);
      if (bytes < 1) {
        throw new IllegalArgumentException(key + " must be positive, got: " + bytes);
      }
    }
  }

  private record CompiledLimit(HttpMethod method, PathPattern pattern, long bytes, String key) {}

  private final long limit;
  private final List<CompiledLimit> routes;

  public BodySizeLimitFilter(long limit, JsonMapper json) {
    this(limit, List.of(), json);
  }

  public BodySizeLimitFilter(long limit, List<RouteLimit> routes, JsonMapper json) {
    super(json);
    this.limit = limit;
    this.routes =
        routes.stream()
            .map(
                r ->
                    new CompiledLimit(
                        r.method(),
                        PathPatternParser.defaultInstance.parse(r.pattern()),
                        r.bytes(),
                        r.key()))
            .toList();
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    CompiledLimit route = routeOf(request);
    long max = route == null ? limit : route.bytes();
    String key = route == null ? BodyTooLargeException.DEFAULT_KEY : route.key();
    if (request.getContentLengthLong() > max) {
      response.setHeader("Connection", "close");
      answer(
          response,
          HttpServletResponse.SC_BAD_REQUEST,
          new ApiError(ApiError.BAD_REQUEST, "body", BodyTooLargeException.message(max, key)));
      return;
    }
    chain.doFilter(new LimitedRequest(request, max, key), response);
  }

  /** The route limit for this request, or {@code null}; the raw path, as the router sees it. */
  private CompiledLimit routeOf(HttpServletRequest request) {
    if (routes.isEmpty()) {
      return null;
    }
    String path = request.getRequestURI();
    String context = request.getContextPath();
    if (context != null && !context.isEmpty() && path.startsWith(context)) {
      path = path.substring(context.length());
    }
    PathContainer container = PathContainer.parsePath(path);
    for (CompiledLimit route : routes) {
      if (route.method().matches(request.getMethod()) && route.pattern().matches(container)) {
        return route;
      }
    }
    return null;
  }

  /** A request whose body stream fails once more than {@code limit} bytes were read. */
  private static final class LimitedRequest extends HttpServletRequestWrapper {

    private final long limit;
    private final String key;
    private ServletInputStream stream;

    LimitedRequest(HttpServletRequest request, long limit, String key) {
      super(request);
      this.limit = limit;
      this.key = key;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new CountingStream(super.getInputStream(), limit, key);
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
    private final String key;
    private long count;

    CountingStream(ServletInputStream in, long limit, String key) {
      this.in = in;
      this.limit = limit;
      this.key = key;
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
        throw new BodyTooLargeException(limit, key);
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
