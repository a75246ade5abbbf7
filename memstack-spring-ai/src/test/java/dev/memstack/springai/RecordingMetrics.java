package dev.memstack.springai;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every record, as {@code "context:ok"}, for assertions. */
final class RecordingMetrics implements MemstackMetrics {

  private final List<String> records = new CopyOnWriteArrayList<>();

  @Override
  public void record(Operation operation, Outcome outcome) {
    records.add(operation.tag() + ":" + outcome.tag());
  }

  List<String> records() {
    return List.copyOf(records);
  }
}
