CREATE TABLE eo_runners (id bigint PRIMARY KEY, current_build bigint);
CREATE TABLE eo_builds (id bigint PRIMARY KEY, status text, runner_id bigint);
INSERT INTO eo_runners VALUES (1, 1);
INSERT INTO eo_builds VALUES (1, 'running', 1);
CREATE TABLE eo_queues (id bigint PRIMARY KEY);
CREATE TABLE eo_workers (id bigint PRIMARY KEY, queue_id bigint, busy int);
