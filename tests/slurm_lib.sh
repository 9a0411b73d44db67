# tests/slurm_lib.sh: a single-node Slurm of its own in a temporary directory, for tests/slurm.sh
# (the CPU tier) and tests/gpu/slurm_gres.sh (GPUs through GRES). Sourced, not run:
#   slurm_from_debs DIR P    unpacks the .deb files of DIR into P (no install, no root needed) and
#                            uses Slurm from there: for a machine without Slurm or a network
#   slurm_missing            prints why Slurm cannot start here (nothing when it can)
#   slurm_start DIR FILE...  writes DIR/slurm.conf and DIR/gres.conf (one GPU per device FILE,
#                            none when no FILE is given), starts slurmctld and slurmd in the
#                            foreground of background processes, exports SLURM_CONF, waits until
#                            the node takes jobs; returns 1 (with the daemons' logs on stderr) when
#                            it does not
#   slurm_stop               cancels the jobs left (waiting up to 45 s for them to end: KillWait is
#                            30 s), then ends the two daemons started here (by their process ids)
#   slurm_wait_done JOB S    waits (up to S seconds) until JOB and its array's tasks have left the
#                            queue; 1 when they have not
# The daemons run as the user who runs the test, root included (a root CI has no other user to
# give them; a user's own slurmd can run that user's jobs only, which is all a test submits).
# Authentication is auth/none: no munge daemon or key, and nothing listens beyond 127.0.0.1's
# two ports, chosen free. Slurm's own time-limit check runs every 30 s (slurmctld's
# PERIODIC_TIMEOUT), so a job of --time=1 ends 60 to 90 s after it starts.

SLURM_PIDS=""

slurm_from_debs() {
	SLURM_PREFIX=$2
	mkdir -p "$SLURM_PREFIX"
	for f in "$1"/*.deb; do
		dpkg -x "$f" "$SLURM_PREFIX" || return 1
	done
	# Debian names the daemons NAME-wlm and links NAME to them through update-alternatives
	for f in "$SLURM_PREFIX"/usr/sbin/*-wlm; do
		[ -e "${f%-wlm}" ] || ln -s "$(basename "$f")" "${f%-wlm}"
	done
	lib=$SLURM_PREFIX/usr/lib/x86_64-linux-gnu
	LD_LIBRARY_PATH=$lib/slurm-wlm:$lib:$SLURM_PREFIX/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	PATH=$SLURM_PREFIX/usr/sbin:$SLURM_PREFIX/usr/bin:$PATH
	export SLURM_PREFIX LD_LIBRARY_PATH PATH
}

slurm_plugindir() {
	for d in ${SLURM_PREFIX:+$SLURM_PREFIX/usr/lib/x86_64-linux-gnu/slurm-wlm} /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/aarch64-linux-gnu/slurm-wlm /usr/lib64/slurm /usr/lib/slurm \
		 /usr/local/lib/slurm; do
		[ -e "$d/auth_none.so" ] && { echo "$d"; return 0; }
	done
	return 1
}

slurm_missing() {
	for c in slurmctld slurmd slurmstepd sbatch squeue scontrol sinfo; do
		command -v "$c" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$c" >/dev/null 2>&1 ||
			{ echo "no $c (apt-get install slurmctld slurmd slurm-client)"; return 0; }
	done
	slurm_plugindir >/dev/null || echo "this Slurm has no auth/none plugin (auth_none.so) to run without munge"
}

# a TCP port of 127.0.0.1 that nothing listens on now
slurm_free_port() {
	p=$1
	while [ "$p" -lt 65000 ]; do
		hex=$(printf '%04X' "$p")
		if ! grep -q ":$hex 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
			echo "$p"
			return 0
		fi
		p=$((p + 1))
	done
	return 1
}

slurm_start() {
	SLURM_DIR=$1
	shift
	PATH=$PATH:/usr/sbin:/sbin
	export PATH
	mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool"
	base=$((20000 + $$ % 20000))
	ctld_port=$(slurm_free_port "$base") && d_port=$(slurm_free_port $((ctld_port + 1))) || return 1
	me=$(id -un)
	host=$(hostname -s)
	ngpus=$#
	gres=""
	: >"$SLURM_DIR/gres.conf"
	for f in "$@"; do
		echo "Name=gpu File=$f" >>"$SLURM_DIR/gres.conf"
	done
	[ "$ngpus" -gt 0 ] && gres="Gres=gpu:$ngpus"
	# CPUs: 8 whatever the machine has (config_overrides), so that an array's tasks run at once on
	# two cores; each task's work is sleeping fake workers or one GPU's
	cat >"$SLURM_DIR/slurm.conf" <<EOF
ClusterName=autotune-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=$me
SlurmdUser=$me
AuthType=auth/none
CredType=cred/none
PluginDir=$(slurm_plugindir)
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=30
MinJobAge=600
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000 $gres State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	# no plugin here tracks or limits with cgroups, but slurmd opens the cgroup plugin at start, and
	# 22.05's cgroup/v2 (autodetected on a v2-only host) fails there without systemd's D-Bus: v1
	# opens anywhere and is never used
	echo "CgroupPlugin=cgroup/v1" >"$SLURM_DIR/cgroup.conf"
	SLURM_CONF=$SLURM_DIR/slurm.conf
	export SLURM_CONF
	slurmctld -D -i -f "$SLURM_CONF" >"$SLURM_DIR/slurmctld.out" 2>&1 &
	SLURM_PIDS="$!"
	# slurmstepd named: one unpacked by slurm_from_debs is not where slurmd was built to look
	slurmd -D -f "$SLURM_CONF" -d "$(command -v slurmstepd)" >"$SLURM_DIR/slurmd.out" 2>&1 &
	SLURM_PIDS="$SLURM_PIDS $!"
	# the node takes jobs once slurmd has registered with slurmctld
	i=0
	while [ $i -lt 600 ]; do
		state=$(sinfo -h -N -n "$host" -o %t 2>/dev/null || true)
		[ "$state" = idle ] && return 0
		case "$state" in inval* | drain* | down*) [ $i -gt 100 ] && break ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	echo "Slurm did not start (node state '${state:-none}'):" >&2
	tail -n 20 "$SLURM_DIR/slurmctld.log" "$SLURM_DIR/slurmd.log" "$SLURM_DIR/slurmctld.out" "$SLURM_DIR/slurmd.out" >&2 2>/dev/null
	return 1
}

slurm_stop() {
	# the jobs first, while slurmd still runs: their slurmstepd and processes would outlive it
	if [ -n "$SLURM_PIDS" ]; then
		scancel --quiet --user="$(id -un)" 2>/dev/null
		i=0
		while [ $i -lt 450 ] && [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	for p in $SLURM_PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $SLURM_PIDS; do
		wait "$p" 2>/dev/null
	done
	SLURM_PIDS=""
}

slurm_wait_done() {
	i=0
	while [ $i -lt $(($2 * 10)) ]; do
		[ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
