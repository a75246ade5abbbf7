package dev.memstack.host.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Requests sent byte for byte over a socket, for what an HTTP client refuses to send (raw {@code \}
 * or {@code <} in a path, {@code CONNECT}, a negative {@code Content-Length}, oversized headers):
 * the request line and headers go out as ISO-8859-1 bytes with {@code Connection: close}, and the
 * whole answer is read, a chunked body joined.
 */
public final class RawHttp {

  private RawHttp() {}

  /** One answer: its status, header block, body and everything as read. */
  public record Answer(int status, String headers, String body, String text) {

    /** The {@code Content-Type} header's value, or an empty string. */
    public String contentType() {
      for (String line : headers.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-type")) {
          return line.substring(colon + 1).trim();
        }
      }
      return "";
    }
  }

  /**
   * Sends {@code requestLine}, a {@code Host} header, {@code headers} and {@code Connection: close}
   * to the host on {@code port}, then {@code body} (none when null), and reads the whole answer.
   */
  public static Answer send(int port, String requestLine, byte[] body, String... headers)
      throws IOException {
    StringBuilder request = new StringBuilder(requestLine).append("\r\n");
    request.append("Host: 127.0.0.1:").append(port).append("\r\n");
    for (String header : headers) {
      request.append(header).append("\r\n");
    }
    request.append("Connection: close\r\n\r\n");
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      if (body != null) {
        out.write(body);
      }
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      in.transferTo(all);
      String text = all.toString(StandardCharsets.UTF_8);
      int split = text.indexOf("\r\n\r\n");
      String head = split < 0 ? text : text.substring(0, split);
      String rest = split < 0 ? "" : dechunk(head, text.substring(split + 4));
      int status = Integer.parseInt(head.substring(9, 12));
      return new Answer(status, head, rest, text);
    }
  }

  /** A request without a body. */
  public static Answer send(int port, String requestLine, String... headers) throws IOException {
    return send(port, requestLine, null, headers);
  }

  private static String dechunk(String head, String body) {
    if (!head.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
      return body;
    }
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (at < body.length()) {
      int line = body.indexOf("\r\n", at);
      int size = Integer.parseInt(body.substring(at, line).trim(), 16);
      if (size == 0) {
        break;
      }
      out.append(body, line + 2, line + 2 + size);
      at = line + 2 + size + 2;
    }
    return out.toString();
  }
}
