-- +goose Up
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'queued');
CREATE TABLE job_totals (id bigint PRIMARY KEY, claimed bigint NOT NULL DEFAULT 0);
CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL DEFAULT 0);
CREATE TABLE ledgers (id bigint PRIMARY KEY, total bigint NOT NULL DEFAULT 0);
CREATE TABLE payments (id bigserial PRIMARY KEY, account_id bigint NOT NULL, amount bigint NOT NULL, note text);

-- +goose Down
DROP TABLE payments;
DROP TABLE ledgers;
DROP TABLE accounts;
DROP TABLE job_totals;
DROP TABLE jobs;
