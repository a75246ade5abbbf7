package dev.memstack.host.model;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.memstack.spi.Embedder;
import dev.memstack.support.DaemonThreads;
import dev.memstack.support.Digests;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link Embedder} that runs a {@link BundledModel} in process with onnxruntime and the Hugging
 * Face tokenizer (native code shipped in the jars; nothing is downloaded). Vectors are pooled as
 * the model expects and L2-normalised, so the dot product of two vectors is their cosine; they
 * match LangChain4j's reference implementation for the same jars. Texts longer than {@code
 * memstack.models.onnx.max-tokens} are cut. All texts of a call are tokenised at once, sorted by
 * length and run in batches of {@code memstack.models.onnx.batch-size} texts of similar length (at
 * most {@value #MAX_BATCH_TOKENS} padded tokens). Caveat: the bundled models are dynamically
 * quantised with one activation scale per batch, so only batches of one text (the default) give a
 * vector that depends on the text alone. The model loads on first use or on {@link #load()}; the
 * instance is thread-safe, and {@link #close()} frees the native session. The native libraries are
 * unpacked from their jars on first load: onnxruntime's to {@code java.io.tmpdir}, the tokenizer's
 * to {@code ~/.djl.ai} (set {@code DJL_CACHE_DIR} where the home folder is read-only).
 */
public final class OnnxEmbedder implements Embedder, AutoCloseable {

  /** Caps padded tokens per batch, which bounds the attention memory of long texts. */
  static final int MAX_BATCH_TOKENS = 8192;

  private static final Logger log = LoggerFactory.getLogger(OnnxEmbedder.class);

  private final BundledModel model;
  private final ModelProperties.Onnx settings;
  private final ClassLoader resources;
  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private volatile Loaded loaded;
  private boolean closed;
  private final int parallelism;
  private volatile ExecutorService helpers;

  /**
   * An embedder for the model; the model's resources must be on the class path.
   *
   * @throws IllegalStateException if the jar carrying the model is missing
   */
  public OnnxEmbedder(BundledModel model, ModelProperties.Onnx settings) {
    this.model = Objects.requireNonNull(model, "model");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.parallelism = settings.effectiveParallelism();
    this.resources = OnnxEmbedder.class.getClassLoader();
    for (String resource : List.of(model.modelResource(), model.tokenizerResource())) {
      if (resources.getResource(resource) == null) {
        throw new IllegalStateException(
            "embedding model "
                + model.id()
                + ": resource "
                + resource
                + " is not on the class path (it ships in dev.langchain4j:"
                + model.artifactId()
                + ")");
      }
    }
  }

  @Override
  public String modelId() {
    return model.id();
  }

  @Override
  public int dimension() {
    return model.dimension();
  }

  public BundledModel model() {
    return model;
  }

  /** Whether the model is in memory. */
  public boolean loaded() {
    return loaded != null;
  }

  /**
   * Loads the model now if it is not loaded yet.
   *
   * @throws IllegalStateException if the model cannot be loaded or the embedder is closed
   */
  public void load() {
    loadedModel();
  }

  @Override
  public List<float[]> embed(List<String> texts, Kind kind) {
    Objects.requireNonNull(texts, "texts");
    Objects.requireNonNull(kind, "kind");
    for (int i = 0; i < texts.size(); i++) {
      if (texts.get(i) == null) {
        throw new IllegalArgumentException("texts[" + i + "] is null");
      }
    }
    if (texts.isEmpty()) {
      return List.of();
    }
    String prefix = prefix(kind);
    String[] inputs = texts.stream().map(text -> prefix + text).toArray(String[]::new);
    Loaded m = loadedModel();
    lock.readLock().lock();
    try {
      if (closed) {
        throw new IllegalStateException("embedding model " + model.id() + " is closed");
      }
      Encoding[] encodings = m.tokenizer().batchEncode(inputs);
      float[][] vectors = new float[inputs.length][];
      List<int[]> batches = batches(encodings);
      if (batches.size() == 1 || parallelism == 1) {
        for (int[] batch : batches) {
          place(vectors, batch, run(m, encodings, batch));
        }
      } else {
        runInParallel(m, encodings, batches, vectors);
      }
      return List.of(vectors);
    } catch (OrtException | RuntimeException e) {
      if (e instanceof IllegalStateException state) {
        throw state;
      }
      throw new IllegalStateException(
          "embedding model " + model.id() + " failed: " + e.getMessage(), e);
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void close() {
    lock.writeLock().lock();
    try {
      closed = true;
      ExecutorService pool = helpers;
      if (pool != null) {
        pool.shutdownNow();
      }
      Loaded m = loaded;
      loaded = null;
      if (m != null) {
        m.close();
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public String toString() {
    return "OnnxEmbedder[" + model.id() + ", dimension " + model.dimension() + "]";
  }

  private String prefix(Kind kind) {
    if (kind == Kind.PASSAGE) {
      return model.passagePrefix();
    }
    return model.queryPrefixOptional() && !settings.queryInstruction() ? "" : model.queryPrefix();
  }

  private static void place(float[][] vectors, int[] batch, float[][] batchVectors) {
    for (int row = 0; row < batch.length; row++) {
      vectors[batch[row]] = batchVectors[row];
    }
  }

  /**
   * Runs the batches on the calling thread and up to {@code parallelism - 1} helper threads at
   * once. Every thread takes the next batch not yet taken, so the caller never waits for a helper
   * that is busy with another call: it does the work itself and only waits for batches already
   * running.
   */
  private void runInParallel(Loaded m, Encoding[] encodings, List<int[]> batches, float[][] vectors)
      throws OrtException {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch finished = new CountDownLatch(batches.size());
    Runnable drain =
        () -> {
          for (int i = next.getAndIncrement(); i < batches.size(); i = next.getAndIncrement()) {
            try {
              if (failure.get() == null) {
                int[] batch = batches.get(i);
                place(vectors, batch, run(m, encodings, batch));
              }
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            } finally {
              finished.countDown();
            }
          }
        };
    ExecutorService pool = helpers();
    for (int h = 1; h < Math.min(parallelism, batches.size()); h++) {
      pool.execute(drain);
    }
    drain.run();
    boolean interrupted = false;
    while (true) {
      try {
        finished.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // the helpers still write into vectors: wait for them regardless
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable e = failure.get();
    if (e instanceof OrtException ort) {
      throw ort;
    }
    if (e instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (e instanceof Error error) {
      throw error;
    }
  }

  private ExecutorService helpers() {
    ExecutorService pool = helpers;
    if (pool == null) {
      synchronized (this) {
        pool = helpers;
        if (pool == null) {
          pool =
              Executors.newFixedThreadPool(
                  parallelism - 1, DaemonThreads.numbered("memstack-embedder-"));
          helpers = pool;
        }
      }
    }
    return pool;
  }

  /** Indices of the texts grouped into batches of similar length, shortest first. */
  private List<int[]> batches(Encoding[] encodings) {
    int[] order =
        IntStream.range(0, encodings.length)
            .boxed()
            .sorted(Comparator.comparingInt(i -> encodings[i].getIds().length))
            .mapToInt(Integer::intValue)
            .toArray();
    List<int[]> batches = new ArrayList<>();
    int start = 0;
    while (start < order.length) {
      int end = start + 1;
      while (end < order.length
          && end - start < settings.batchSize()
          && (long) (end - start + 1) * encodings[order[end]].getIds().length <= MAX_BATCH_TOKENS) {
        end++;
      }
      batches.add(Arrays.copyOfRange(order, start, end));
      start = end;
    }
    return batches;
  }

  private float[][] run(Loaded m, Encoding[] encodings, int[] batch) throws OrtException {
    int rows = batch.length;
    int length = 0;
    for (int index : batch) {
      length = Math.max(length, encodings[index].getIds().length);
    }
    long[] ids = new long[rows * length];
    long[] mask = new long[rows * length];
    long[] types = new long[rows * length];
    for (int row = 0; row < rows; row++) {
      Encoding encoding = encodings[batch[row]];
      System.arraycopy(encoding.getIds(), 0, ids, row * length, encoding.getIds().length);
      long[] attention = encoding.getAttentionMask();
      System.arraycopy(attention, 0, mask, row * length, attention.length);
      long[] typeIds = encoding.getTypeIds();
      System.arraycopy(typeIds, 0, types, row * length, typeIds.length);
    }
    long[] shape = {rows, length};
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    Map<String, OnnxTensor> inputs = new HashMap<>();
    try {
      inputs.put("input_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape));
      inputs.put("attention_mask", OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape));
      if (m.takesTokenTypes()) {
        inputs.put("token_type_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(types), shape));
      }
      try (OrtSession.Result result = m.session().run(inputs)) {
        OnnxTensor hidden = (OnnxTensor) result.get(m.outputName()).orElseThrow();
        return pool(hidden.getFloatBuffer(), mask, rows, length);
      }
    } finally {
      inputs.values().forEach(OnnxTensor::close);
    }
  }

  private float[][] pool(FloatBuffer hidden, long[] mask, int rows, int length) {
    int dim = model.dimension();
    float[][] vectors = new float[rows][];
    for (int row = 0; row < rows; row++) {
      float[] vector = new float[dim];
      int rowStart = row * length * dim;
      if (model.pooling() == BundledModel.Pooling.CLS) {
        hidden.get(rowStart, vector, 0, dim);
      } else {
        int tokens = 0;
        for (int t = 0; t < length; t++) {
          if (mask[row * length + t] == 0) {
            continue;
          }
          tokens++;
          int tokenStart = rowStart + t * dim;
          for (int d = 0; d < dim; d++) {
            vector[d] += hidden.get(tokenStart + d);
          }
        }
        for (int d = 0; d < dim; d++) {
          vector[d] /= Math.max(tokens, 1);
        }
      }
      vectors[row] = Vectors.normalize(vector);
    }
    return vectors;
  }

  private Loaded loadedModel() {
    Loaded m = loaded;
    if (m != null) {
      return m;
    }
    lock.writeLock().lock();
    try {
      if (closed) {
        throw new IllegalStateException("embedding model " + model.id() + " is closed");
      }
      if (loaded == null) {
        loaded = open();
      }
      return loaded;
    } finally {
      lock.writeLock().unlock();
    }
  }

  private Loaded open() {
    long start = System.nanoTime();
    // the tokenizer (a native library and a JSON file) loads on a thread of its own while this
    // one inflates the model and onnxruntime optimises it: the two take ~0.3 and ~0.7 s and
    // share nothing
    CompletableFuture<HuggingFaceTokenizer> tokenizerLoad =
        CompletableFuture.supplyAsync(this::openTokenizer, OnnxEmbedder::loaderThread);
    OrtSession session = null;
    try {
      session = openSession();
      HuggingFaceTokenizer tokenizer = tokenizerLoad.join();
      Loaded m;
      try {
        m = describe(tokenizer, session);
      } catch (OrtException | RuntimeException e) {
        tokenizer.close();
        throw e;
      }
      log.info(
          "Loaded embedding model {} (dimension {}, pooling {}) in {} ms",
          model.id(),
          model.dimension(),
          model.pooling(),
          (System.nanoTime() - start) / 1_000_000);
      return m;
    } catch (IOException | OrtException | RuntimeException e) {
      tokenizerLoad.thenAccept(HuggingFaceTokenizer::close);
      if (session != null) {
        try {
          session.close();
        } catch (OrtException closing) {
          e.addSuppressed(closing);
        }
      }
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      throw new IllegalStateException(
          "could not load embedding model " + model.id() + ": " + cause.getMessage(), cause);
    }
  }

  /**
   * The onnxruntime session: from the prepared model when {@code prepared-dir} holds one for this
   * model and onnxruntime version, else from the class path, writing the prepared model when a
   * folder is set. The prepared model is the graph after onnxruntime's extended optimisations
   * (portable across CPUs; the hardware-specific layout passes run at every load, as they do on the
   * original), so the session is the same either way.
   */
  private OrtSession openSession() throws IOException, OrtException {
    Path prepared = preparedModel();
    if (prepared != null && Files.isRegularFile(prepared)) {
      try (OrtSession.SessionOptions options = sessionOptions()) {
        return OrtEnvironment.getEnvironment().createSession(prepared.toString(), options);
      } catch (OrtException e) {
        log.warn(
            "Prepared model {} unreadable ({}); loading from the jar", prepared, e.getMessage());
        Files.deleteIfExists(prepared);
      }
    }
    byte[] modelBytes;
    try (InputStream onnx = resources.getResourceAsStream(model.modelResource())) {
      if (onnx == null) {
        throw new IOException("model resource not found on the class path");
      }
      modelBytes = onnx.readAllBytes();
    }
    if (prepared != null) {
      prepare(modelBytes, prepared);
    }
    try (OrtSession.SessionOptions options = sessionOptions()) {
      return OrtEnvironment.getEnvironment().createSession(modelBytes, options);
    }
  }

  /** Writes the model after the extended optimisations to {@code prepared}, atomically. */
  private void prepare(byte[] modelBytes, Path prepared) {
    Path temporary =
        prepared.resolveSibling(
            prepared.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    try {
      Files.createDirectories(prepared.getParent());
      try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.EXTENDED_OPT);
        options.setOptimizedModelFilePath(temporary.toString());
        OrtEnvironment.getEnvironment().createSession(modelBytes, options).close();
      }
      Files.move(
          temporary, prepared, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      log.info("Prepared embedding model {} in {}", model.id(), prepared);
    } catch (IOException | OrtException | RuntimeException e) {
      log.warn(
          "Could not prepare embedding model {} in {}: {}",
          model.id(),
          prepared.getParent(),
          e.getMessage());
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException ignored) {
        // nothing left to do
      }
    }
  }

  /**
   * The prepared model's file in {@code prepared-dir}, named by the model, the onnxruntime version
   * and the jar the model came from (so that a new jar or runtime prepares anew); null when no
   * folder is set.
   */
  private Path preparedModel() {
    if (settings.preparedDir().isEmpty()) {
      return null;
    }
    String source = String.valueOf(resources.getResource(model.modelResource()));
    // the first 12 hex digits of a SHA-256: enough to tell jars and runtimes apart
    String key =
        Digests.sha256Hex(source + "|" + OrtEnvironment.getEnvironment().getVersion())
            .substring(0, 12);
    return Path.of(settings.preparedDir()).resolve(model.id() + "-" + key + ".onnx");
  }

  private OrtSession.SessionOptions sessionOptions() throws OrtException {
    OrtSession.SessionOptions options = new OrtSession.SessionOptions();
    try {
      options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
      // Idle onnxruntime threads spin by default. The host shares its cores with request
      // handling and the providers; measured under load, spinning tripled the time per text.
      options.addConfigEntry("session.intra_op.allow_spinning", "0");
      options.addConfigEntry("session.inter_op.allow_spinning", "0");
      if (settings.threads() > 0) {
        options.setIntraOpNumThreads(settings.threads());
      }
      return options;
    } catch (OrtException | RuntimeException e) {
      options.close();
      throw e;
    }
  }

  private HuggingFaceTokenizer openTokenizer() {
    try (InputStream tokenizerJson = resources.getResourceAsStream(model.tokenizerResource())) {
      if (tokenizerJson == null) {
        throw new UncheckedIOException(
            new IOException("tokenizer resource not found on the class path"));
      }
      return HuggingFaceTokenizer.newInstance(
          tokenizerJson,
          Map.of(
              "addSpecialTokens", "true",
              "padding", "false",
              "truncation", "true",
              "maxLength", Integer.toString(settings.maxTokens())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs {@code task} on a daemon thread of its own (a model loads once; no pool to keep). */
  private static void loaderThread(Runnable task) {
    DaemonThreads.named("memstack-tokenizer-load").newThread(task).start();
  }

  private Loaded describe(HuggingFaceTokenizer tokenizer, OrtSession session) throws OrtException {
    Map<String, NodeInfo> outputs = session.getOutputInfo();
    String outputName =
        outputs.containsKey("last_hidden_state")
            ? "last_hidden_state"
            : outputs.keySet().iterator().next();
    if (outputs.get(outputName).getInfo() instanceof TensorInfo info) {
      long[] shape = info.getShape();
      long hiddenSize = shape[shape.length - 1];
      if (hiddenSize > 0 && hiddenSize != model.dimension()) {
        session.close();
        throw new IllegalStateException(
            "model output has " + hiddenSize + " dimensions, expected " + model.dimension());
      }
    }
    boolean takesTokenTypes = session.getInputNames().contains("token_type_ids");
    return new Loaded(tokenizer, session, outputName, takesTokenTypes);
  }

  private record Loaded(
      HuggingFaceTokenizer tokenizer,
      OrtSession session,
      String outputName,
      boolean takesTokenTypes) {

    void close() {
      try {
        session.close();
      } catch (OrtException e) {
        log.warn("Closing the onnxruntime session failed", e);
      } finally {
        tokenizer.close();
      }
    }
  }
}
