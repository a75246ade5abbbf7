/**
 * Memory jobs started over REST (dreaming, fact extraction): the routes that run a provider job now
 * and report what it did.
 */
package dev.memstack.host.jobs;
