package rows // want package:"sql=true edges=[0-9]+"

import (
	"context"

	"libs/entjobs/ent"
	"libs/entjobs/ent/job"
)

// LockBatch locks a batch of jobs in whatever order the plan returns them.
func LockBatch(ctx context.Context, tx *ent.Tx, ids []int) error { // want LockBatch:`locks\(.*row:jobs FOR UPDATE`
	_, err := tx.Job.Query().Where(job.IDIn(ids...)).ForUpdate().All(ctx) // want `unordered multi-row lock: SELECT ... FOR UPDATE takes rows of jobs`
	return err
}

// LockBatchOrdered locks the batch in key order: silent.
func LockBatchOrdered(ctx context.Context, tx *ent.Tx, ids []int) error { // want LockBatchOrdered:`locks\(.*row:jobs FOR UPDATE`
	_, err := tx.Job.Query().Where(job.IDIn(ids...)).Order(job.ByID()).ForUpdate().All(ctx)
	return err
}

// LockOne locks one job by key: silent.
func LockOne(ctx context.Context, tx *ent.Tx, id int) error { // want LockOne:`locks\(.*row:jobs FOR UPDATE`
	_, err := tx.Job.Query().Where(job.ID(id)).ForUpdate().Only(ctx)
	return err
}
