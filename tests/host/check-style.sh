#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's coding gates: checkpatch --strict on every C file (the
# patches: check-series.sh), sparse on every module, kernel-doc on every
# exported or non-static function.
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../../tools/lib.sh"
cd "$KFE_TOP"

checkpatch=$KFE_SRC/scripts/checkpatch.pl
c_files=$(git ls-files '*.c' '*.h')
patches=$(sed "s|^|$KFE_TOP/patches/|" patches/series patches/fixes/series)

ktap_begin kfe_style
[ -n "$c_files" ] && [ -n "$patches" ] || ktap_result files_to_check 1 "no C file or patch is tracked"

ktap_case checkpatch_strict_c_files \
	perl "$checkpatch" --no-tree --strict --quiet --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $c_files

# The patches are checked by check-series.sh, each as git format-patch
# mails it from a git tree of the source, with the exemption a stable
# backport's upstream log needs.

# patches/series lists every patch in patches/ and nothing else, and
# patches/fixes/series every patch in patches/fixes/; the cover letter
# of each, 0000-cover-letter.patch, is the one file it must not list:
# tools/kernel-build and check-series.sh apply what they list.
series_lists_every_patch() {
	local dir f rc=0
	for dir in patches patches/fixes; do
		for f in "$dir"/*.patch; do
			f=${f#"$dir"/}
			if [ "$f" = 0000-cover-letter.patch ]; then
				! grep -qxF "$f" "$dir/series" ||
					{ echo "$dir/series lists the cover letter"; rc=1; }
			elif ! grep -qxF "$f" "$dir/series"; then
				echo "$dir/series does not list $f"
				rc=1
			fi
		done
		for f in $(cat "$dir/series"); do
			[ -f "$dir/$f" ] || { echo "$dir/series lists a missing $f"; rc=1; }
		done
	done
	return $rc
}
ktap_case series_lists_every_patch series_lists_every_patch

sparse_clean() {
	local out
	out=$(make -s sparse 2>&1) || { echo "$out"; return 1; }
	out=$(grep -E 'warning|error' <<<"$out")
	[ -z "$out" ] || { echo "$out"; return 1; }
}
ktap_case sparse_clean sparse_clean

# A non-static function defined at the start of a line must follow a
# kernel-doc block directly, and kernel-doc must find nothing to warn about.
kernel_doc_complete() {
	local rc=0 f
	for f in $(git ls-files '*.c'); do
		awk -v f="$f" '
			/^\/\*\*$/ { indoc = 1 }
			/^ \*\/$/ { if (indoc) docend = NR; indoc = 0 }
			/^[a-z_].*[a-z0-9_]\(/ && !/^static/ && !/;$/ && !/^(module_|MODULE_|EXPORT_|kunit_)/ {
				if (docend != NR - 1 && docend != NR - 2) {
					print f ":" NR ": " $0 ": no kernel-doc"; bad = 1
				}
			}
			END { exit bad }
		' "$f" || rc=1
	done
	perl "$KFE_SRC/scripts/kernel-doc" -none -Wall $(git ls-files '*.c' '*.h') 2>&1 |
		grep . && rc=1
	return $rc
}
ktap_case kernel_doc_complete kernel_doc_complete

ktap_end
