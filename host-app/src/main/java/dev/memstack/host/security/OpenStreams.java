package dev.memstack.host.security;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The answers that stay open after their handler returned (server-sent events: a streamed chat, an
 * MCP session's stream), per managed token, so that {@link #end} closes them all when the token is
 * revoked. An answer is registered when its request went asynchronous and forgotten when it
 * completes, times out or fails. Answers of configured tokens are not tracked: those cannot be
 * revoked. Thread-safe.
 */
public final class OpenStreams extends OncePerRequestFilter {

  private static final Logger log = LoggerFactory.getLogger(OpenStreams.class);

  private final Map<String, Set<AsyncContext>> streams = new ConcurrentHashMap<>();

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    chain.doFilter(request, response);
    if (request.isAsyncStarted()
        && request.getAttribute(Caller.ATTRIBUTE) instanceof Caller caller
        && caller.tokenId() != null) {
      track(caller.tokenId(), request.getAsyncContext());
    }
  }

  private void track(String tokenId, AsyncContext stream) {
    try {
      stream.addListener(
          new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
              forget(tokenId, stream);
            }

            @Override
            public void onTimeout(AsyncEvent event) {
              forget(tokenId, stream);
            }

            @Override
            public void onError(AsyncEvent event) {
              forget(tokenId, stream);
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
              // a new asynchronous cycle of the same request keeps it registered
            }
          });
    } catch (IllegalStateException e) {
      return; // already completed: nothing left open
    }
    streams.computeIfAbsent(tokenId, id -> ConcurrentHashMap.newKeySet()).add(stream);
  }

  private void forget(String tokenId, AsyncContext stream) {
    streams.computeIfPresent(
        tokenId,
        (id, open) -> {
          open.remove(stream);
          return open.isEmpty() ? null : open;
        });
  }

  /** How many answers of {@code tokenId} are open. */
  public int open(String tokenId) {
    Set<AsyncContext> open = streams.get(tokenId);
    return open == null ? 0 : open.size();
  }

  /** Closes every open answer of the managed token {@code tokenId}. */
  public void end(String tokenId) {
    Set<AsyncContext> open = streams.remove(tokenId);
    if (open == null) {
      return;
    }
    for (AsyncContext stream : open) {
      try {
        stream.complete();
      } catch (IllegalStateException e) {
        // completed meanwhile
      }
    }
    log.info("Closed {} open answer(s) of revoked API token {}", open.size(), tokenId);
  }
}
