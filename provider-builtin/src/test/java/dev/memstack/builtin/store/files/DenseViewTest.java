package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.search.Paragraphs;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DenseViewTest {

  /** Counts the texts it is asked to embed, in order. */
  static class CountingEmbedder implements Embedder {
    final Embedder delegate = new HashingEmbedder();
    final List<String> passages = new ArrayList<>();
    final List<String> queries = new ArrayList<>();

    @Override
    public String modelId() {
      return delegate.modelId();
    }

    @Override
    public int dimension() {
      return delegate.dimension();
    }

    @Override
    public synchronized List<float[]> embed(List<String> texts, Kind kind) {
      (kind == Kind.QUERY ? queries : passages).addAll(texts);
      return delegate.embed(texts, kind);
    }
  }

  @Test
  @DisplayName("embeds a paragraph's prose: heading lines and bold markers left out")
  void embedsTheProse() {
    assertThat(
            DenseView.text(
                "### 22:36 · api · conversation realtalk-1-session_5\n**User:** elise: hi there"))
        .isEqualTo("User: elise: hi there");
    assertThat(DenseView.text("# 2026-04-01")).isEmpty();
    assertThat(DenseView.text("  plain line\n\n  second  ")).isEqualTo("plain line\nsecond");
  }

  @Test
  @DisplayName("takes unchanged paragraphs' vectors over and embeds only the new ones, once each")
  void reusesVectors() {
    CountingEmbedder embedder = new CountingEmbedder();
    DenseView view = new DenseView(embedder);
    List<Paragraphs.Chunk> first =
        List.of(new Paragraphs.Chunk(1, "# day"), new Paragraphs.Chunk(3, "**User:** one"));
    List<float[]> vectors = view.vectors(first, Map.of());
    assertThat(vectors.get(0)).isNull();
    assertThat(vectors.get(1)).hasSize(HashingEmbedder.DIMENSION);
    assertThat(embedder.passages).containsExactly("User: one");

    List<Paragraphs.Chunk> second =
        List.of(
            new Paragraphs.Chunk(1, "# day"),
            new Paragraphs.Chunk(3, "**User:** one"),
            new Paragraphs.Chunk(5, "**User:** two"),
            new Paragraphs.Chunk(7, "### 10:00\n**User:** two"));
    List<float[]> again = view.vectors(second, Map.of("User: one", vectors.get(1)));
    assertThat(embedder.passages).containsExactly("User: one", "User: two");
    assertThat(again.get(1)).isSameAs(vectors.get(1));
    assertThat(again.get(2)).isSameAs(again.get(3));
  }

  @Test
  @DisplayName("refuses an embedder that answers with the wrong number of vectors")
  void refusesAShortAnswer() {
    Embedder broken =
        new CountingEmbedder() {
          @Override
          public synchronized List<float[]> embed(List<String> texts, Kind kind) {
            return List.of();
          }
        };
    assertThatThrownBy(
            () -> new DenseView(broken).vectors(List.of(new Paragraphs.Chunk(1, "x")), Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("0 vectors for 1 texts");
  }
}
