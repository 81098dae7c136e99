-- The database of the dbcode scenario for the replay on a real server
-- (cmd/pglockorder TestReproducersOnServer): the tables and their rows,
-- without the functions and triggers, which each reproducer creates. Row 1
-- of each table is the row every session locks when each placeholder is 1.
CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL DEFAULT 'queued');
CREATE TABLE job_totals (id bigint PRIMARY KEY, claimed bigint NOT NULL DEFAULT 0);
CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL DEFAULT 0);
CREATE TABLE ledgers (id bigint PRIMARY KEY, total bigint NOT NULL DEFAULT 0);
CREATE TABLE payments (id bigserial PRIMARY KEY, account_id bigint NOT NULL, amount bigint NOT NULL, note text);
INSERT INTO jobs VALUES (1);
INSERT INTO job_totals VALUES (1);
INSERT INTO accounts VALUES (1);
INSERT INTO ledgers VALUES (1);
INSERT INTO payments (account_id, amount) VALUES (1, 1);
