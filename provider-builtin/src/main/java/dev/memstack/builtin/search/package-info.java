/**
 * What both keyword indexes do alike with text: how a file is cut into paragraphs, how text is
 * analysed (whole Latin words, CJK bigrams), a query's terms and a hit's line and snippet.
 */
package dev.memstack.builtin.search;
