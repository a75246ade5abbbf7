package dev.memstack.host.api;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The container's error report as the API's JSON ({@link ApiError}) instead of Tomcat's HTML page:
 * what Tomcat itself refuses before any filter or controller runs (an encoded {@code /}, {@code \}
 * or NUL in the path, a bad {@code Content-Length}, headers or a URL over the limit, {@code
 * CONNECT}...) and any error nothing else wrote a body for. No stack trace, no server version.
 */
public class JsonErrorReportValve extends ErrorReportValve {

  private static final Logger log = LoggerFactory.getLogger(JsonErrorReportValve.class);

  /** Tomcat creates the valve by its class name, so it cannot be handed the host's mapper. */
  private static final JsonMapper JSON = JsonMapper.builder().build();

  public JsonErrorReportValve() {
    setShowReport(false);
    setShowServerInfo(false);
  }

  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    if (throwable != null) {
      log.warn("Request failed in the container: {}", throwable.toString());
    }
    String message = ErrorCodes.shortLine(response.getMessage());
    ApiError body =
        new ApiError(
            ErrorCodes.code(status), null, message == null ? ErrorCodes.message(status) : message);
    try {
      response.setContentType("application/json");
      response.setCharacterEncoding(StandardCharsets.UTF_8.name());
      Writer writer = response.getReporter();
      if (writer != null) {
        writer.write(JSON.writeValueAsString(body));
        response.finishResponse();
      }
    } catch (IOException | IllegalStateException e) {
      // the client is gone or the response cannot take a body: nothing more to do
    }
  }
}
