-- Schema of the branches scenario, for the reproducers of the cycles the analyzer
-- reports here (cmd/pglockorder TestReproducersOnServer). Row 1 of each table
-- is the row every session locks when each placeholder is 1.
CREATE TABLE tenant_settings (id bigint PRIMARY KEY, tenant_id bigint, synced_at timestamptz);
INSERT INTO tenant_settings VALUES (1, 1, now());
CREATE TABLE tenants (id bigint PRIMARY KEY, synced_at timestamptz);
INSERT INTO tenants VALUES (1, now());
CREATE TABLE workspace_quotas (id bigint PRIMARY KEY, workspace_id bigint, used int);
INSERT INTO workspace_quotas VALUES (1, 1, 0);
CREATE TABLE workspaces (id bigint PRIMARY KEY, synced_at timestamptz);
INSERT INTO workspaces VALUES (1, now());
