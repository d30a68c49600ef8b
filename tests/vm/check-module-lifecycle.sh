#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's life cycle seen from user space: mounted by tools/vm-run,
# pinned while mounted, one superblock for every mount, clean unload and
# reload. Leaves the module loaded and mounted at $KFE_MNT, as it found it.
. "$(dirname "$0")/../lib/ktap.sh"
ko=$KFE_TOP/kernfs_events.ko
second=$TMPDIR/kfe-second

ktap_begin kfe_module_lifecycle

is_mounted() { # is_mounted DIR: DIR is a kernfs_events mount point
	findmnt -n -t kernfs_events "$1" >/dev/null
}
ktap_case mounted_by_vm_run is_mounted "$KFE_MNT"

root_is_directory() {
	[ "$(stat -c %F "$KFE_MNT")" = directory ] && [ "$(stat -c %i "$KFE_MNT")" -gt 0 ]
}
ktap_case root_is_a_directory root_is_directory

rmmod_refused_while_mounted() {
	! rmmod kernfs_events 2>&1 && grep -q '^kernfs_events ' /proc/modules
}
ktap_case unload_refused_while_mounted rmmod_refused_while_mounted

delete_module_ewouldblock() { # the system call itself, as kmod's rmmod checks first
	python3 -c '
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
rc = libc.syscall(176, b"kernfs_events", os.O_NONBLOCK)  # __NR_delete_module
sys.exit(0 if rc == -1 and ctypes.get_errno() == errno.EWOULDBLOCK else 1)'
}
ktap_case delete_module_ewouldblock_while_mounted delete_module_ewouldblock

mounts_share_superblock() {
	mkdir -p "$second" && mount -t kernfs_events kernfs_events "$second" &&
		[ "$(stat -c %d "$second")" = "$(stat -c %d "$KFE_MNT")" ] &&
		[ "$(stat -c %i "$second")" = "$(stat -c %i "$KFE_MNT")" ]
	local rc=$?
	umount "$second" 2>/dev/null
	return $rc
}
ktap_case mounts_share_one_superblock mounts_share_superblock

unload_after_umount() {
	umount "$KFE_MNT" && rmmod kernfs_events &&
		! grep -q '^kernfs_events ' /proc/modules &&
		! grep -qw kernfs_events /proc/filesystems
}
ktap_case unload_after_umount unload_after_umount

reload_and_mount() {
	insmod "$ko" && grep -qw kernfs_events /proc/filesystems &&
		mount -t kernfs_events kernfs_events "$KFE_MNT" && is_mounted "$KFE_MNT"
}
ktap_case reload_and_mount_again reload_and_mount

# The module's shrinker gives back the nodes of walked directories: unload
# and load again while drop_caches runs it in a loop, after walks that
# gave it nodes to free. The console must stay clean.
unload_during_reclaim() {
	local drops=$TMPDIR/kfe-drops loop i done=0
	: >"$drops"
	(while :; do echo 2 >/proc/sys/vm/drop_caches && echo >>"$drops"; done) &
	loop=$!
	for i in 1 2 3; do
		find "$KFE_MNT/events" >/dev/null && umount "$KFE_MNT" &&
			rmmod kernfs_events && insmod "$ko" &&
			mount -t kernfs_events kernfs_events "$KFE_MNT" || break
		done=$i
	done
	kill "$loop"
	wait "$loop" 2>/dev/null
	ktap_diag "$done unloads beside $(wc -l <"$drops") runs of drop_caches"
	[ "$done" = 3 ] && [ "$(wc -l <"$drops")" -gt 0 ] && is_mounted "$KFE_MNT"
}
ktap_case unload_during_reclaim unload_during_reclaim

ktap_end
