-- Schema of the advisory scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE search_indexes (id bigint PRIMARY KEY, state text);
INSERT INTO search_indexes VALUES (1, '1');
CREATE TABLE report_rows (id bigint PRIMARY KEY, stale boolean);
INSERT INTO report_rows VALUES (1, false);
