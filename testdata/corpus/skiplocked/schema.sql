-- Schema of the skiplocked scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE archives (id bigint PRIMARY KEY);
INSERT INTO archives VALUES (1);
CREATE TABLE ledgers (id bigint PRIMARY KEY);
INSERT INTO ledgers VALUES (1);
