package dev.memstack.host.model;

/**
 * Prepares the default embedding model (e5-small-v2) in a folder, as {@code
 * memstack.models.onnx.prepared-dir} reads it: the launcher {@code dist/memstack} runs it once
 * beside its class-data-sharing archive, so that no start after it spends ~0.5 s unpacking and
 * optimising the model. A host configured with another bundled model prepares that one on its own
 * first load.
 *
 * <pre>java -cp memstack.jar dev.memstack.host.model.PrepareModel FOLDER</pre>
 */
public final class PrepareModel {

  private PrepareModel() {}

  public static void main(String[] args) {
    if (args.length != 1 || args[0].isBlank()) {
      System.err.println("usage: PrepareModel FOLDER");
      System.exit(2);
    }
    try (OnnxEmbedder embedder =
        new OnnxEmbedder(
            BundledModel.E5_SMALL_V2, ModelProperties.Onnx.defaults().withPreparedDir(args[0]))) {
      embedder.load();
    }
  }
}
