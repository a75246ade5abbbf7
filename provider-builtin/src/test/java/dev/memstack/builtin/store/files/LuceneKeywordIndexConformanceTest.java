package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.KeywordIndexConformance;
import dev.memstack.builtin.store.StoreAdapters;
import dev.memstack.builtin.store.Stores;
import org.junit.jupiter.api.DisplayName;

/** The Lucene keyword index of {@code store=files}, with the file store feeding it. */
@DisplayName("LuceneKeywordIndex (conformance)")
class LuceneKeywordIndexConformanceTest extends KeywordIndexConformance {

  @Override
  protected StoreAdapters open(Stores.Needs needs) {
    return new FileStoreAdapters(needs);
  }
}
