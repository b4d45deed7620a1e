# Sourced by run.sh and admin.sh: the settings `make run` keeps, for the server and for admin commands.
# - DATABASE_URL unset: start (or reuse) a private PostgreSQL cluster under $data/pg and use its `loopwork`
#   database; its URL is also written to $data/run.env, so that it can be exported by hand.
# - LOOPWORK_ENCRYPTION_KEY / LOOPWORK_ANON_KEY unset: generate them once and keep them in $data/secrets.env,
#   so restarts keep working sessions, keys and sealed secrets.
# Expects $here (this folder) and $data (the data folder) to be set; sets private_cluster when it used one.
mkdir -p "$data"
private_cluster=""
if [ -z "${DATABASE_URL:-}" ]; then
  private_cluster=1
  "$here/pg.sh" start "$data/pg" dev >/dev/null
  "$here/pg.sh" createdb "$data/pg" loopwork
  base=$("$here/pg.sh" url "$data/pg")
  export DATABASE_URL="${base%/postgres?sslmode=disable}/loopwork?sslmode=disable"
  (umask 077 && echo "DATABASE_URL=$DATABASE_URL" > "$data/run.env")
  echo "PostgreSQL: private cluster in $data/pg ($DATABASE_URL); stop it with: make db-stop" >&2
fi

secrets="$data/secrets.env"
if [ ! -f "$secrets" ]; then
  (
    umask 077
    echo "LOOPWORK_ENCRYPTION_KEY=$(head -c 32 /dev/urandom | base64)"
    echo "LOOPWORK_ANON_KEY=lw-anon-$(head -c 24 /dev/urandom | base64 | tr -d '/+=')"
  ) > "$secrets"
  chmod 600 "$secrets"
fi
# Split at the first "=" only: base64 values end in "=" padding that read's field splitting would drop.
while IFS= read -r line; do
  k=${line%%=*}; v=${line#*=}
  [ -n "${!k:-}" ] || export "$k=$v"
done < "$secrets"
