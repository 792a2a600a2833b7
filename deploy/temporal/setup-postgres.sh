#!/bin/sh
# Creates Temporal's two databases on PostgreSQL and brings their schemas to the server's version,
# with the server's own sql tool. Idempotent: run it before every start (and after every server
# upgrade); an existing database is kept and only missing schema versions are applied.
#
# Run by `npm run fleet` (tools/fleet) and by the `temporal-schema` service of docker-compose.yml.
#
# Environment (defaults in brackets):
#   SQL_TOOL [temporal-sql-tool]   SCHEMA_DIR [/etc/temporal/schema/postgresql/v12]: the server
#   module's schema/postgresql/v12 (the admin-tools image has it at the default)
#   TEMPORAL_DB_HOST [127.0.0.1]  TEMPORAL_DB_PORT [5432]  TEMPORAL_DB_USER [temporal]
#   TEMPORAL_DB_PASSWORD [temporal]  TEMPORAL_DB_NAME [temporal]
#   TEMPORAL_VISIBILITY_DB_NAME [temporal_visibility]
set -eu

SQL_TOOL="${SQL_TOOL:-temporal-sql-tool}"
SCHEMA_DIR="${SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"

# The sql tool reads its connection from these.
export SQL_PLUGIN=postgres12
export SQL_HOST="${TEMPORAL_DB_HOST:-127.0.0.1}"
export SQL_PORT="${TEMPORAL_DB_PORT:-5432}"
export SQL_USER="${TEMPORAL_DB_USER:-temporal}"
export SQL_PASSWORD="${TEMPORAL_DB_PASSWORD:-temporal}"

setup() {
  db="$1"
  versioned="$2"
  # Creates the database, or finds it there (the tool treats "already exists" as done).
  "$SQL_TOOL" --database "$db" create-database
  echo "database $db exists"
  # Version tables, at 0.0 on a new database; a database past 0.0 is left as it is.
  "$SQL_TOOL" --database "$db" setup-schema -v 0.0
  # Every versioned step newer than the database's version, in order.
  "$SQL_TOOL" --database "$db" update-schema -d "$versioned"
  echo "database $db is at the schema of $versioned"
}

setup "${TEMPORAL_DB_NAME:-temporal}" "$SCHEMA_DIR/temporal/versioned"
setup "${TEMPORAL_VISIBILITY_DB_NAME:-temporal_visibility}" "$SCHEMA_DIR/visibility/versioned"
