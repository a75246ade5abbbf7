package dev.memstack.host.window;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import dev.memstack.support.Scripts;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts tokens the way the chat model will see them, per model id.
 *
 * <p>Which model gets which counter:
 *
 * <ul>
 *   <li>OpenAI model names (an {@code openai:} or {@code ollama:} prefix is ignored): {@code
 *       gpt-4o*}, {@code gpt-4.1*}, {@code gpt-4.5*}, {@code gpt-5*}, {@code chatgpt-4o*}, {@code
 *       o1*}, {@code o3*}, {@code o4*} and {@code gpt-oss*} get JTokkit's {@code o200k_base};
 *       {@code gpt-4*}, {@code gpt-3.5*} and {@code gpt-35*} get {@code cl100k_base}. The counter
 *       is named {@code jtokkit:<encoding>}.
 *   <li>Every other model (Llama, Qwen, Mistral, Gemma… served by Ollama, or {@code none}) gets the
 *       {@link #estimate} named {@code estimate}, which never undercounts {@code cl100k_base} or
 *       {@code o200k_base} by more than 10 % on English, Chinese and code (a committed test), times
 *       the model's correction factor learnt from {@link #observe}.
 * </ul>
 *
 * Every message adds {@value #MESSAGE_OVERHEAD} tokens for its role and framing (the chat
 * template). Thread-safe.
 */
public final class TokenCounter {

  /** Tokens added per message for its role and the chat template's framing. */
  public static final int MESSAGE_OVERHEAD = 4;

  /** The highest correction factor {@link #observe} may learn. */
  public static final double MAX_CORRECTION = 3.0;

  private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

  private final Map<String, Double> corrections = new ConcurrentHashMap<>();

  /** The counter's name for {@code model}: {@code jtokkit:<encoding>} or {@code estimate}. */
  public String counterName(String model) {
    EncodingType type = encoding(model);
    return type == null ? "estimate" : "jtokkit:" + type.getName();
  }

  /** The tokens of {@code text} alone (no message overhead) for {@code model}. */
  public int count(String model, String text) {
    if (text == null || text.isEmpty()) {
      return 0;
    }
    EncodingType type = encoding(model);
    if (type != null) {
      Encoding encoding = REGISTRY.getEncoding(type);
      return encoding.countTokensOrdinary(text);
    }
    return (int) Math.ceil(estimate(text) * correction(model));
  }

  /** The tokens of one message of {@code text}: its content and {@value #MESSAGE_OVERHEAD}. */
  public int message(String model, String text) {
    return count(model, text) + MESSAGE_OVERHEAD;
  }

  /** The correction factor the estimate of {@code model} is multiplied by (1 until observed). */
  public double correction(String model) {
    return corrections.getOrDefault(key(model), 1.0);
  }

  /** What learns from the prompt sizes one model reports ({@link #observe}). */
  @FunctionalInterface
  public interface Calibration {
    /** Learns that a prompt estimated at {@code estimated} tokens was {@code reported} tokens. */
    void observe(int estimated, int reported);
  }

  /** The {@link Calibration} of {@code model}: {@link #observe} for it. */
  public Calibration calibration(String model) {
    Objects.requireNonNull(model, "model");
    return (estimated, reported) -> observe(model, estimated, reported);
  }

  /**
   * Learns from the prompt size the model reported ({@code prompt_eval_count} of Ollama) for a
   * prompt this counter estimated at {@code estimated} tokens. Only estimated models learn (the
   * real tokenizers are exact). The factor rises at once to what the report shows, falls back
   * slowly (a tenth of the way per report), and stays within 1 to {@value #MAX_CORRECTION}: it
   * never makes a count lower than the plain estimate, whose bound the tests hold.
   */
  public void observe(String model, int estimated, int reported) {
    if (encoding(model) != null || estimated <= 0 || reported <= 0) {
      return;
    }
    corrections.compute(
        key(model),
        (k, current) -> {
          double factor = current == null ? 1.0 : current;
          // the ratio against the plain estimate this count was made from
          double observed = factor * reported / estimated;
          double next = observed >= factor ? observed : factor + (observed - factor) / 10;
          return Math.max(1.0, Math.min(MAX_CORRECTION, next));
        });
  }

  /** The JTokkit encoding of an OpenAI model name, or {@code null}. */
  static EncodingType encoding(String model) {
    String name = key(model);
    int colon = name.indexOf(':');
    if (colon >= 0 && (name.startsWith("openai:") || name.startsWith("ollama:"))) {
      name = name.substring(colon + 1);
    }
    for (String prefix :
        new String[] {
          "gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "o1", "o3", "o4", "gpt-oss"
        }) {
      if (name.startsWith(prefix)) {
        return EncodingType.O200K_BASE;
      }
    }
    for (String prefix : new String[] {"gpt-4", "gpt-3.5", "gpt-35"}) {
      if (name.startsWith(prefix)) {
        return EncodingType.CL100K_BASE;
      }
    }
    return null;
  }

  private static String key(String model) {
    return model == null ? "none" : model.strip().toLowerCase(Locale.ROOT);
  }

  /**
   * The plain estimate: a run of Latin letters costs one token per 4 letters (at least one), a run
   * of digits one per 3, every other letter (Cyrillic, Greek, Arabic…) one per 2, a CJK ideograph,
   * kana or hangul syllable {@value #CJK_PER_CHAR}, a punctuation mark or symbol one, a character
   * outside the Basic Multilingual Plane (emoji) two, a line break one, and a run of two or more
   * spaces or tabs one (a single space goes with the word after it).
   */
  static double estimate(String text) {
    double tokens = 0;
    int i = 0;
    int n = text.length();
    while (i < n) {
      int c = text.codePointAt(i);
      int start = i;
      if (isLatinLetter(c)) {
        while (i < n && isLatinLetter(text.codePointAt(i))) {
          i += Character.charCount(text.codePointAt(i));
        }
        tokens += Math.ceil((i - start) / 4.0);
      } else if (c >= '0' && c <= '9') {
        while (i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
          i++;
        }
        tokens += Math.ceil((i - start) / 3.0);
      } else if (Scripts.isCjk(c)) {
        tokens += CJK_PER_CHAR;
        i += Character.charCount(c);
      } else if (Character.isLetter(c)) {
        while (i < n
            && Character.isLetter(text.codePointAt(i))
            && !isLatinLetter(text.codePointAt(i))
            && !Scripts.isCjk(text.codePointAt(i))) {
          i += Character.charCount(text.codePointAt(i));
        }
        tokens += Math.ceil(text.codePointCount(start, i) / 2.0);
      } else if (c == '\n' || c == '\r') {
        while (i < n && (text.charAt(i) == '\n' || text.charAt(i) == '\r')) {
          i++;
        }
        tokens += 1;
      } else if (c == ' ' || c == '\t') {
        while (i < n && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
          i++;
        }
        tokens += i - start > 1 ? 1 : 0;
      } else if (Character.isWhitespace(c)) {
        i += Character.charCount(c);
        tokens += 1;
      } else {
        tokens += Character.isSupplementaryCodePoint(c) ? 2 : 1;
        i += Character.charCount(c);
      }
    }
    return tokens;
  }

  /** Tokens a CJK character costs in the estimate. */
  static final double CJK_PER_CHAR = 1.25;

  private static boolean isLatinLetter(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }
}
