package dev.memstack.vector.lucene;

import static dev.memstack.vector.store.MemoryVectorStore.CREATED_AT;
import static dev.memstack.vector.store.MemoryVectorStore.ID;
import static dev.memstack.vector.store.MemoryVectorStore.MODEL;

import dev.memstack.spi.OwnerKey;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.store.StoreWrites;
import dev.memstack.vector.store.Trust;
import dev.memstack.vector.store.TrustChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The write side of the embedded store: adds (visible at once or as a batch), metadata updates,
 * deletes by id or filter, and the feedback counts and trust. Every change runs inside {@link
 * LuceneIndex#write}; adds and metadata updates are appended to the {@link Translog} and forced to
 * disk before the index changes, deletes commit the index at once.
 */
final class LuceneWrites implements StoreWrites {

  private final LuceneIndex index;

  LuceneWrites(LuceneIndex index) {
    this.index = index;
  }

  /** Embeds and writes {@code documents}; visible to searches now or within a refresh delay. */
  void add(List<org.springframework.ai.document.Document> documents, boolean visibleNow) {
    if (documents.isEmpty()) {
      return;
    }
    StoreEmbedder embedder = index.embedder();
    List<MemoryRecord> records = new ArrayList<>(documents.size());
    for (org.springframework.ai.document.Document document : documents) {
      records.add(MemoryRecord.fromDocument(document));
    }
    List<float[]> vectors =
        embedder.embedPassages(records.stream().map(MemoryRecord::embeddingText).toList());
    List<Translog.Entry> entries = new ArrayList<>(records.size());
    for (int i = 0; i < records.size(); i++) {
      entries.add(new Translog.Entry(records.get(i), vectors.get(i)));
    }
    index.write(
        ix -> {
          if (ix.dimension != embedder.dimension()) {
            throw new IllegalStateException("embedded vector store holds another dimension");
          }
          ix.translog.append(entries);
          for (Translog.Entry entry : entries) {
            ix.writer.updateDocument(
                new Term(ID, entry.record().id()),
                LuceneRecords.toLucene(entry.record(), entry.vector(), ix.graphed));
          }
          ix.maybeCommit();
          if (!visibleNow) {
            for (Translog.Entry entry : entries) {
              index.markInvisible(entry.record().id());
            }
          }
        },
        visibleNow);
    if (!visibleNow) {
      index.scheduleRefresh();
    }
  }

  @Override
  public void delete(List<String> idList) {
    if (idList.isEmpty()) {
      return;
    }
    Term[] terms = idList.stream().map(id -> new Term(ID, id)).toArray(Term[]::new);
    index.write(
        ix -> {
          ix.writer.deleteDocuments(terms);
          ix.commit();
          index.feedback().drop(idList); // a crash before this: the next open drops them
        });
  }

  @Override
  public void delete(Filter.Expression filterExpression) {
    Query query = LuceneFilterQueries.of(filterExpression);
    index.write(
        ix -> {
          FeedbackCounts feedback = index.feedback();
          List<String> deleted = feedback.isEmpty() ? List.of() : matchingIds(ix, query);
          ix.writer.deleteDocuments(query);
          ix.commit();
          feedback.drop(deleted);
        });
  }

  /** The ids of every document matching {@code query}, batch writes included. */
  private static List<String> matchingIds(IndexGeneration ix, Query query) throws IOException {
    ix.searchers.maybeRefreshBlocking();
    IndexSearcher searcher = ix.searchers.acquire();
    try {
      int count = searcher.count(query);
      if (count == 0) {
        return List.of();
      }
      TopDocs hits = searcher.search(query, count);
      StoredFields fields = searcher.storedFields();
      List<String> ids = new ArrayList<>(hits.scoreDocs.length);
      for (ScoreDoc hit : hits.scoreDocs) {
        ids.add(fields.document(hit.doc, Set.of(ID)).get(ID));
      }
      return ids;
    } finally {
      ix.searchers.release(searcher);
    }
  }

  /**
   * Rows are kept in {@link FeedbackCounts} beside the index, so a change is one appended line,
   * serialised with every other write by the write lock, and no document is rewritten.
   */
  @Override
  public Map<String, Trust> addTrust(
      OwnerKey owner, Collection<String> distinct, TrustChange change) {
    List<Map<String, Trust>> changed = new ArrayList<>(1);
    index.write(
        ix -> {
          IndexSearcher searcher = ix.searchers.acquire();
          try {
            List<String> present = new ArrayList<>(distinct.size());
            for (String id : distinct) {
              if (index.isInvisible(id) || searcher.count(new TermQuery(new Term(ID, id))) > 0) {
                present.add(id);
              }
            }
            changed.add(index.feedback().change(owner.value(), present, change));
          } finally {
            ix.searchers.release(searcher);
          }
        },
        false);
    return changed.isEmpty() ? Map.of() : changed.get(0);
  }

  @Override
  public Map<String, Trust> trust(OwnerKey owner, Collection<String> ids) {
    Objects.requireNonNull(owner, "owner");
    index.checkOpen();
    return index.feedback().rows(owner.value(), ids);
  }

  @Override
  public boolean hide(OwnerKey owner, String id, boolean hidden) {
    boolean[] had = {false};
    index.write(ix -> had[0] = index.feedback().hide(owner.value(), id, hidden), false);
    return had[0];
  }

  @Override
  public long deleteFeedback(OwnerKey owner) {
    Objects.requireNonNull(owner, "owner");
    long[] removed = {0};
    index.write(ix -> removed[0] = index.feedback().forget(owner.value()), false);
    return removed[0];
  }

  @Override
  public boolean updateMetadata(String id, Map<String, Object> changes) {
    if (changes.containsKey(ID) || changes.containsKey(CREATED_AT) || changes.containsKey(MODEL)) {
      throw new IllegalArgumentException("updateMetadata cannot change id, created_at or model");
    }
    index.makeVisible(id);
    boolean[] found = {false};
    index.write(
        ix -> {
          IndexSearcher searcher = ix.searchers.acquire();
          try {
            TopDocs hits = searcher.search(new TermQuery(new Term(ID, id)), 1);
            if (hits.scoreDocs.length == 0) {
              return;
            }
            int docId = hits.scoreDocs[0].doc;
            Document stored = searcher.storedFields().document(docId);
            org.springframework.ai.document.Document current =
                LuceneRecords.toSpring(stored, ix.modelId, null);
            Map<String, Object> metadata = MemoryRecord.changed(current.getMetadata(), changes);
            MemoryRecord changed =
                MemoryRecord.fromDocument(
                    org.springframework.ai.document.Document.builder()
                        .id(id)
                        .text(current.getText())
                        .metadata(metadata)
                        .build());
            float[] vector = LuceneRecords.storedVector(searcher, docId);
            // logged like an add (an upsert with the stored vector), not committed: callers such
            // as the nightly decay change many records one by one
            ix.translog.append(List.of(new Translog.Entry(changed, vector)));
            ix.writer.updateDocument(
                new Term(ID, id), LuceneRecords.toLucene(changed, vector, ix.graphed));
            ix.maybeCommit();
            found[0] = true;
          } finally {
            ix.searchers.release(searcher);
          }
        });
    return found[0];
  }
}
