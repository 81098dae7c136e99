-- Schema of the sqlc scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint);
INSERT INTO accounts VALUES (1, 1);
CREATE TABLE transfers (id bigint PRIMARY KEY, from_id bigint, to_id bigint, amount bigint);
INSERT INTO transfers VALUES (1, 1, 1, 1);
