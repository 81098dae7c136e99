-- Schema of the wrapper scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE members (id bigint PRIMARY KEY, role text, team_id bigint);
INSERT INTO members VALUES (1, '1', 1);
CREATE TABLE teams (id bigint PRIMARY KEY, disbanded boolean, lead_id bigint);
INSERT INTO teams VALUES (1, false, 1);
