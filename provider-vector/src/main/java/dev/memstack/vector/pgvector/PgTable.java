package dev.memstack.vector.pgvector;

import static dev.memstack.vector.store.MemoryVectorStore.AGENT;
import static dev.memstack.vector.store.MemoryVectorStore.CONVERSATION;
import static dev.memstack.vector.store.MemoryVectorStore.CREATED_AT;
import static dev.memstack.vector.store.MemoryVectorStore.MODEL;
import static dev.memstack.vector.store.MemoryVectorStore.OWNER;
import static dev.memstack.vector.store.MemoryVectorStore.SCOPE;
import static dev.memstack.vector.store.MemoryVectorStore.STATUS;
import static dev.memstack.vector.store.MemoryVectorStore.TURN;
import static dev.memstack.vector.store.MemoryVectorStore.TYPE;

import com.zaxxer.hikari.HikariDataSource;
import dev.memstack.spi.OwnerKey;
import dev.memstack.vector.store.StoreEmbedder;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.ai.document.Document;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The table a pgvector store works on, shared by its reads, writes and re-embedding: settings,
 * names ({@link PgVectorSchema}), embedder, connection pool and the embedding model the vectors
 * come from (changed only by re-embedding); and the JDBC plumbing they all use: the selected {@link
 * #COLUMNS}, a row as a Spring AI {@link Document}, parameter binding and error messages.
 */
final class PgTable {

  static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<LinkedHashMap<String, Object>> MAP_TYPE =
      new TypeReference<>() {};

  static final String COLUMNS =
      "t.id, t.content, t.metadata::text AS metadata, t.agent, t.owner, t.scope, t.status,"
          + " t.type, t.conversation, t.turn_id, t.created_at";

  final PgVectorSettings settings;
  final PgVectorSchema schema;
  final StoreEmbedder embedder;
  final HikariDataSource dataSource;
  final PgApproximateIndex approximateIndex;
  private volatile String modelId;
  private volatile int dimension;

  PgTable(
      PgVectorSettings settings,
      StoreEmbedder embedder,
      HikariDataSource dataSource,
      String modelId,
      int dimension) {
    this.settings = settings;
    this.schema = new PgVectorSchema(settings);
    this.embedder = embedder;
    this.dataSource = dataSource;
    this.modelId = modelId;
    this.dimension = dimension;
    this.approximateIndex = new PgApproximateIndex(this);
  }

  /** The model the stored vectors come from. */
  String modelId() {
    return modelId;
  }

  /** The dimension of the stored vectors. */
  int dimension() {
    return dimension;
  }

  /** Records that the vectors now come from {@code newModel} with {@code newDimension}. */
  void useModel(String newModel, int newDimension) {
    modelId = newModel;
    dimension = newDimension;
  }

  /** The record {@code condition} selects, optionally locked for update. */
  Optional<Document> select(
      Connection connection, String condition, List<?> params, boolean forUpdate)
      throws SQLException {
    try (PreparedStatement query =
        connection.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM "
                + schema.table()
                + " t WHERE "
                + condition
                + (forUpdate ? " FOR UPDATE" : ""))) {
      bind(query, 1, params);
      try (ResultSet rows = query.executeQuery()) {
        return rows.next() ? Optional.of(document(rows, null)) : Optional.empty();
      }
    }
  }

  /** The current row of {@code rows} (selected with {@link #COLUMNS}) as a document. */
  Document document(ResultSet rows, Double score) throws SQLException {
    Map<String, Object> metadata = new LinkedHashMap<>();
    String json = rows.getString("metadata");
    if (json != null) {
      JSON.readValue(json, MAP_TYPE)
          .forEach(
              (key, value) -> {
                if (value instanceof Integer || value instanceof Short) {
                  value = ((Number) value).longValue();
                } else if (value instanceof java.math.BigDecimal decimal) {
                  value = decimal.doubleValue();
                }
                metadata.put(key, value);
              });
    }
    // the columns are the truth for the fields that filters see
    metadata.put(AGENT, rows.getString("agent"));
    putOrRemove(metadata, OWNER, rows.getString("owner"));
    metadata.put(SCOPE, rows.getString("scope"));
    metadata.put(STATUS, rows.getString("status"));
    metadata.put(TYPE, rows.getString("type"));
    putOrRemove(metadata, CONVERSATION, rows.getString("conversation"));
    putOrRemove(metadata, TURN, rows.getString("turn_id"));
    metadata.put(
        CREATED_AT, rows.getObject("created_at", OffsetDateTime.class).toInstant().toEpochMilli());
    metadata.put(MODEL, modelId);
    return Document.builder()
        .id(rows.getString("id"))
        .text(rows.getString("content"))
        .metadata(metadata)
        .score(score)
        .build();
  }

  private static void putOrRemove(Map<String, Object> metadata, String key, String value) {
    if (value == null) {
      metadata.remove(key);
    } else {
      metadata.put(key, value);
    }
  }

  /**
   * Prepares {@code head + " WHERE " + where} on {@code connection} with the filter's values bound.
   */
  PreparedStatement prepareWhere(Connection connection, String head, PgFilter.Sql where)
      throws SQLException {
    return prepareWhere(connection, head, where, "");
  }

  /** {@code head WHERE <where> tail}, its parameters bound. */
  PreparedStatement prepareWhere(
      Connection connection, String head, PgFilter.Sql where, String tail) throws SQLException {
    PreparedStatement statement =
        connection.prepareStatement(head + " WHERE " + where.text() + tail);
    try {
      bind(statement, 1, where.params());
      return statement;
    } catch (SQLException | RuntimeException e) {
      statement.close();
      throw e;
    }
  }

  /** Binds {@code params} from parameter {@code first} on; the next free parameter index. */
  static int bind(PreparedStatement statement, int first, List<?> params) throws SQLException {
    int p = first;
    for (Object param : params) {
      statement.setObject(p++, param);
    }
    return p;
  }

  /**
   * Runs one statement that changes rows, on a connection of its own, with {@code params} bound in
   * order.
   *
   * @param what what the statement does, for the message of its failure
   * @return how many rows it changed
   */
  int update(String what, String sql, Object... params) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, 1, Arrays.asList(params));
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  /** Reads one row of a result into a value. */
  @FunctionalInterface
  interface RowReader<T> {
    T read(ResultSet row) throws SQLException;
  }

  /**
   * Runs one statement that answers rows (a {@code SELECT}, or a change with {@code RETURNING}), on
   * a connection of its own, with {@code params} bound in order ({@code null} binds SQL null).
   *
   * @param what what the statement does, for the message of its failure
   * @return each row as {@code reader} reads it, in order
   */
  <T> List<T> query(String what, String sql, RowReader<T> reader, Object... params) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        Object param = params[i];
        statement.setObject(
            i + 1, param instanceof Collection<?> c ? textArray(connection, strings(c)) : param);
      }
      List<T> found = new ArrayList<>();
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          found.add(reader.read(rows));
        }
      }
      return found;
    } catch (SQLException e) {
      throw failure(what, e);
    }
  }

  private static List<String> strings(Collection<?> values) {
    return values.stream().map(String::valueOf).toList();
  }

  /** Deletes the rows of {@code owner} from the side table {@code sideTable}; how many. */
  long deleteOwnerRows(String sideTable, OwnerKey owner) {
    Objects.requireNonNull(owner, "owner");
    return update(
        "delete an owner's rows from " + sideTable,
        "DELETE FROM " + sideTable + " WHERE owner = ?",
        owner.value());
  }

  static Array textArray(Connection connection, Collection<String> values) throws SQLException {
    return connection.createArrayOf("text", values.toArray(new String[0]));
  }

  IllegalStateException failure(String what, SQLException e) {
    return new IllegalStateException(
        "pgvector store " + schema.displayName() + ": " + what + " failed: " + e.getMessage(), e);
  }
}
