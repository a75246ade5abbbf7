/**
 * Rules over short memory texts in English and Chinese: {@link
 * dev.memstack.vector.text.Supersession} (is a new statement a duplicate, an update of a value, or
 * unrelated) and {@link dev.memstack.vector.text.ReplyFiller} (is an assistant reply only an
 * acknowledgement).
 */
package dev.memstack.vector.text;
