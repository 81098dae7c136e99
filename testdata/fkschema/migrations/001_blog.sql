-- The blog's tables. Foreign keys make PostgreSQL lock rows the queries do
-- not name: see blog.go.
CREATE TABLE posts (id bigint PRIMARY KEY, title text);
CREATE TABLE comments (id serial PRIMARY KEY, post_id bigint NOT NULL REFERENCES posts (id), body text);
CREATE TABLE likes (id serial PRIMARY KEY, post_id bigint NOT NULL, liked_at timestamptz DEFAULT now());
CREATE TABLE audit (id bigint PRIMARY KEY, events bigint NOT NULL DEFAULT 0);
CREATE TABLE counters (id bigint PRIMARY KEY, n bigint NOT NULL DEFAULT 0);
