/**
 * The {@link dev.memstack.outbox.journal.SharedJournal} on PostgreSQL ({@link
 * dev.memstack.outbox.postgres.PostgresJournal}): records, lane leases ({@code PostgresLeases}),
 * the cross-host backlog ({@code PostgresBacklog}), append notifications and the schema ({@link
 * dev.memstack.outbox.postgres.PostgresOutboxSchema}), on a database the host hands over as an
 * {@link dev.memstack.outbox.postgres.OutboxDatabase}.
 */
package dev.memstack.outbox.postgres;
