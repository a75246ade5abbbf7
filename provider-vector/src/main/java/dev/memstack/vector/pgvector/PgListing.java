package dev.memstack.vector.pgvector;

import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreListing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The administration reads of a pgvector store: pages newest first ({@code ORDER BY created_at
 * DESC, id LIMIT OFFSET}), counts, counts by the values of a column ({@code GROUP BY}) and the
 * owners of an agent, each within a filter and, where asked, the records that hold a word of a text
 * (the full-text condition of the keyword search, on its GIN index: every match, unranked).
 * Thread-safe.
 */
final class PgListing implements StoreListing {

  private final PgTable table;

  PgListing(PgTable table) {
    this.table = table;
  }

  /** See {@link MemoryVectorStore#list(Filter.Expression, String, int, int)}. */
  @Override
  public List<Document> list(Filter.Expression filter, String text, int offset, int limit) {
    if (offset < 0 || limit < 0) {
      throw new IllegalArgumentException(
          "offset and limit must not be negative, got " + offset + " and " + limit);
    }
    if (limit == 0) {
      return List.of();
    }
    PgFilter.Sql where = where(filter, text);
    String sql =
        "SELECT "
            + PgTable.COLUMNS
            + " FROM "
            + table.schema.table()
            + " t WHERE "
            + where.text()
            + " ORDER BY t.created_at DESC, t.id LIMIT ? OFFSET ?";
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(sql)) {
      int p = PgTable.bind(query, 1, where.params());
      query.setInt(p++, limit);
      query.setInt(p, offset);
      List<Document> results = new ArrayList<>();
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          results.add(table.document(rows, null));
        }
      }
      return results;
    } catch (SQLException e) {
      throw table.failure("list", e);
    }
  }

  /** See {@link MemoryVectorStore#count(Filter.Expression, String)}. */
  @Override
  public long count(Filter.Expression filter, String text) {
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement query =
            table.prepareWhere(
                connection, "SELECT count(*) FROM " + table.schema.table(), where(filter, text));
        ResultSet row = query.executeQuery()) {
      row.next();
      return row.getLong(1);
    } catch (SQLException e) {
      throw table.failure("count", e);
    }
  }

  /** See {@link MemoryVectorStore#countBy}: one {@code GROUP BY} of the key's column. */
  @Override
  public Map<String, Long> countBy(String key, Filter.Expression filter, String text) {
    if (MemoryVectorStore.CREATED_AT.equals(key)) {
      throw new IllegalArgumentException("cannot count by " + key);
    }
    String column = PgFilter.column(key);
    Map<String, Long> counts = new TreeMap<>();
    try (Connection connection = table.dataSource.getConnection();
        PreparedStatement query =
            table.prepareWhere(
                connection,
                "SELECT " + column + ", count(*) FROM " + table.schema.table(),
                and(where(filter, text), column + " IS NOT NULL", List.of()),
                " GROUP BY 1");
        ResultSet rows = query.executeQuery()) {
      while (rows.next()) {
        counts.put(rows.getString(1), rows.getLong(2));
      }
      return counts;
    } catch (SQLException e) {
      throw table.failure("count by " + key, e);
    }
  }

  /**
   * See {@link MemoryVectorStore#owners}: one {@code GROUP BY owner} over the agent's personal
   * rows, which the partial index {@code <table>_owners_idx} on {@code (agent, owner COLLATE "C")
   * WHERE scope = 'PERSONAL'} hands over in key order; {@code count(*) OVER ()} counts the groups
   * on the same pass. A page past the end counts the owners in a second statement.
   */
  @Override
  public MemoryVectorStore.OwnerPage owners(
      String agent, String prefix, String contains, int offset, int limit) {
    if (offset < 0 || limit < 0) {
      throw new IllegalArgumentException(
          "offset and limit must not be negative, got " + offset + " and " + limit);
    }
    PgFilter.Sql where = new PgFilter.Sql("agent = ? AND scope = 'PERSONAL'", List.of(agent));
    if (prefix != null) {
      where =
          and(where, "owner COLLATE \"C\" LIKE ? ESCAPE '\\'", List.of(likeEscaped(prefix) + "%"));
    }
    if (contains != null) {
      where = and(where, "strpos(lower(owner), ?) > 0", List.of(contains.toLowerCase(Locale.ROOT)));
    }
    try (Connection connection = table.dataSource.getConnection()) {
      List<MemoryVectorStore.OwnerCount> page = new ArrayList<>();
      long total = -1;
      if (limit > 0) {
        try (PreparedStatement query =
            table.prepareWhere(
                connection,
                "SELECT owner COLLATE \"C\", count(*), count(*) OVER () FROM "
                    + table.schema.table(),
                where,
                " GROUP BY 1 ORDER BY 1 LIMIT " + limit + " OFFSET " + offset)) {
          try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
              page.add(new MemoryVectorStore.OwnerCount(rows.getString(1), rows.getLong(2)));
              total = rows.getLong(3);
            }
          }
        }
      }
      if (total < 0) {
        try (PreparedStatement query =
                table.prepareWhere(
                    connection,
                    "SELECT count(DISTINCT owner) FROM " + table.schema.table(),
                    where,
                    "");
            ResultSet row = query.executeQuery()) {
          row.next();
          total = row.getLong(1);
        }
      }
      return new MemoryVectorStore.OwnerPage(total, page);
    } catch (SQLException e) {
      throw table.failure("list the owners", e);
    }
  }

  /** The filter as SQL, narrowed by the full-text condition of {@code text} when it is given. */
  private PgFilter.Sql where(Filter.Expression filter, String text) {
    PgFilter.Sql where = PgFilter.where(filter);
    return text == null
        ? where
        : and(
            where,
            table.schema.tsvector("content") + " @@ " + PgSearches.tsquery(table.schema),
            List.of(text));
  }

  private static PgFilter.Sql and(PgFilter.Sql where, String condition, List<?> params) {
    List<Object> all = new ArrayList<>(where.params());
    all.addAll(params);
    return new PgFilter.Sql("(" + where.text() + ") AND " + condition, all);
  }

  /** {@code text} with the LIKE wildcards and the escape character escaped. */
  private static String likeEscaped(String text) {
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
  }
}
