-- +goose Up
-- A job and the execution that runs it name each other. Checked at commit, the job can be written with
-- its execution's id (chosen beforehand) before the execution exists, instead of being written once and
-- then updated to name it: one write of the job row fewer for every job started on a flow.
ALTER TABLE jobs ALTER CONSTRAINT jobs_flow_execution_id_fkey DEFERRABLE INITIALLY DEFERRED;

-- +goose Down
ALTER TABLE jobs ALTER CONSTRAINT jobs_flow_execution_id_fkey NOT DEFERRABLE;
