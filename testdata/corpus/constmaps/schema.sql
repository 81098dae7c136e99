-- Schema of the constmaps scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE cm_builds (id bigint PRIMARY KEY, runner_id bigint, status text);
INSERT INTO cm_builds VALUES (1, 1, 'running');
CREATE TABLE cm_runners (id bigint PRIMARY KEY, current_build bigint);
INSERT INTO cm_runners VALUES (1, 1);
