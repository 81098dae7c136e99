-- Schema of the exclusion scenario, for the reproducers of the cycles the
-- analyzer reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of
-- each table is the row every session locks when each placeholder is 1.
CREATE TABLE x_log (id bigint PRIMARY KEY, claimed boolean);
INSERT INTO x_log VALUES (1, false);
CREATE TABLE x_a (id bigint PRIMARY KEY, v int);
INSERT INTO x_a VALUES (1, 0);
CREATE TABLE x_b (id bigint PRIMARY KEY, v int);
INSERT INTO x_b VALUES (1, 0);
CREATE TABLE y_log (id bigint PRIMARY KEY);
CREATE TABLE y_a (id bigint PRIMARY KEY, v int);
INSERT INTO y_a VALUES (1, 0);
CREATE TABLE y_b (id bigint PRIMARY KEY, v int);
INSERT INTO y_b VALUES (1, 0);
