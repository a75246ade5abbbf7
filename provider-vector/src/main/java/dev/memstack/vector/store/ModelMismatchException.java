package dev.memstack.vector.store;

/**
 * A store holds vectors of another embedding model (or dimension) than the host's embedder. The
 * message says which models and how to re-embed.
 */
public final class ModelMismatchException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String storedModel;
  private final int storedDimension;

  public ModelMismatchException(
      String where,
      String storedModel,
      int storedDimension,
      String currentModel,
      int currentDimension,
      String reembedKey) {
    super(
        where
            + " holds vectors of embedding model '"
            + storedModel
            + "' ("
            + storedDimension
            + " dimensions) but the host's embedder is '"
            + currentModel
            + "' ("
            + currentDimension
            + " dimensions); vectors of different models must not be mixed. Either configure model '"
            + storedModel
            + "' again, or set "
            + reembedKey
            + "=true once to rebuild every vector from the stored texts with '"
            + currentModel
            + "' at start (remove the setting afterwards)");
    this.storedModel = storedModel;
    this.storedDimension = storedDimension;
  }

  public String storedModel() {
    return storedModel;
  }

  public int storedDimension() {
    return storedDimension;
  }
}
