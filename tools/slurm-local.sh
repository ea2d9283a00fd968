#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for testing rlx's `backend: slurm` (and for trying
# it out): `bash tools/slurm-local.sh start` installs Debian's slurm-wlm and munge if missing,
# writes a slurm.conf for one node (localhost, with this machine's CPUs and memory), starts
# munged, slurmctld and slurmd, and waits until `sinfo` shows the node idle.
# `bash tools/slurm-local.sh stop` stops the three daemons; `status` says what runs.
# Idempotent: `start` on a running cluster checks it and returns. Needs root (apt-get, daemons).
#
# Gotchas met on Debian bookworm (slurm-wlm 22.05) in a container, which the choices below avoid:
# - No systemd in a container: the packages' units never start, so the daemons are started here
#   directly (slurmctld/slurmd fork into the background by themselves; munged too).
# - munged refuses to start without /run/munge (owned by munge), which nothing creates when
#   systemd is absent; its key (/etc/munge/munge.key) is made by the munge package's install.
# - Cgroups are not usable in most containers: ProctrackType=proctrack/linuxproc and
#   TaskPlugin=task/none keep slurmd away from them (proctrack/cgroup makes slurmd exit at start).
# - The node's name is `localhost`, not the machine's host name: slurmd is started with
#   `-N localhost` so it does not look itself up under the host name.
# - sacct needs slurmdbd (and a database) to have anything to say: with
#   AccountingStorageType=accounting_storage/none it answers "Slurm accounting storage is
#   disabled". So `rlx sweep --status` reads squeue (pending and running tasks) and the run
#   directories (finished, failed, stopped) instead.
# - Memory as a consumable resource (CR_Core_Memory) would give a job without --mem the whole
#   node's memory, one task at a time; DefMemPerCPU shares it out per CPU instead.
# - A slurm.conf that this script did not write (a real cluster's) is never replaced: it must
#   start with the marker line below.
set -euo pipefail

CONF_DIR=/etc/slurm
CONF=$CONF_DIR/slurm.conf
MARKER='# written by rlx tools/slurm-local.sh'
STATE=/var/spool/slurm-rlx
LOGS=/var/log/slurm-rlx

say() { echo "slurm-local: $*"; }
die() { echo "slurm-local: $*" >&2; exit 1; }

need_root() { [ "$(id -u)" = 0 ] || die "run as root (it installs packages and starts daemons)"; }

install_packages() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null && command -v munged >/dev/null; then
    say "slurm-wlm and munge are installed"
    return
  fi
  say "installing slurm-wlm and munge (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
}

write_config() {
  if [ -f "$CONF" ] && ! head -n 1 "$CONF" | grep -qF "$MARKER"; then
    die "$CONF exists and was not written by this script (a real cluster's?); not replacing it"
  fi
  local cpus mem_mb def_mem
  cpus=$(nproc)
  # slurmd refuses a node whose RealMemory exceeds what it finds: leave a little room.
  mem_mb=$(( $(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo) * 95 / 100 ))
  def_mem=$(( mem_mb / cpus ))
  mkdir -p "$CONF_DIR" "$STATE/ctld" "$STATE/d" "$LOGS"
  local tmp="$CONF.tmp.$$"
  cat >"$tmp" <<EOF
$MARKER: a single-node cluster for tests
ClusterName=rlx-local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$def_mem
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MpiDefault=none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  if [ -f "$CONF" ] && cmp -s "$tmp" "$CONF"; then
    rm -f "$tmp"
    say "$CONF is up to date ($cpus CPUs, $mem_mb MB)"
  else
    mv "$tmp" "$CONF"
    say "wrote $CONF ($cpus CPUs, $mem_mb MB)"
  fi
}

# The daemons are found by their pid files (never by name: another Slurm may run here).
pidfile() {
  case "$1" in
    munged) echo /run/munge/munged.pid ;;
    slurmctld) echo "$STATE/slurmctld.pid" ;;
    slurmd) echo "$STATE/slurmd.pid" ;;
  esac
}
pid_of() { local f; f=$(pidfile "$1"); [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"; }
running() { pid_of "$1" >/dev/null; }

start_daemons() {
  if running munged; then say "munged is running"; else
    mkdir -p /run/munge && chown munge:munge /run/munge && chmod 0755 /run/munge
    say "starting munged"
    runuser -u munge -- /usr/sbin/munged
  fi
  if running slurmctld; then say "slurmctld is running"; else
    say "starting slurmctld (log: $LOGS/slurmctld.log)"
    slurmctld
  fi
  if running slurmd; then say "slurmd is running"; else
    say "starting slurmd (log: $LOGS/slurmd.log)"
    slurmd -N localhost
  fi
}

wait_idle() {
  say "waiting for the node to be idle"
  for _ in $(seq 1 60); do
    local state
    state=$(sinfo --noheader --nodes=localhost --format=%T 2>/dev/null || true)
    case "$state" in
      idle|mixed|allocated) say "node localhost is $state; submit with sbatch"; return ;;
    esac
    sleep 1
  done
  die "the node did not come up; see $LOGS/slurmctld.log and $LOGS/slurmd.log (sinfo says: ${state:-nothing})"
}

stop_daemons() {
  for daemon in slurmd slurmctld munged; do
    local pid
    if pid=$(pid_of "$daemon"); then
      say "stopping $daemon (pid $pid)"
      kill "$pid" || true
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    fi
  done
  say "stopped"
}

case "${1:-}" in
  start) need_root; install_packages; write_config; start_daemons; wait_idle ;;
  stop) need_root; stop_daemons ;;
  status)
    for daemon in munged slurmctld slurmd; do
      if running "$daemon"; then say "$daemon runs"; else say "$daemon does not run"; fi
    done
    if running slurmctld; then sinfo; fi ;;
  *) echo "usage: bash tools/slurm-local.sh start|stop|status" >&2; exit 2 ;;
esac
