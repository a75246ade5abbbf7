package dev.memstack.host.mcp;

import dev.memstack.host.mcp.JsonRpcCheck.Ignore;
import dev.memstack.host.mcp.JsonRpcCheck.Pass;
import dev.memstack.host.mcp.JsonRpcCheck.Refuse;
import dev.memstack.host.mcp.JsonRpcCheck.Verdict;
import dev.memstack.host.security.Caller;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Stands in front of the MCP transport at {@code /mcp}, behind the bearer token filter: a session
 * is used only by the token that opened it (any other gets 404, as for a session that does not
 * exist, on POST, the GET stream and DELETE); a posted message is checked first ({@link
 * JsonRpcCheck}) so a malformed one gets JSON-RPC's own error at once; and every error the
 * transport answers is rewritten into a JSON-RPC error object with a short message, never a
 * serialized exception ({@link McpErrorResponse}).
 */
final class McpGuardFilter extends OncePerRequestFilter {

  static final String SESSION_HEADER = "Mcp-Session-Id";

  private static final Logger log = LoggerFactory.getLogger(McpGuardFilter.class);

  private final McpSessionOwners sessions;
  private final JsonRpcCheck check;
  private final McpErrors errors;

  /** Reads the JSON-RPC bodies and writes its error answers with {@code json}. */
  McpGuardFilter(McpSessionOwners sessions, JsonMapper json) {
    this.sessions = sessions;
    this.check = new JsonRpcCheck(json);
    this.errors = new McpErrors(json);
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Caller caller = (Caller) request.getAttribute(Caller.ATTRIBUTE);
    String session = request.getHeader(SESSION_HEADER);
    if (session != null && !sessions.mayUse(session, caller)) {
      errors.write(response, 404, null, JsonRpcCheck.INVALID_REQUEST, "session not found");
      return;
    }
    HttpServletRequest forward = request;
    boolean initialize = false;
    if ("POST".equals(request.getMethod())) {
      byte[] body = request.getInputStream().readAllBytes();
      Verdict verdict = check.check(body);
      if (verdict instanceof Refuse refuse) {
        errors.write(response, refuse.httpStatus(), refuse.id(), refuse.code(), refuse.message());
        return;
      }
      if (verdict instanceof Ignore) {
        response.setStatus(HttpServletResponse.SC_ACCEPTED);
        return;
      }
      initialize = verdict instanceof Pass pass && pass.initialize() && session == null;
      forward = new CachedBodyRequest(request, body);
    }
    McpErrorResponse guarded =
        new McpErrorResponse(response, initialize ? id -> sessions.opened(id, caller) : null);
    try {
      chain.doFilter(forward, guarded);
    } catch (IOException | ServletException | RuntimeException e) {
      if (response.isCommitted()) {
        throw e;
      }
      log.warn("MCP request failed: {}", e.toString(), e);
      guarded.failed();
    }
    if (!request.isAsyncStarted()) {
      guarded.finish(errors);
      if ("DELETE".equals(request.getMethod()) && session != null && guarded.status() < 400) {
        sessions.closed(session);
      }
    }
  }
}
