-- Schema of the pqcopy scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE pc_builds (id bigint PRIMARY KEY, pipeline_id bigint, status text);
INSERT INTO pc_builds VALUES (1, 1, 'running');
CREATE TABLE pc_artifacts (build_id bigint, path text);
