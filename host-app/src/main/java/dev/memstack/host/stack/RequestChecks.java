package dev.memstack.host.stack;

import com.ibm.icu.lang.UCharacter;
import com.ibm.icu.lang.UCharacterCategory;
import com.ibm.icu.lang.UProperty;
import com.ibm.icu.text.Normalizer2;
import com.ibm.icu.text.SpoofChecker;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Turn;
import dev.memstack.support.ControlCharacters;

/**
 * The field rules of a request, checked once, on the request records and the readers of the
 * adapters, so that an error names its field and the SPI record the stack builds from a checked
 * request cannot fail: the rules of the SPI records a request becomes ({@link Turn}, {@link
 * RecallRequest}) and the host's stricter ones on top of them.
 *
 * <ul>
 *   <li><b>Text</b> that is stored (messages, tool arguments, feedback ids) holds no NUL and no C0
 *       or C1 control character other than tab, LF and CR ({@link ControlCharacters}).
 *   <li><b>Identifiers</b> (the id part of an owner key, conversation and turn ids) are in Unicode
 *       NFC and hold no control, format (Cf, such as U+200B or U+202E), other default-ignorable,
 *       noncharacter (U+FFFF) or whitespace characters (a conversation or turn id may hold the
 *       ASCII space, as it always could); the id of an owner key does not mix Latin with Cyrillic
 *       or Greek letters (UTS #39 "moderately restrictive": {@code user:张三}, {@code line:山田},
 *       {@code user:José} and {@code user:Иван} are keys, {@code user:pаypal} with a Cyrillic
 *       {@code а} is not). The SPI's {@link OwnerKey} keeps its older, wider grammar: plugins and
 *       stored data go on working, and an admin can still erase and export a key stored before
 *       ({@link #storedOwnerKey}).
 * </ul>
 *
 * Thread-safe.
 */
public final class RequestChecks {

  /** Longest conversation or turn id, as the SPI takes it. */
  static final int MAX_ID_LENGTH = 128;

  private static final Normalizer2 NFC = Normalizer2.getNFCInstance();

  /** Immutable once built, and thread-safe for {@code failsChecks} with a result per call. */
  private static final SpoofChecker SCRIPTS =
      new SpoofChecker.Builder()
          .setChecks(SpoofChecker.RESTRICTION_LEVEL | SpoofChecker.MIXED_NUMBERS)
          .setRestrictionLevel(SpoofChecker.RestrictionLevel.MODERATELY_RESTRICTIVE)
          .build();

  private RequestChecks() {}

