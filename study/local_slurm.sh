#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, to try `make slurm` without a real cluster (the tests
# use it too). Needs Debian's slurmctld, slurmd, slurm-client and munge packages:
#   apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge
#
#   source <(study/local_slurm.sh start)   # starts the daemons, prints `export SLURM_CONF=...`
#   study/local_slurm.sh stop
#
# Its state lives in $SLURM_LOCAL_DIR (default /tmp/freeze-study-slurm), wiped at each start. No
# systemd and no cgroups: the daemons run in the background, processes are tracked by /proc.
set -euo pipefail
DIR=${SLURM_LOCAL_DIR:-/tmp/freeze-study-slurm}
CONF=$DIR/slurm.conf

stop() {
  for pid in "$DIR/slurmd.pid" "$DIR/slurmctld.pid"; do
    [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  sleep 1
}

start() {
  for tool in slurmctld slurmd sbatch munged; do
    command -v "$tool" > /dev/null || { echo "local_slurm.sh: $tool is missing; apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge" >&2; exit 2; }
  done
  stop
  rm -rf "$DIR" && mkdir -p "$DIR/state" "$DIR/spool"
  # munge authenticates every message: a key only the munge user can read, and its daemon
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
  fi
  chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge && chown munge:munge /run/munge
  pgrep -x munged > /dev/null || runuser -u munge -- /usr/sbin/munged
  host=$(hostname)
  cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # nproc obeys OMP_NUM_THREADS, which make test sets to 1
  cat > "$CONF" <<EOF
ClusterName=local
SlurmctldHost=$host
SlurmUser=$(id -un)
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdLogFile=$DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$CONF  # without it the clients look the controller up in DNS, and fail
  if scontrol ping 2>/dev/null | grep -q "is UP"; then  # another cluster's controller holds Slurm's ports
    echo "local_slurm.sh: a Slurm controller already answers on this machine; stop it first (SLURM_LOCAL_DIR=its folder $0 stop)" >&2
    exit 1
  fi
  slurmctld -f "$CONF"
  slurmd -f "$CONF"
  for _ in $(seq 50); do  # the node is up when it takes jobs
    sinfo -h -o %t 2>/dev/null | grep -qx "idle" && { echo "export SLURM_CONF=$CONF"; return; }
    sleep 0.2
  done
  echo "local_slurm.sh: the node did not come up; see $DIR/slurmctld.log and $DIR/slurmd.log" >&2
  exit 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: local_slurm.sh start|stop" >&2; exit 2 ;;
esac
