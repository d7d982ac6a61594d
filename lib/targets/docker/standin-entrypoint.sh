#!/bin/sh
# db-write-lab PostgreSQL stand-in: entrypoint modelled on the official postgres image's.
set -eu

file_env() {
	var="$1"; def="${2:-}"; fileVar="${var}_FILE"
	eval "val=\"\${$var:-}\" fileVal=\"\${$fileVar:-}\""
	if [ -n "$val" ] && [ -n "$fileVal" ]; then
		printf >&2 'error: both %s and %s are set (but are exclusive)\n' "$var" "$fileVar"
		exit 1
	fi
	if [ -z "$val" ]; then
		if [ -n "$fileVal" ]; then val="$(cat "$fileVal")"; else val="$def"; fi
	fi
	export "$var=$val"
	unset "$fileVar"
}

want_help() {
	for arg; do
		case "$arg" in '-?'|--help|--describe-config|-V|--version) return 0 ;; esac
	done
	return 1
}

# Runs SQL from stdin in single-user mode (no psql here); stops at the first error.
single_user_sql() {
	postgres --single -j -D "$PGDATA" -c exit_on_error=on "$1" > /dev/null
}

case "${1:-}" in -*) set -- postgres "$@" ;; esac

if [ "${1:-}" = postgres ] && ! want_help "$@"; then
	file_env POSTGRES_PASSWORD
	file_env POSTGRES_USER postgres
	file_env POSTGRES_DB "$POSTGRES_USER"
	file_env POSTGRES_INITDB_ARGS
	: "${POSTGRES_HOST_AUTH_METHOD:=}"
	export PGDATA="${PGDATA:-/var/lib/postgresql/data}"

	mkdir -p "$PGDATA"
	chmod 00700 "$PGDATA" || :
	mkdir -p /var/run/postgresql || :
	chmod 03775 /var/run/postgresql || :
	if [ -n "${POSTGRES_INITDB_WALDIR:-}" ]; then
		mkdir -p "$POSTGRES_INITDB_WALDIR"
		chmod 700 "$POSTGRES_INITDB_WALDIR"
	fi
	if [ "$(id -u)" = 0 ]; then
		# Started with --user 0: hand everything to postgres and run again as postgres (no gosu here).
		chown -R postgres:postgres "$PGDATA" /var/run/postgresql ${POSTGRES_INITDB_WALDIR:+"$POSTGRES_INITDB_WALDIR"}
		exec su -p -s /bin/sh postgres -c 'exec "$0" "$@"' "$0" "$@"
	fi

	if [ ! -s "$PGDATA/PG_VERSION" ]; then
		if [ -z "$POSTGRES_PASSWORD" ] && [ trust != "$POSTGRES_HOST_AUTH_METHOD" ]; then
			cat >&2 <<-'EOE'
				Error: Database is uninitialized and superuser password is not specified.
				       You must specify POSTGRES_PASSWORD to a non-empty value for the
				       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".

				       You may also use "POSTGRES_HOST_AUTH_METHOD=trust" to allow all
				       connections without a password. This is *not* recommended.
			EOE
			exit 1
		fi
		if [ trust = "$POSTGRES_HOST_AUTH_METHOD" ]; then
			echo >&2 'WARNING: POSTGRES_HOST_AUTH_METHOD is "trust": anyone who reaches the port gets in without a password.'
		fi
		ls /docker-entrypoint-initdb.d/ > /dev/null

		waldir=
		[ -n "${POSTGRES_INITDB_WALDIR:-}" ] && waldir="--waldir=$POSTGRES_INITDB_WALDIR"
		# The official image takes its locale from LANG=en_US.utf8, which this image lacks: UTF8 with
		# the C locale instead, the same on every host (POSTGRES_INITDB_ARGS may override both).
		# --pwfile refuses an empty file, hence the newline; /dev/stdin keeps the password off disk.
		printf '%s\n' "$POSTGRES_PASSWORD" |
			eval 'initdb --username="$POSTGRES_USER" --pwfile=/dev/stdin --encoding=UTF8 --locale=C ${waldir:+"$waldir"} '"$POSTGRES_INITDB_ARGS"

		# Debian's build (the official image) puts the socket here; the embedded build says /tmp.
		sed -i "s|^#\?unix_socket_directories = .*|unix_socket_directories = '/var/run/postgresql'|" "$PGDATA/postgresql.conf"

		# As the official image: host connections use the server's password_encryption method.
		[ "$1" = postgres ] && shift
		auth="$(postgres -C password_encryption "$@")"
		set -- postgres "$@"
		: "${POSTGRES_HOST_AUTH_METHOD:=$auth}"
		{
			printf '\n'
			[ trust = "$POSTGRES_HOST_AUTH_METHOD" ] && printf '# warning trust is enabled for all connections\n'
			printf 'host all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD"
		} >> "$PGDATA/pg_hba.conf"

		case "$POSTGRES_DB" in
			postgres|template0|template1) ;;
			*)
				printf 'CREATE DATABASE "%s";\n\n' "$(printf '%s' "$POSTGRES_DB" | sed 's/"/""/g')" | single_user_sql postgres
				;;
		esac

		for f in /docker-entrypoint-initdb.d/*; do
			[ -e "$f" ] || continue
			case "$f" in
				*.sh)
					if [ -x "$f" ]; then echo "$0: running $f"; "$f"; else echo "$0: sourcing $f"; . "$f"; fi ;;
				*.sql)    echo "$0: running $f"; { cat "$f"; printf '\n;\n\n'; } | single_user_sql "$POSTGRES_DB" ;;
				*.sql.gz) echo "$0: running $f"; { gunzip -c "$f"; printf '\n;\n\n'; } | single_user_sql "$POSTGRES_DB" ;;
				*.sql.xz) echo "$0: running $f"; { xzcat "$f"; printf '\n;\n\n'; } | single_user_sql "$POSTGRES_DB" ;;
				*)        echo "$0: ignoring $f" ;;
			esac
		done

		printf '\nPostgreSQL init process complete; ready for start up.\n\n'
	else
		printf '\nPostgreSQL Database directory appears to contain a database; Skipping initialization\n\n'
	fi
fi

exec "$@"
