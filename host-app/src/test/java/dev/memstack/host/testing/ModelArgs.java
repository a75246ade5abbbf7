package dev.memstack.host.testing;

import dev.memstack.host.model.BundledModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The bundled models a benchmark's command line names, for the benchmarks' {@code main}. */
public final class ModelArgs {

  private ModelArgs() {}

  /** The models named by {@code args[from..]}, or every bundled model when none is named. */
  public static List<BundledModel> from(String[] args, int from) {
    List<BundledModel> models = new ArrayList<>();
    for (int i = from; i < args.length; i++) {
      String id = args[i];
      models.add(
          Arrays.stream(BundledModel.values())
              .filter(m -> m.id().equals(id))
              .findFirst()
              .orElseThrow(() -> new IllegalArgumentException("unknown model " + id)));
    }
    if (models.isEmpty()) {
      models.addAll(List.of(BundledModel.values()));
    }
    return models;
  }
}
