/**
 * An example memstack provider to copy: it keeps each owner's messages in memory and recalls the
 * ones that share words with the query. Two classes: the PF4J extension {@link
 * NotesProviderFactory} and the instance {@link NotesProvider}.
 */
package dev.memstack.notes;
