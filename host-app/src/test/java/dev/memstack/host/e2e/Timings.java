package dev.memstack.host.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Durations an acceptance test measured, printed to its output for the record. */
final class Timings {

  private final String test;
  private final List<String> lines = new ArrayList<>();

  Timings(String test) {
    this.test = test;
  }

  void mark(String what, Duration took) {
    lines.add(what + ": " + took.toMillis() + " ms");
  }

  void print() {
    System.out.println("[e2e timings] " + test + " — " + String.join("; ", lines));
  }
}
