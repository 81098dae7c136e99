-- Schema of the threeway scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE bins (id bigint PRIMARY KEY, qty int);
INSERT INTO bins VALUES (1, 0);
CREATE TABLE pallets (id bigint PRIMARY KEY, qty int, truck_id bigint);
INSERT INTO pallets VALUES (1, 0, 1);
CREATE TABLE trucks (id bigint PRIMARY KEY, load int);
INSERT INTO trucks VALUES (1, 0);
