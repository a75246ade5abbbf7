package dev.memstack.builtin.memory;

import dev.memstack.builtin.workspace.WorkspacePath;
import java.nio.charset.StandardCharsets;

/**
 * The seeds' size caps: {@code PROFILE.md} and {@code MEMORY.md} are cut at the last {@code ##}
 * heading that fits, with a truncation marker line; every other file is refused past a maximum
 * size.
 */
public final class SizeCaps {

  private final int profileMaxChars;
  private final int memoryMaxChars;
  private final int fileMaxBytes;

  /** What a cap did to a content. */
  public record Capped(String content, boolean truncated, int originalChars) {}

  public SizeCaps(int profileMaxChars, int memoryMaxChars, int fileMaxBytes) {
    this.profileMaxChars = profileMaxChars;
    this.memoryMaxChars = memoryMaxChars;
    this.fileMaxBytes = fileMaxBytes;
  }

  /** The character cap of a file name, 0 when it has none. */
  public int charCap(WorkspacePath path) {
    if (!path.atRoot()) {
      return 0;
    }
    return switch (path.value()) {
      case "PROFILE.md" -> profileMaxChars;
      case "MEMORY.md" -> memoryMaxChars;
      default -> 0;
    };
  }

  /** The largest accepted file, in UTF-8 bytes. */
  public int fileMaxBytes() {
    return fileMaxBytes;
  }

  /**
   * Applies the caps to {@code content} for {@code path}.
   *
   * @throws IllegalArgumentException if the (capped) content is still larger than the file maximum
   */
  public Capped apply(WorkspacePath path, String content) {
    int cap = charCap(path);
    Capped capped =
        cap > 0 && content.length() > cap
            ? new Capped(cut(content, cap, path.value()), true, content.length())
            : new Capped(content, false, content.length());
    int bytes = capped.content().getBytes(StandardCharsets.UTF_8).length;
    if (bytes > fileMaxBytes) {
      throw new IllegalArgumentException(
          "content is "
              + bytes
              + " bytes; the largest file accepted is "
              + fileMaxBytes
              + " bytes");
    }
    return capped;
  }

  /**
   * Cuts {@code content} to at most {@code cap} characters: at the start of the last {@code ##}
   * heading that leaves room for the marker, else at the last line break that does, else hard.
   */
  static String cut(String content, int cap, String name) {
    String marker =
        "\n\n_["
            + name
            + " was cut to its "
            + cap
            + "-character cap; later sections were left out]_\n";
    int room = cap - marker.length();
    if (room <= 0) {
      return content.substring(0, Math.min(cap, content.length()));
    }
    int cutAt = -1;
    for (int i = content.indexOf("## "); i >= 0 && i <= room; i = content.indexOf("## ", i + 1)) {
      if (i > 0 && content.charAt(i - 1) == '\n') {
        cutAt = i;
      }
    }
    if (cutAt <= 0) {
      cutAt = content.lastIndexOf('\n', room);
    }
    if (cutAt <= 0) {
      cutAt = room;
      if (Character.isHighSurrogate(content.charAt(cutAt - 1))) {
        cutAt--;
      }
    }
    return content.substring(0, cutAt).stripTrailing() + marker;
  }
}
