/**
 * The lifecycle of memory records: importance, weight, reinforcement by recall, nightly decay into
 * the archive, and merge candidates among an owner's records.
 */
package dev.memstack.vector.lifecycle;
