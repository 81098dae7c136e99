-- +goose Up
-- +goose StatementBegin
-- claim_job serialises claims on an advisory key, marks the job claimed,
-- then counts the claim: the job's row before the totals row.
CREATE FUNCTION claim_job(p_id bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(9001);
  UPDATE jobs SET state = 'claimed' WHERE id = p_id;
  UPDATE job_totals SET claimed = claimed + 1 WHERE id = 1;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION claim_job(bigint);
