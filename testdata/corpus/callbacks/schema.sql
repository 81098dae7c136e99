-- Schema of the callbacks scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE tenant_quotas (id bigint PRIMARY KEY, tenant_id bigint, quota int);
INSERT INTO tenant_quotas VALUES (1, 1, 0);
CREATE TABLE tenants (id bigint PRIMARY KEY, name text, suspended boolean);
INSERT INTO tenants VALUES (1, '1', false);
