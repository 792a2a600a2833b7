-- First start of an empty data volume only (docker-entrypoint-initdb.d), as the superuser.
--
-- The app gets its own role and database; it owns the database, so its migrations (drizzle, run by
-- every API and worker process at start under an advisory lock) can create their schemas and tables,
-- and it can touch nothing of Temporal's. Temporal's `temporal` and `temporal_visibility` databases
-- are created and migrated by the temporalio/auto-setup container with the superuser.
--
-- The password comes from the container's SHIPPING_DB_PASSWORD (psql \getenv, PostgreSQL 15+), so it
-- is written nowhere but the .env file; DATABASE_URL in docker-compose.yml uses the same variable.

\set ON_ERROR_STOP on
\getenv shipping_password SHIPPING_DB_PASSWORD

CREATE ROLE shipping LOGIN PASSWORD :'shipping_password';
CREATE DATABASE shipping OWNER shipping;
REVOKE ALL ON DATABASE shipping FROM PUBLIC;
