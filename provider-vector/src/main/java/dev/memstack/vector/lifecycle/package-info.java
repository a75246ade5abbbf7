/**
 * The lifecycle of memory records: importance, weight, nightly decay into the archive, and merge
 * candidates among an owner's records.
 */
package dev.memstack.vector.lifecycle;
