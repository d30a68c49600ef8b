#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# uid=, gid=, mode= and size= as user space sees them: /proc/mounts,
# ownership of every node, remount semantics, users' chmod and chown,
# what an unprivileged user may read, and bad options. Leaves the module
# mounted at $KFE_MNT with default options and kfe_synth unloaded.
. "$(dirname "$0")/../lib/ktap.sh"
exec 3>&2	# the cases' counts, beside the document
synth=$KFE_MNT/synth
ev=$synth/sys0/event0
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
in_group() { setpriv --reuid=65534 --regid=65534 --groups="$1" "${@:2}"; }
# The options of the mount at $1 (or $KFE_MNT) as /proc/mounts shows
# them: a builtin loop, as each program started costs the emulated guest
# a good part of a second.
opts() {
	local mnt o
	while read -r _ mnt _ o _; do
		[ "$mnt" = "${1:-$KFE_MNT}" ] && echo "$o"
	done </proc/self/mounts
}
# The owners "uid:gid" of the nodes under $1 (the whole mount unless
# given), each once: one walk of the mirror, about 18,000 nodes.
owners() { find "${1:-$KFE_MNT}" -printf '%U:%G\n' | sort -u; }
# remount(2) with exactly the options given: mount(8) would add those
# shown in /proc/mounts, and so give uid= and gid= again.
raw_remount() {
	python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT = 32
ok = libc.mount(b"none", sys.argv[1].encode(), None, MS_REMOUNT, sys.argv[2].encode()) == 0
sys.exit(0 if ok else ctypes.get_errno())' "$KFE_MNT" "$1"
}

ktap_begin kfe_mount_options
rmmod kfe_synth 2>/dev/null
insmod "$KFE_TOP/kfe_synth.ko" nr_systems=1 nr_events=2 || ktap_result synth_loads 1

defaults_shown() {
	[ "$(stat -c %a "$KFE_MNT")" = 700 ] &&
		! opts | grep -qE 'uid=|gid=|mode=|size=' &&
		[ "$(owners)" = 0:0 ]
}
ktap_case defaults_root_owned_and_not_shown defaults_shown

remount_applies_to_every_node() {
	mount -o remount,uid=1000,gid=2000,mode=0750 "$KFE_MNT" &&
		opts | grep -q 'uid=1000,gid=2000,mode=750' &&
		[ "$(stat -c %a "$KFE_MNT")" = 750 ] &&
		[ "$(owners)" = 1000:2000 ] || { opts; owners; return 1; }
}
ktap_case remount_sets_owner_of_every_node remount_applies_to_every_node

new_nodes_follow_options() {
	echo 'add newsys newev' >"$synth/control" &&
		[ "$(stat -c %u:%g "$synth/newsys/newev/format")" = 1000:2000 ]
}
ktap_case new_nodes_get_the_options_owner new_nodes_follow_options

user_changes_persist_until_option_given() {
	chown 7:8 "$ev/format" && chmod 0400 "$ev/id" &&
		raw_remount "" &&
		[ "$(stat -c %u:%g "$ev/format")" = 7:8 ] &&
		raw_remount size=page &&
		[ "$(stat -c %u:%g "$ev/format")" = 7:8 ] &&
		raw_remount gid=2000,size=exact &&
		[ "$(stat -c %u:%g "$ev/format")" = 7:2000 ] &&
		raw_remount uid=1000 &&
		[ "$(stat -c %u:%g "$ev/format")" = 1000:2000 ] &&
		[ "$(stat -c %a "$ev/id")" = 400 ] || { stat "$ev/format" "$ev/id"; return 1; }
}
ktap_case chown_persists_until_remount_sets_option user_changes_persist_until_option_given

second_mount_is_a_remount() {
	local second=$TMPDIR/kfe-second rc
	mkdir -p "$second" && mount -t kernfs_events -o gid=3000 none "$second" &&
		[ "$(stat -c %g "$ev/enable")" = 3000 ] &&
		opts "$second" | grep -q gid=3000
	rc=$?
	umount "$second"
	return $rc
}
ktap_case second_mount_applies_its_options second_mount_is_a_remount

