# Sourced, not run: `start_throwaway_cluster PREFIX` installs PostgreSQL from Debian's packages
# when missing and starts a throwaway cluster on a free loopback port (from 55432) in
# /tmp/PREFIX.XXXXXX, as `postgres` when run as root (PostgreSQL refuses to run as root), with
# fsync off; the cluster is stopped and removed when the script exits. It sets pg_bin, as_owner,
# workdir, data, port and admin_password (random, for the caller's admin role), server_env (the
# environment the server runs with: prefix a later pg_ctl with it) and lc_messages, and defines
# psql_super (psql as the superuser over the private socket) and create_sync_database. With
# THROWAWAY_LC_MESSAGES set (say de_DE.UTF-8) the server speaks that language when localedef can
# build the locale (privately, under the work directory, found through LOCPATH); lc_messages then
# names it, else it is empty. Used by scripts/ci/sync.sh, Sync/scripts/dev.sh and
# Sync/scripts/bench.sh.

start_throwaway_cluster() {
    if ! compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null; then
        echo "Installing postgresql…"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
    fi
    pg_bin="$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d | sort -V | tail -n 1)"

    # As root the cluster belongs to `postgres`; as anyone else, to the caller.
    as_owner=()
    if [ "$(id -u)" = 0 ]; then
        as_owner=(runuser -u postgres --)
    fi

    # In /tmp, not $TMPDIR: the `postgres` user must be able to reach it (and the socket path
    # must stay under 108 bytes).
    workdir="$(mktemp -d "/tmp/$1.XXXXXX")"
    data="$workdir/data"
    trap stop_throwaway_cluster EXIT
    trap 'exit 130' INT TERM
    if [ "$(id -u)" = 0 ]; then chown postgres "$workdir"; fi
    chmod 700 "$workdir"

    # Another worktree's run may hold the first port: take the first free one from 55432.
    port=55432
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        port=$((port + 1))
    done

    admin_password="$(head -c 18 /dev/urandom | base64 | tr -d '+/=')"
    local superuser_password
    superuser_password="$(head -c 18 /dev/urandom | base64 | tr -d '+/=')"
    printf '%s\n' "$superuser_password" >"$workdir/superuser-password"
    if [ "$(id -u)" = 0 ]; then chown postgres "$workdir/superuser-password"; fi

    server_env=(env)
    local server_options=""
    lc_messages=""
    if [ -n "${THROWAWAY_LC_MESSAGES:-}" ] && command -v localedef >/dev/null; then
        local name="$THROWAWAY_LC_MESSAGES"
        mkdir -p "$workdir/locales"
        localedef -i "${name%%.*}" -f "${name#*.}" "$workdir/locales/$name" >"$workdir/localedef.log" 2>&1 || true
        if [ -f "$workdir/locales/$name/LC_MESSAGES/SYS_LC_MESSAGES" ]; then
            chmod -R a+rX "$workdir/locales"
            server_env=(env "LOCPATH=$workdir/locales")
            server_options="-c lc_messages=$name"
            lc_messages="$name"
        fi
    fi

    # Local (socket, in the private temp dir) connections trust the cluster's owner; TCP needs SCRAM.
    "${as_owner[@]}" "$pg_bin/initdb" -D "$data" -U postgres --pwfile="$workdir/superuser-password" \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$workdir/initdb.log" 2>&1 ||
        { cat "$workdir/initdb.log" >&2; exit 1; }
    "${as_owner[@]}" "${server_env[@]}" "$pg_bin/pg_ctl" -D "$data" -l "$workdir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$workdir -c fsync=off $server_options" \
        start >/dev/null ||
        { cat "$workdir/server.log" >&2; exit 1; }
}

stop_throwaway_cluster() {
    if [ -f "$data/postmaster.pid" ]; then
        "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$workdir"
}

psql_super() { "${as_owner[@]}" "$pg_bin/psql" -h "$workdir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }

# `create_sync_database NAME` creates the admin role `coffer_admin` (CREATEROLE: it creates and
# revokes device roles) and database NAME owned by it, and sets admin_url to reach it as that role.
create_sync_database() {
    psql_super -d postgres <<SQL
CREATE ROLE coffer_admin LOGIN CREATEROLE PASSWORD '$admin_password';
CREATE DATABASE $1 OWNER coffer_admin;
SQL
    admin_url="postgres://coffer_admin:$admin_password@127.0.0.1:$port/$1"
}
