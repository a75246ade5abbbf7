package dev.memstack.outbox;

import java.util.ArrayDeque;
import java.util.Iterator;

/** The lanes' queue helper. */
final class Queues {

  private Queues() {}

  /** Removes {@code item} (by identity), looking at the head first; whether it was there. */
  static <T> boolean removeFirst(ArrayDeque<T> deque, T item) {
    if (deque.peekFirst() == item) {
      deque.pollFirst();
      return true;
    }
    for (Iterator<T> it = deque.iterator(); it.hasNext(); ) {
      if (it.next() == item) {
        it.remove();
        return true;
      }
    }
    return false;
  }
}
