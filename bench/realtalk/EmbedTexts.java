import dev.memstack.host.model.BundledModel;
import dev.memstack.host.model.ModelProperties;
import dev.memstack.host.model.OnnxEmbedder;
import dev.memstack.spi.Embedder;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A bench tool, not part of the host (context-views.sh compiles it against the distribution's
 * classes): embeds a file of lines "Q text" (a query) or "P text" (a passage; a newline inside it
 * written as the two characters \n) with the host's default model and settings, and writes the
 * vectors as little-endian floats, one vector a line, in the file's order.
 */
public final class EmbedTexts {
  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
    try (OnnxEmbedder model =
            new OnnxEmbedder(BundledModel.E5_SMALL_V2, ModelProperties.Onnx.defaults());
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(Path.of(args[1])))) {
      for (int from = 0; from < lines.size(); from += 32) {
        List<String> chunk = lines.subList(from, Math.min(lines.size(), from + 32));
        List<String> queries = new ArrayList<>();
        List<String> passages = new ArrayList<>();
        for (String line : chunk) {
          (line.startsWith("Q") ? queries : passages).add(line.substring(2).replace("\\n", "\n"));
        }
        List<float[]> q = queries.isEmpty() ? List.of() : model.embed(queries, Embedder.Kind.QUERY);
        List<float[]> p =
            passages.isEmpty() ? List.of() : model.embed(passages, Embedder.Kind.PASSAGE);
        int qi = 0;
        int pi = 0;
        for (String line : chunk) {
          float[] v = line.startsWith("Q") ? q.get(qi++) : p.get(pi++);
          ByteBuffer bytes = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
          for (float x : v) {
            bytes.putFloat(x);
          }
          out.write(bytes.array());
        }
      }
    }
  }
}
