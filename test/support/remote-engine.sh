#!/bin/bash
# A stand-in "remote Docker host" on this machine, for the remote-engine tests: a network namespace
# with its own veth address, its own dockerd (data root, exec root, socket, pid file) and an sshd
# whose authorized key points `docker` at that dockerd (PermitUserEnvironment + environment=...).
# The lab, in the root namespace, then uses DOCKER_HOST=ssh://root@<address> and must never touch
# the local engine. Traffic goes to this namespace only.
#
#   remote-engine.sh up DIR     prints KEY=value lines (address, socket, client HOME) on success;
#                               exits 2 with a reason where it cannot be made here (no root, no
#                               netns, no sshd, no dockerd)
#   remote-engine.sh down DIR   stops sshd and dockerd, deletes the namespace and DIR
#   remote-engine.sh engine-stop DIR / engine-start DIR
#                               stops the namespace's dockerd (its containers stop with it) and
#                               starts it again, sshd left running (the fault matrix's "engine stopped")
#
# DBLAB_REMOTE_NS (namespace name, ≤ 11 characters) and DBLAB_REMOTE_NET (first three octets of
# a private /24 that collides with nothing here; the next /24 up is the namespace's docker bridge)
# let parallel users pick their own. DBLAB_REMOTE_OWNER: the pid whose end makes the namespace a
# leftover that a later `up` reclaims (default: the process that runs `up`).
set -euo pipefail

cmd=${1:-}
dir=${2:-}
ns=${DBLAB_REMOTE_NS:-dblabremote}
net=${DBLAB_REMOTE_NET:-10.231.16}
bridge_net="${net%.*}.$((${net##*.} + 1))"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 up|down DIR" >&2; exit 64; }

cannot() { echo "cannot make a remote engine here: $*" >&2; exit 2; }

