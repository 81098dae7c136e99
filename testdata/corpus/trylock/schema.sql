-- Schema of the trylock scenario, for the reproducers of the cycles the
-- analyzer reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of
-- each table is the row every session locks when each placeholder is 1.
CREATE TABLE caches (id bigint PRIMARY KEY, stale boolean, rebuilt_at timestamptz);
INSERT INTO caches VALUES (1, false, now());
CREATE TABLE cache_stats (id bigint PRIMARY KEY, refreshed int);
INSERT INTO cache_stats VALUES (1, 0);
CREATE TABLE reports (id bigint PRIMARY KEY, compacted boolean, published boolean);
INSERT INTO reports VALUES (1, false, false);
CREATE TABLE jobs (id bigint PRIMARY KEY);
INSERT INTO jobs VALUES (1);
CREATE TABLE job_runs (id bigint PRIMARY KEY, state text);
INSERT INTO job_runs VALUES (1, '');
CREATE TABLE seats (id bigint PRIMARY KEY);
INSERT INTO seats VALUES (1);
CREATE TABLE bookings (id bigint PRIMARY KEY, seat_id bigint);
INSERT INTO bookings VALUES (1, 1);
CREATE TABLE ledgers (id bigint PRIMARY KEY, settled boolean, audited boolean);
INSERT INTO ledgers VALUES (1, false, false);
CREATE TABLE balances (id bigint PRIMARY KEY, amount int, audited boolean);
INSERT INTO balances VALUES (1, 0, false);
CREATE TABLE queue_items (id bigint PRIMARY KEY, state text);
INSERT INTO queue_items VALUES (1, '');
CREATE TABLE queue_counters (id bigint PRIMARY KEY, claimed int);
INSERT INTO queue_counters VALUES (1, 0);
CREATE TABLE cache_wants (id bigint PRIMARY KEY, wanted boolean);
INSERT INTO cache_wants VALUES (1, false);
CREATE TABLE report_skips (id bigint PRIMARY KEY, skipped boolean);
INSERT INTO report_skips VALUES (1, false);
CREATE TABLE job_retries (id bigint PRIMARY KEY, retries int);
INSERT INTO job_retries VALUES (1, 0);
CREATE TABLE audit_logs (id bigint PRIMARY KEY, stamped boolean, audited boolean);
INSERT INTO audit_logs VALUES (1, false, false);
CREATE TABLE audit_marks (id bigint PRIMARY KEY, stamped boolean, audited boolean);
INSERT INTO audit_marks VALUES (1, false, false);
