package dev.memstack.mem0;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Collects a response body up to a byte limit. A body that declares a larger {@code
 * Content-Length}, or grows past the limit while streaming, is cancelled (the connection is
 * dropped) and fails with {@link TooLargeException}, so a huge answer is never buffered whole.
 */
final class CappedBodySubscriber implements HttpResponse.BodySubscriber<byte[]> {

  /** A body larger than the limit. */
  static final class TooLargeException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient HttpResponse.ResponseInfo info;

    TooLargeException(String message, HttpResponse.ResponseInfo info) {
      super(message);
      this.info = info;
    }

    HttpResponse.ResponseInfo info() {
      return info;
    }
  }

  private final HttpResponse.ResponseInfo info;
  private final int limit;
  private final CompletableFuture<byte[]> body = new CompletableFuture<>();
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
  private Flow.Subscription subscription;
  private long received;

  CappedBodySubscriber(HttpResponse.ResponseInfo info, int limit) {
    this.info = info;
    this.limit = limit;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    long declared = info.headers().firstValueAsLong("content-length").orElse(-1);
    if (declared > limit) {
      subscription.cancel();
      body.completeExceptionally(
          new TooLargeException(
              "the answer declares " + declared + " bytes, more than the limit of " + limit, info));
      return;
    }
    subscription.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (body.isDone()) {
      return;
    }
    for (ByteBuffer item : items) {
      received += item.remaining();
      if (received > limit) {
        subscription.cancel();
        body.completeExceptionally(
            new TooLargeException(
                "the answer is larger than the limit of " + limit + " bytes", info));
        return;
      }
      byte[] chunk = new byte[item.remaining()];
      item.get(chunk);
      buffer.write(chunk, 0, chunk.length);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    body.completeExceptionally(throwable);
  }

  @Override
  public void onComplete() {
    body.complete(buffer.toByteArray());
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return body;
  }
}
