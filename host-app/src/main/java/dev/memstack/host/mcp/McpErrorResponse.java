package dev.memstack.host.mcp;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The MCP transport's response, held back once it turns out to be an error (status 400 or more, or
 * {@code sendError}): what the transport writes then goes to a buffer, and {@link #finish} writes a
 * clean JSON-RPC error object instead. Successful answers, streams included, pass through
 * untouched. The session id of a new session is reported to {@code onSession} as the transport sets
 * its header.
 */
final class McpErrorResponse extends HttpServletResponseWrapper {

  private static final String SESSION_HEADER = McpGuardFilter.SESSION_HEADER;

  private final Consumer<String> onSession;
  private final ByteArrayOutputStream held = new ByteArrayOutputStream();
  private int status = HttpServletResponse.SC_OK;
  private boolean holding;
  private String reason;
  private ServletOutputStream stream;
  private PrintWriter writer;

  McpErrorResponse(HttpServletResponse response, Consumer<String> onSession) {
    super(response);
    this.onSession = onSession;
  }

  int status() {
    return status;
  }

  /** The request failed with an exception before anything was sent. */
  void failed() {
    status = HttpServletResponse.SC_INTERNAL_SERVER_ERROR;
    holding = true;
    held.reset();
  }

  /** Writes the held error, if any, as a JSON-RPC error object. */
  void finish(McpErrors errors) throws IOException {
    if (!holding) {
      return;
    }
    if (writer != null) {
      writer.flush();
    }
    HttpServletResponse response = (HttpServletResponse) getResponse();
    response.resetBuffer();
    errors.rewrite(response, status, held.toByteArray(), reason);
  }

  @Override
  public void setStatus(int sc) {
    status = sc;
    if (sc >= 400) {
      holding = true;
    } else {
      super.setStatus(sc);
    }
  }

  @Override
  public void sendError(int sc, String msg) {
    status = sc;
    reason = msg;
    holding = true;
  }

  @Override
  public void sendError(int sc) {
    sendError(sc, null);
  }

  @Override
  public int getStatus() {
    return status;
  }

  @Override
  public void setHeader(String name, String value) {
    session(name, value);
    if (!holding) {
      super.setHeader(name, value);
    }
  }

  @Override
  public void addHeader(String name, String value) {
    session(name, value);
    if (!holding) {
      super.addHeader(name, value);
    }
  }

  private void session(String name, String value) {
    if (onSession != null && SESSION_HEADER.equalsIgnoreCase(name) && value != null) {
      onSession.accept(value);
    }
  }

  @Override
  public void setContentLength(int len) {
    if (!holding) {
      super.setContentLength(len);
    }
  }

  @Override
  public void setContentLengthLong(long len) {
    if (!holding) {
      super.setContentLengthLong(len);
    }
  }

  @Override
  public void flushBuffer() throws IOException {
    if (!holding) {
      super.flushBuffer();
    }
  }

  @Override
  public boolean isCommitted() {
    return !holding && super.isCommitted();
  }

  @Override
  public ServletOutputStream getOutputStream() throws IOException {
    if (!holding) {
      return super.getOutputStream();
    }
    if (stream == null) {
      stream = new HeldStream(held);
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() throws IOException {
    if (!holding) {
      return super.getWriter();
    }
    if (writer == null) {
      writer = new PrintWriter(new OutputStreamWriter(held, StandardCharsets.UTF_8));
    }
    return writer;
  }

  private static final class HeldStream extends ServletOutputStream {
    private final ByteArrayOutputStream target;

    HeldStream(ByteArrayOutputStream target) {
      this.target = target;
    }

    @Override
    public void write(int b) {
      target.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      target.write(b, off, len);
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setWriteListener(WriteListener listener) {
      throw new UnsupportedOperationException("a held error answer is written at once");
    }
  }
}
