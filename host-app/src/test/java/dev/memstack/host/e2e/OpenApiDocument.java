package dev.memstack.host.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The committed OpenAPI document, {@code docs/openapi.json}: its canonical text (object keys in
 * name order at every level, two-space indentation, a final newline, so that a regenerated file
 * only differs where the API did) and the differences between two documents as JSON pointers.
 */
final class OpenApiDocument {

  /** Set to {@code true} to rewrite the committed file from the running host. */
  static final String WRITE_PROPERTY = "memstack.openapi.write";

  /** Where the committed file is: set by the build (see host-app/pom.xml). */
  static final String PATH_PROPERTY = "memstack.test.openapi";

  static final String REGENERATE =
      "regenerate it with scripts/openapi.sh (runs OpenApiDocumentTest with -D"
          + WRITE_PROPERTY
          + "=true) and review the diff";

  private static final JsonMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private OpenApiDocument() {}

  static Path committed() {
    String path = System.getProperty(PATH_PROPERTY);
    if (path == null) {
      throw new IllegalStateException(
          "system property " + PATH_PROPERTY + " is not set; run the test through Maven");
    }
    return Path.of(path);
  }

  static JsonNode read(Path file) {
    try {
      return JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void write(Path file, JsonNode document) {
    try {
      Files.writeString(file, canonicalText(document), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The document as the committed file holds it. */
  static String canonicalText(JsonNode document) {
    return JSON.writeValueAsString(sorted(document)) + "\n";
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      ObjectNode copy = JSON.createObjectNode();
      Set<String> names = new TreeSet<>(node.propertyNames());
      for (String name : names) {
        copy.set(name, sorted(node.get(name)));
      }
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = JSON.createArrayNode();
      for (JsonNode element : node) {
        copy.add(sorted(element));
      }
      return copy;
    }
    return node;
  }

  /** The JSON pointers at which {@code actual} differs from {@code expected}, in document order. */
  static List<String> differences(JsonNode expected, JsonNode actual) {
    List<String> out = new ArrayList<>();
    diff("", expected, actual, out);
    return out;
  }

  private static void diff(String at, JsonNode expected, JsonNode actual, List<String> out) {
    if (expected.isObject() && actual.isObject()) {
      Set<String> names = new TreeSet<>(expected.propertyNames());
      names.addAll(actual.propertyNames());
      for (String name : names) {
        String child = at + "/" + name.replace("~", "~0").replace("/", "~1");
        JsonNode left = expected.get(name);
        JsonNode right = actual.get(name);
        if (left == null) {
          out.add(child + " is new");
        } else if (right == null) {
          out.add(child + " is gone");
        } else {
          diff(child, left, right, out);
        }
      }
    } else if (expected.isArray() && actual.isArray() && expected.size() == actual.size()) {
      Iterator<JsonNode> left = expected.iterator();
      Iterator<JsonNode> right = actual.iterator();
      for (int i = 0; left.hasNext(); i++) {
        diff(at + "/" + i, left.next(), right.next(), out);
      }
    } else if (!expected.equals(actual)) {
      out.add(at + " changed: " + brief(expected) + " -> " + brief(actual));
    }
  }

  private static String brief(JsonNode node) {
    String text = node.toString();
    return text.length() > 80 ? text.substring(0, 77) + "..." : text;
  }

  /** The operations of a document: {@code "POST /api/v1/..."} to the operation object. */
  static Map<String, JsonNode> operations(JsonNode document) {
    Map<String, JsonNode> operations = new java.util.TreeMap<>();
    for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
      for (Map.Entry<String, JsonNode> method : path.getValue().properties()) {
        operations.put(
            method.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey(),
            method.getValue());
      }
    }
    return operations;
  }
}
