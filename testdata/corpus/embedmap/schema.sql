-- Schema of the embedmap scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE em_builds (id bigint PRIMARY KEY, runner_id bigint, status text);
INSERT INTO em_builds VALUES (1, 1, 'running');
CREATE TABLE em_runners (id bigint PRIMARY KEY, current_build bigint, draining boolean);
INSERT INTO em_runners VALUES (1, 1, false);
