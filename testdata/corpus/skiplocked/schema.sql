-- Schema of the skiplocked scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE archives (id bigint PRIMARY KEY);
INSERT INTO archives VALUES (1);
CREATE TABLE ledgers (id bigint PRIMARY KEY);
INSERT INTO ledgers VALUES (1);
CREATE TABLE job_batches (id bigint PRIMARY KEY, pending int);
INSERT INTO job_batches VALUES (1, 0);
CREATE TABLE jobs (id bigint PRIMARY KEY, batch_id bigint, state text);
INSERT INTO jobs VALUES (1, 1, 'queued');
CREATE TABLE seats (id bigint PRIMARY KEY, held boolean);
INSERT INTO seats VALUES (1, false);
CREATE TABLE bookings (id bigint PRIMARY KEY, seat_id bigint);
INSERT INTO bookings VALUES (1, 1);
CREATE TABLE shards (id bigint PRIMARY KEY, owner text, seen_at timestamptz);
INSERT INTO shards VALUES (1, '', now());