  /** A conversation or turn id: 1-128 characters, no control characters or slashes. */
  static String id(String field, String id) {
    if (id == null) {
      throw new InvalidRequestException(field, field + " is required");
    }
    if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
      throw new InvalidRequestException(
          field, field + " must be 1-" + MAX_ID_LENGTH + " characters");
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (Character.isISOControl(c) || c == '/' || c == '\\') {
        throw new InvalidRequestException(
            field, field + " must not contain control characters or slashes");
      }
    }
    strictIdentifier(field, id, id, true);
    return id;
  }

  /** A text that must be given (it may be empty) and at most {@code maxLength} characters long. */
  static String text(String field, String text, int maxLength) {
    if (text == null) {
      throw new InvalidRequestException(field, field + " is required");
    }
    if (text.length() > maxLength) {
      throw new InvalidRequestException(
          field, field + " is longer than " + maxLength + " characters (" + text.length() + ")");
    }
    return text;
  }

  /** A {@link #text} that is stored, so held to the text rule too ({@link #storedText}). */
  static String message(String field, String text, int maxLength) {
    return storedText(field, text(field, text, maxLength));
  }

  /**
   * A text that is stored: no NUL and no C0 or C1 control character other than tab, LF and CR.
   *
   * @return {@code text}; {@code null} stays {@code null}
   * @throws InvalidRequestException naming {@code field}
   */
  public static String storedText(String field, String text) {
    String problem = text == null ? null : ControlCharacters.problem(field, text);
    if (problem != null) {
      throw new InvalidRequestException(field, problem);
    }
    return text;
  }

  /**
   * An owner key a request names: the SPI's grammar and the host's identifier rule (NFC; no
   * control, format, default-ignorable, noncharacter or whitespace characters; no Latin mixed with
   * Cyrillic or Greek letters in the id).
   *
   * @throws InvalidRequestException naming {@code field}
   */
  public static OwnerKey ownerKey(String field, String value) {
    OwnerKey owner = storedOwnerKey(field, value);
    String id = owner.id();
    if (!id.isEmpty()) {
      strictIdentifier(field, id, value, false);
      if (SCRIPTS.failsChecks(id, new SpoofChecker.CheckResult())) {
        throw new InvalidRequestException(
            field,
            field
                + " must not mix scripts that look alike (Latin with Cyrillic or Greek letters, or"
                + " digits of different systems) in its id, got: "
                + quote(value));
      }
    }
    return owner;
  }

  /**
   * An owner key by the SPI's grammar only: for an admin's erasure or export of a key stored before
   * the host's identifier rule, which must stay reachable.
   *
   * @throws InvalidRequestException naming {@code field}
   */
  public static OwnerKey storedOwnerKey(String field, String value) {
    if (value == null) {
      throw new InvalidRequestException(field, field + " is required");
    }
    return InvalidRequestException.check(field, () -> OwnerKey.of(value));
  }

  /** A value that must be given. */
  static <T> T required(String field, T value) {
    if (value == null) {
      throw new InvalidRequestException(field, field + " is required");
    }
    return value;
  }

  /**
   * The identifier rule on {@code id} (the whole value, or the id part of an owner key {@code
   * whole}): NFC, and no control, format, default-ignorable, noncharacter, surrogate or whitespace
   * code point ({@code space} lets the ASCII space through).
   */
  private static void strictIdentifier(String field, String id, String whole, boolean space) {
    for (int i = 0; i < id.length(); ) {
      int cp = id.codePointAt(i);
      if (!(space && cp == ' ') && refusedInIdentifier(cp)) {
        throw new InvalidRequestException(
            field,
            field
                + " must not contain control, format, invisible or whitespace characters (U+"
                + String.format("%04X", cp)
                + "), got: "
                + quote(whole));
      }
      i += Character.charCount(cp);
    }
    if (!NFC.isNormalized(id)) {
      throw new InvalidRequestException(
          field,
          field
              + " must be in Unicode normalization form NFC (a precomposed é, not e and a"
              + " combining accent), got: "
              + quote(whole));
    }
  }

  private static boolean refusedInIdentifier(int cp) {
    int type = UCharacter.getType(cp);
    return type == UCharacterCategory.CONTROL
        || type == UCharacterCategory.FORMAT
        || type == UCharacterCategory.SURROGATE
        || type == UCharacterCategory.SPACE_SEPARATOR
        || type == UCharacterCategory.LINE_SEPARATOR
        || type == UCharacterCategory.PARAGRAPH_SEPARATOR
        || UCharacter.isUWhiteSpace(cp)
        || UCharacter.hasBinaryProperty(cp, UProperty.DEFAULT_IGNORABLE_CODE_POINT)
        || UCharacter.hasBinaryProperty(cp, UProperty.NONCHARACTER_CODE_POINT);
  }

  /** {@code value} in quotes, with every character that does not print as {@code \\uXXXX}. */
  static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      int type = Character.getType(c);
      boolean visible =
          c >= 0x20
              && type != Character.CONTROL
              && type != Character.FORMAT
              && type != Character.SURROGATE
              && type != Character.UNASSIGNED
              && type != Character.NON_SPACING_MARK
              && type != Character.SPACE_SEPARATOR
              && type != Character.LINE_SEPARATOR
              && type != Character.PARAGRAPH_SEPARATOR;
      if ((c == ' ' || visible) && c != '"' && c != '\\') {
        out.append(c);
      } else if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.append('"').toString();
  }
}
