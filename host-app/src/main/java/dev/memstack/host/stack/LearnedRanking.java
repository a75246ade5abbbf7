package dev.memstack.host.stack;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ranking stage's model as this host can use it ({@code memstack.stack.ranking.model}): the
 * shipped model inside the jar, a file, or none. A model that is missing, unreadable, names a
 * feature this host does not compute, or was trained on another embedding model's cosines is not
 * used: the stack then ranks by the fusion, logs why once, and says so in health ({@code ranking})
 * and under {@code explain} ({@code stack.ranking}).
 *
 * @param model the model, or {@code null} when the fusion ranks
 * @param source where the model was read from, or {@code null}
 * @param reason why the fusion ranks, or {@code null} when the model does
 */
record LearnedRanking(RankingModel model, String source, String reason) {

  /** Where the shipped model lives on the host's class path. */
  static final String SHIPPED = "/memstack/ranking/realtalk.json";

  private static final Logger log = LoggerFactory.getLogger(LearnedRanking.class);

  /** No learned ranking: the fusion ranks, for {@code reason}. */
  static LearnedRanking fusion(String reason) {
    return new LearnedRanking(null, null, Objects.requireNonNull(reason, "reason"));
  }

  /** A stage that ranks with {@code model}, read from {@code source}. */
  static LearnedRanking of(RankingModel model, String source) {
    return new LearnedRanking(Objects.requireNonNull(model, "model"), source, null);
  }

  /**
   * Loads the model {@code setting} names for a host whose embedding model is {@code
   * embeddingModel} ({@code null} when it has none), and logs which ranking is in use.
   */
  static LearnedRanking load(String setting, String embeddingModel) {
    LearnedRanking ranking = resolve(setting, embeddingModel);
    if (ranking.active()) {
      log.info(
          "Recall ranking: learned model '{}' from {} ({} features)",
          ranking.model.name(),
          ranking.source,
          ranking.model.features().size());
    } else if (!StackProperties.Ranking.NONE.equals(setting)) {
      log.warn("Recall ranking falls back to the fusion: {}", ranking.reason);
    } else {
      log.info("Recall ranking: the fusion (memstack.stack.ranking.model=none)");
    }
    return ranking;
  }

  private static LearnedRanking resolve(String setting, String embeddingModel) {
    if (StackProperties.Ranking.NONE.equals(setting)) {
      return fusion("memstack.stack.ranking.model=none");
    }
    if (embeddingModel == null) {
      return fusion("the host has no embedding model, which the learned ranking needs");
    }
    String source = setting.isEmpty() ? "the shipped model (" + SHIPPED + ")" : setting;
    RankingModel model;
    try (InputStream in = open(setting)) {
      if (in == null) {
        return fusion("the shipped model " + SHIPPED + " is not in this build");
      }
      model = RankingModel.read(in);
    } catch (NoSuchFileException e) {
      return fusion("memstack.stack.ranking.model names a file that does not exist: " + setting);
    } catch (IOException | RuntimeException e) {
      return fusion(
          "memstack.stack.ranking.model " + source + " cannot be read: " + e.getMessage());
    }
    if (!model.embeddingModel().equals(embeddingModel)) {
      return fusion(
          "the model '"
              + model.name()
              + "' was trained on cosines of embedding model '"
              + model.embeddingModel()
              + "', this host embeds with '"
              + embeddingModel
              + "'");
    }
    return of(model, source);
  }

  private static InputStream open(String setting) throws IOException {
    if (setting.isEmpty()) {
      return LearnedRanking.class.getResourceAsStream(SHIPPED);
    }
    return Files.newInputStream(Path.of(setting));
  }

  /** Whether a learned model orders the candidates. */
  boolean active() {
    return model != null;
  }

  /** Whether the model reads a feature whose name starts with {@code prefix}. */
  boolean reads(String prefix) {
    return active() && model.features().stream().anyMatch(name -> name.startsWith(prefix));
  }

  /** What {@code stack.ranking} says: {@code learned:<name>} or {@code fusion}. */
  String describe() {
    return active() ? "learned:" + model.name() : "fusion";
  }
}
