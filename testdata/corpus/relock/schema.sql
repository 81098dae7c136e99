-- Schema of the relock scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE matches (id bigint PRIMARY KEY);
INSERT INTO matches VALUES (1);
CREATE TABLE match_conditions (id bigint PRIMARY KEY, match_id bigint);
INSERT INTO match_conditions VALUES (1, 1);
-- repro: matches_id_list={1}
-- repro: match_conditions_match_id_list={1}