down() {
  # Only the namespace this DIR's `up` made (netns.name), never whatever DBLAB_REMOTE_NS says now:
  # two helpers' `down` without their variables once named the default namespace, which might have
  # been another run's; and an `up` whose `ip netns add` failed must not delete the one that exists.
  local made=""
  [ -s "$dir/netns.name" ] && made=$(cat "$dir/netns.name")
  for pidfile in "$dir/sshd.pid" "$dir/dockerd.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    # dockerd stops its containers first (up to their stop timeout): wait, then insist.
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  # Whatever dockerd left mounted under its roots (overlay layers, netns bind mounts).
  local exec_root=""
  [ -s "$dir/exec.root" ] && exec_root=$(cat "$dir/exec.root")
  for root in "$dir" $exec_root; do
    [ -d "$root" ] || continue
    { grep -o " $root/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  done
  [ -n "$exec_root" ] && rm -rf "$exec_root"
  # Every process still in the namespace: sshd's per-connection sessions outlive their listener
  # (seen: one orphaned "sshd: root@notty" per test run, in a namespace already deleted).
  if [ -n "$made" ]; then
    ip netns pids "$made" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$made" 2>/dev/null || true
    ip link del "$made-h" 2>/dev/null || true
    rm -f "/run/dblab-$made.owner"
  fi
  rm -rf "$dir"
}

# The namespace's dockerd (also what `engine-start` runs again after `engine-stop`).
start_dockerd() {
  local tls="$dir/tls"
  # The exec root holds containerd's Unix sockets (…/containerd/containerd.sock.ttrpc), whose paths
  # may not exceed 107 bytes. Under DIR, in the own TMPDIR `npm test` gives a file run beside others
  # (/tmp/dblab-t-XXXXXX/NNN/tmp/dblab-fault-matrix-XXXXXX/engine), that is 105 bytes: any TMPDIR
  # longer than /tmp would break it. A short one per namespace, whose name `down` reads from DIR.
  local exec_root="/run/dblab-$ns"
  echo "$exec_root" >"$dir/exec.root"
  # nsenter, not `ip netns exec`: the latter remounts /sys, and dockerd would not see the cgroups.
  nsenter --net="/run/netns/$ns" dockerd \
    --data-root "$dir/docker-data" --exec-root "$exec_root" --pidfile "$dir/dockerd.pid" \
    -H "unix://$dir/docker.sock" -H "tcp://$net.2:2376" \
    --tlsverify --tlscacert "$tls/ca.pem" --tlscert "$tls/server-cert.pem" --tlskey "$tls/server-key.pem" \
    --bip "$bridge_net.1/24" --cgroup-parent "$ns" \
    >>"$dir/dockerd.log" 2>&1 &
  for _ in $(seq 1 150); do
    DOCKER_HOST="unix://$dir/docker.sock" docker info >/dev/null 2>&1 && break
    sleep 0.2
  done
  DOCKER_HOST="unix://$dir/docker.sock" docker info >/dev/null 2>&1 || cannot "dockerd did not answer: $(tail -5 "$dir/dockerd.log")"
}

# The engine stopped as an operator stops it (SIGTERM: dockerd stops its containers, then exits),
# sshd still up: the host answers, its engine does not.
engine_stop() {
  [ -s "$dir/dockerd.pid" ] || { echo "no dockerd.pid in $dir" >&2; exit 1; }
  local pid
  pid=$(cat "$dir/dockerd.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
}

# A process's start time (field 22 of /proc/PID/stat, after the parenthesised name, which may hold
# spaces): with the pid, it names a process, whose pid a later one may reuse.
proc_start() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }

# Why namespace $1 of ours is left over, or nothing (exit 1) while it serves a live run: nothing runs in
# it (its run was killed before its `down`, or the machine's processes were), or the process that made
# it is gone while its sshd and dockerd run on (a test killed by SIGTERM or SIGKILL never reaches its
# `after`: seen after a CI run was stopped). A namespace with no owner file (made by hand) is not ours.
left_over() {
  local other=$1 pid start
  if [ -z "$(ip netns pids "$other" 2>/dev/null)" ]; then echo "nothing ran in it"; return 0; fi
  [ -s "/run/dblab-$other.owner" ] || return 1
  read -r pid start _ <"/run/dblab-$other.owner"
  [ -n "$pid" ] && [ "$(proc_start "$pid")" = "$start" ] && return 1
  echo "process $pid, which made it, is gone"
}

# A namespace of ours that `left_over` names: its host-side veth still holds the /24, and the route to
# a dead link would make ssh wait forever. Stopped as its own `down` would (dockerd stops its
# containers), then whatever still runs in it is killed.
reclaim_if_dead() {
  local link=$1 other=${1%-h} why owned_dir=""
  [ "$link" != "$other" ] && ip netns list | awk '{print $1}' | grep -qx "$other" || return 1
  why=$(left_over "$other") || return 1
  [ -s "/run/dblab-$other.owner" ] && read -r _ _ owned_dir <"/run/dblab-$other.owner"
  [ -n "$owned_dir" ] && [ -s "$owned_dir/netns.name" ] && { (dir=$owned_dir; down) || true; }
  ip netns pids "$other" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  { grep -o " /run/dblab-$other/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  rm -rf "/run/dblab-$other" "/run/dblab-$other.owner"
  ip netns del "$other" 2>/dev/null || true
  ip link del "$link" 2>/dev/null || true
  echo "reclaimed namespace $other ($why: left by a killed run)" >&2
}

# The /24 this namespace takes: DBLAB_REMOTE_NET's, or, where a live namespace holds it (another
# checkout's tests on this machine at the same time: seen when CI ran beside a developer's run),
# the next free one two up (the one above is the namespace's own docker bridge). Under a lock, so
# two `up`s at once do not pick the same one.
choose_net() {
  exec 9>/run/dblab-remote-net.lock
  flock -w 60 9 || cannot "another remote-engine.sh up held /run/dblab-remote-net.lock for 60 s"
  local first=$net taken
  while :; do
    taken=$(ip -o addr show to "$net.0/24" | awk '{print $2}' | head -1)
    [ -z "$taken" ] && break
    reclaim_if_dead "$taken" && continue
    local third=$((${net##*.} + 2))
    [ "$third" -le 252 ] || cannot "no free /24 from $first.0 up ($first.0/24 is on link $taken)"
    echo "$net.0/24 is on link $taken (a run still going): taking ${net%.*}.$third.0/24" >&2
    net="${net%.*}.$third"
  done
  bridge_net="${net%.*}.$((${net##*.} + 1))"
}

up() {
  [ "$(id -u)" = 0 ] || cannot "needs root (network namespaces, dockerd)"
  command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || cannot "no sshd (apt-get install openssh-server)"
  command -v dockerd >/dev/null || cannot "no dockerd (apt-get install docker.io)"
  command -v docker >/dev/null || cannot "no docker CLI (sshd runs 'docker system dial-stdio' for the client)"
  command -v nsenter >/dev/null || cannot "no nsenter (util-linux)"
  mkdir -p "$dir/home/.ssh" /run/sshd
  chmod 700 "$dir/home/.ssh"
  choose_net
  # The same name (a namespace per test process id) left by a killed run of long ago.
  reclaim_if_dead "$ns-h" || true
  ip netns add "$ns" 2>"$dir/netns.err" || cannot "ip netns add failed: $(cat "$dir/netns.err")"
  echo "$ns" >"$dir/netns.name"
  # Its owner: the process that ran this (the test), unless DBLAB_REMOTE_OWNER names another.
  local owner=${DBLAB_REMOTE_OWNER:-$PPID}
  echo "$owner $(proc_start "$owner") $dir" >"/run/dblab-$ns.owner"
  echo "$net" >"$dir/net.prefix"
  ip link add "$ns-h" type veth peer name "$ns-n"
  ip link set "$ns-n" netns "$ns"
  ip addr add "$net.1/24" dev "$ns-h"
  exec 9>&-
  ip link set "$ns-h" up
  ip -n "$ns" addr add "$net.2/24" dev "$ns-n"
  ip -n "$ns" link set "$ns-n" up
  ip -n "$ns" link set lo up

  # TLS for the engine's tcp:// listener (the tcp:// + TLS tests): a CA, the server's certificate
  # for the namespace address, and a client certificate where the CLI looks (~/.docker).
  command -v openssl >/dev/null || cannot "no openssl (for the engine's TLS certificates)"
  tls="$dir/tls" cli="$dir/home/.docker"
  mkdir -p "$tls" "$cli"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$ns test CA" \
    -keyout "$tls/ca-key.pem" -out "$tls/ca.pem" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$net.2" -keyout "$tls/server-key.pem" -out "$tls/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:%s\nextendedKeyUsage=serverAuth\n' "$net.2" >"$tls/server.ext"
  openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca-key.pem" -CAcreateserial -days 2 \
    -extfile "$tls/server.ext" -out "$tls/server-cert.pem" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=client" -keyout "$cli/key.pem" -out "$tls/client.csr" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\n' >"$tls/client.ext"
  openssl x509 -req -in "$tls/client.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca-key.pem" -CAcreateserial -days 2 \
    -extfile "$tls/client.ext" -out "$cli/cert.pem" 2>/dev/null
  cp "$tls/ca.pem" "$cli/ca.pem"

  start_dockerd

  ssh-keygen -q -t ed25519 -N "" -f "$dir/ssh_host_ed25519_key" -C "$ns host"
  ssh-keygen -q -t ed25519 -N "" -f "$dir/home/.ssh/id_ed25519" -C "$ns client"
  echo "environment=\"DOCKER_HOST=unix://$dir/docker.sock\" $(cat "$dir/home/.ssh/id_ed25519.pub")" >"$dir/authorized_keys"
  echo "$net.2 $(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")" >"$dir/home/.ssh/known_hosts"
  cat >"$dir/sshd_config" <<CONF
ListenAddress $net.2
Port 22
HostKey $dir/ssh_host_ed25519_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitUserEnvironment yes
AllowTcpForwarding yes
StrictModes no
UsePAM no
MaxSessions 64
MaxStartups 64
CONF
  nsenter --net="/run/netns/$ns" "$(command -v sshd || echo /usr/sbin/sshd)" -f "$dir/sshd_config" -E "$dir/sshd.log"
  for _ in $(seq 1 50); do [ -s "$dir/sshd.pid" ] && break; sleep 0.1; done
  # OpenSSH takes ~ from the password database, not $HOME: name the client's files.
  ssh -o BatchMode=yes -o ConnectTimeout=20 -o UserKnownHostsFile="$dir/home/.ssh/known_hosts" -i "$dir/home/.ssh/id_ed25519" "root@$net.2" docker info --format '{{.Name}}' >/dev/null 2>"$dir/ssh.err" ||
    cannot "ssh root@$net.2 docker info failed: $(cat "$dir/ssh.err")"
  echo "DBLAB_REMOTE_ADDRESS=$net.2"
  echo "DBLAB_REMOTE_DOCKER_HOST=ssh://root@$net.2"
  echo "DBLAB_REMOTE_SOCKET=unix://$dir/docker.sock"
  echo "DBLAB_REMOTE_HOME=$dir/home"
  echo "DBLAB_REMOTE_TLS_HOST=tcp://$net.2:2376"
  echo "DBLAB_REMOTE_CERT_PATH=$cli"
  echo "DBLAB_REMOTE_NS=$ns"
}

case "$cmd" in
  # A trap, not `up || down`: set -e is off inside a condition.
  up) trap 'rc=$?; [ "$rc" = 0 ] || down; exit "$rc"' EXIT; up ;;
  down) down ;;
  engine-stop) engine_stop ;;
  # The namespace and addresses of this DIR's `up`, whatever the environment says now.
  engine-start) ns=$(cat "$dir/netns.name"); net=$(cat "$dir/net.prefix"); bridge_net="${net%.*}.$((${net##*.} + 1))"; start_dockerd ;;
  *) echo "usage: $0 up|down|engine-stop|engine-start DIR" >&2; exit 64 ;;
esac
