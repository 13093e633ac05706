-- One live run per operation. The run of a job that starts an operation takes a lease on its row
-- (workers/runner.ts): `lease_owner` names the run, `lease_expires_at` is renewed while it works
-- (every third of JOB_LOCK_DURATION_MS) and cleared when the run ends. While the lease is fresh
-- nobody else runs the operation: the reconciler does not re-enqueue it even when Redis lost its
-- job, and a second delivery of its job waits for the lease. A dead run's lease expires, and then
-- the next delivery (a stalled job, or the reconciler's) takes the operation over.
ALTER TABLE operations
  ADD COLUMN lease_owner      text,
  ADD COLUMN lease_expires_at timestamptz;