# A remount applies its owner to every node at once, so the root and
# the synthetic tree show whether a bad one changed anything.
bad_options_fail_and_change_nothing() {
	local before bad rc=0
	before=$(opts; stat -c %u:%g:%a "$KFE_MNT"; owners "$synth")
	for bad in size=huge uid=-1 uid=4294967295 gid=abc mode=8 mode=17777 \
		frobnicate=1 noexist size=zero,nosuch=1 uid=5,gid=x; do
		dmesg -C
		if mount -o "remount,uid=0,$bad" "$KFE_MNT" 2>/dev/null; then
			echo "remount with $bad succeeded"; rc=1
		fi
		dmesg | grep -q kernfs_events || { echo "no message for $bad"; rc=1; }
		[ "$(opts; stat -c %u:%g:%a "$KFE_MNT"; owners "$synth")" = "$before" ] ||
			{ echo "$bad changed the mount"; rc=1; }
	done
	return $rc
}
ktap_case bad_option_fails_with_message_and_changes_nothing bad_options_fail_and_change_nothing

access_follows_mode_and_gid() {
	mount -o remount,uid=0,gid=4000,mode=0700 "$KFE_MNT" || return 1
	# mode= closes the root: nobody, even in the group, may enter.
	in_group 4000 ls "$KFE_MNT" >/dev/null 2>&1 && { echo "mode=0700 not enforced"; return 1; }
	in_group 4000 ls "$KFE_MNT" 2>&1 | grep -q 'Permission denied' || return 1
	mount -o remount,mode=0755 "$KFE_MNT" || return 1
	# format is 0440 root:4000: the group reads it, others may not.
	in_group 4000 cat "$ev/format" >/dev/null || { echo "group cannot read"; return 1; }
	nobody cat "$ev/format" 2>&1 | grep -q 'Permission denied' || { echo "other can read"; return 1; }
	# enable is 0640: the group may read but not write.
	in_group 4000 sh -c "echo 1 > $ev/enable" 2>&1 | grep -q 'Permission denied' ||
		{ echo "group can write"; return 1; }
	[ "$(cat "$ev/enable")" = 0 ]
}
ktap_case unprivileged_access_follows_mode_and_gid access_follows_mode_and_gid

root_writes_past_mode() {
	# As in tracefs, CAP_DAC_OVERRIDE lets root past a chmod-ed mode
	# (no KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK); other users stay out.
	chmod 0440 "$ev/enable" &&
		echo 1 > "$ev/enable" && [ "$(cat "$ev/enable")" = 1 ] &&
		echo 0 > "$ev/enable" &&
		nobody sh -c "echo 1 > $ev/enable" 2>&1 | grep -q 'Permission denied' &&
		chmod 0640 "$ev/enable"
}
ktap_case root_writes_past_mode_as_in_tracefs root_writes_past_mode

fresh_mount_resets_defaults() {
	umount "$KFE_MNT" && mount -t kernfs_events kernfs_events "$KFE_MNT" &&
		[ "$(stat -c %a "$KFE_MNT")" = 700 ] && ! opts | grep -qE 'gid=|mode=' &&
		[ "$(owners)" = 0:0 ] || { opts; owners; return 1; }
}
ktap_case new_superblock_takes_defaults fresh_mount_resets_defaults

# Two first mounts at once: the one whose superblock it is applies
# every option, the other only those it gives, so neither resets the
# other's. Counts the rounds in which both mounts were made: 6 in make
# check, 20 in make stress (KFE_STRESS=full).
racing_first_mounts_keep_both_options() {
	local a=$TMPDIR/kfe_race_a b=$TMPDIR/kfe_race_b i made=0 rc=0 rounds=6
	[ "${KFE_STRESS:-}" = full ] && rounds=20
	mkdir -p "$a" "$b"
	umount "$KFE_MNT" || return 1
	for i in $(seq $rounds); do
		mount -t kernfs_events -o uid=7 x "$a" & mount -t kernfs_events -o size=zero x "$b" & wait
		mountpoint -q "$a" && mountpoint -q "$b" && made=$((made + 1))
		case ",$(opts "$a")," in
		*,uid=7,*size=zero,*) ;;
		*) echo "round $i: $(opts "$a")"; rc=1 ;;
		esac
		[ "$(find "$a/synth" -printf '%U\n' | sort -u)" = 7 ] || { echo "round $i: owners"; rc=1; }
		umount "$a"; umount "$b"
	done
	echo "# racing first mounts: $made of $rounds rounds made both" >&3
	mount -t kernfs_events kernfs_events "$KFE_MNT"
	[ "$made" = $rounds ] || { echo "$made of $rounds rounds made both mounts"; rc=1; }
	return $rc
}
ktap_case racing_first_mounts_keep_both_options racing_first_mounts_keep_both_options

rmmod kfe_synth
ktap_end
