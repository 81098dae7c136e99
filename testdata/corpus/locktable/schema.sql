-- Schema of the locktable scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE ta (id bigint PRIMARY KEY, v int);
INSERT INTO ta VALUES (1, 0);
CREATE TABLE tb (id bigint PRIMARY KEY, v int);
INSERT INTO tb VALUES (1, 0);
CREATE TABLE tc (id bigint PRIMARY KEY);
CREATE TABLE td (id bigint PRIMARY KEY);
