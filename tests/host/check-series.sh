#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The patch series as a maintainer takes it: the fixes of
# patches/fixes/series, then patches/series, applied with git am, one
# mail at a time, to a git tree of Debian's linux-source-6.12;
# checkpatch --strict on each commit as git format-patch mails it; and
# the kernel compiled with W=1 and -Werror at each prefix that touches
# C code. The cases of a fix are named after its file in patches/fixes/
# with a "fixes_" prefix (applies_with_git_am_fixes_0001), those of the
# series after its file in patches/ (applies_with_git_am_0001).
#
# Both the git tree ($KFE_CACHE/series-git, keyed by the source package
# version) and the build directory ($KFE_CACHE/series-build, keyed by
# the source, the config fragments, the compiler and the make command
# line) are caches made by the first run. Each prefix is compiled once:
# a stamp named after its git tree records the objects that built
# clean, so a later run compiles only the prefixes that a changed patch
# made new. KFE_SERIES_BUILD=0 skips the compile cases.
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../../tools/lib.sh"
cd "$KFE_TOP"

repo=$KFE_CACHE/series-git
build=$KFE_CACHE/series-build
fragments=("$KFE_TOP/tools/config/base.config" "$KFE_TOP/tools/config/release.config")
# The fixes first, then the series: paths relative to patches/.
mapfile -t series < <(grep -v '^$' patches/fixes/series | sed 's|^|fixes/|'
	grep -v '^$' patches/series)
source_version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)

git_q() {
	git -C "$repo" -c core.autocrlf=false "$@"
}

mk() {
	nice -n 10 make -C "$repo" O="$build" ARCH=x86_64 W=1 KCFLAGS=-Werror \
		-j2 -s "$@"
}

# The base commit: the source package, extracted and committed once per
# version. Debian's top-level .gitignore ignores everything but debian/
# ("/*"), so the files are added with -f.
make_base() {
	[ -n "$source_version" ] && [ -f "$KFE_TARBALL" ] ||
		{ echo "linux-source-6.12 is not installed"; return 1; }
	[ "$(cat "$repo/.git/kfe-version" 2>/dev/null)" = "$source_version" ] &&
		git_q rev-parse -q --verify base >/dev/null && return 0

	rm -rf "$repo" "$repo.tmp" "$build"
	mkdir -p "$repo.tmp"
	tar -C "$repo.tmp" -xf "$KFE_TARBALL" || return 1
	mv "$repo.tmp/linux-source-6.12" "$repo" && rmdir "$repo.tmp" || return 1
	git_q init -q -b base &&
		git_q config user.name "kernfs_events check-series" &&
		git_q config user.email "kernfs-events@users.noreply.example" &&
		git_q config gc.auto 0 &&
		git_q add -A -f &&
		git_q commit -q --no-verify -m "linux-source-6.12 $source_version" ||
		return 1
	echo "$source_version" >"$repo/.git/kfe-version"
}

# The build directory: ARCH=x86_64 tinyconfig plus base.config and
# release.config, as tools/kernel-build configures the release kernel,
# and make prepare, once per key.
make_build_dir() {
	local key

	key=$({
		echo "$source_version"
		cat "${fragments[@]}"
		gcc --version | head -n 1
		declare -f mk
	} | sha256sum | cut -c1-16)
	[ "$(cat "$build/.kfe-key" 2>/dev/null)" = "$key" ] && return 0

	rm -rf "$build"
	mkdir -p "$build/.kfe-built"
	git_q checkout -q -f base || return 1
	mk tinyconfig >/dev/null &&
		KCONFIG_CONFIG=$build/.config \
			"$repo/scripts/kconfig/merge_config.sh" -m -O "$build" \
			"$build/.config" "${fragments[@]}" >/dev/null &&
		mk olddefconfig >/dev/null &&
		mk prepare || return 1
	echo "$key" >"$build/.kfe-key"
}

# The branch "series", reset to the base with nothing of an earlier run
# left over: an interrupted git am, or the new files of a patch.
reset_series() {
	git_q am --abort >/dev/null 2>&1
	git_q checkout -q -f -B series base && git_q clean -q -f -d
}

# applies_with_git_am PATCH: the mail applies, and git parsed its From,
# Date and Subject as the commit's author, date and subject.
applies_with_git_am() {
	local p=$KFE_TOP/patches/$1 from date subject

	git_q am -q --committer-date-is-author-date "$p" || return 1
	from=$(sed -n 's/^From: //p' "$p" | head -n 1)
	date=$(sed -n 's/^Date: //p' "$p" | head -n 1)
	subject=$(git_q log -1 --format=%s)
	[ "$(git_q log -1 --format='%an <%ae>')" = "$from" ] ||
		{ echo "author '$(git_q log -1 --format='%an <%ae>')' is not '$from'"; return 1; }
	[ "$(git_q log -1 --format=%aD)" = "$date" ] ||
		{ echo "date '$(git_q log -1 --format=%aD)' is not '$date'"; return 1; }
	case $subject in
	"" | "[PATCH"*) echo "subject '$subject' was not parsed"; return 1 ;;
	esac
	if grep -qE '^commit [0-9a-f]{40} upstream\.$' "$p"; then
		git_q log -1 --format=%b | head -n 1 |
			grep -qE '^commit [0-9a-f]{40} upstream\.$' ||
			{ echo "the body does not start with 'commit <sha1> upstream.'"; return 1; }
	fi
	git_q log -1 --format=%b | grep -q '^Signed-off-by: ' ||
		{ echo "no Signed-off-by: in the body"; return 1; }
}

# checkpatch_strict COMMIT: from the top of the kernel tree, as upstream
# checks a mail. A stable backport (its log starts "commit <sha1>
# upstream.") carries the upstream log verbatim, so the checks of the
# log's wording are skipped for it; its code is checked as strictly. In
# a git tree checkpatch also looks up each commit id a log cites; the base
# commit has no history, so no id can be found: UNKNOWN_COMMIT_ID is
# not checked, the form of a citation (GIT_COMMIT_ID) still is.
checkpatch_strict() {
	local ignore=(--ignore UNKNOWN_COMMIT_ID)

	if git_q log -1 --format=%b "$1" | head -n 1 |
		grep -qE '^commit [0-9a-f]{40} upstream\.$'; then
		ignore=(--ignore GIT_COMMIT_ID,UNKNOWN_COMMIT_ID,COMMIT_LOG_LONG_LINE)
	fi
	git_q format-patch -1 --stdout "$1" |
		(cd "$repo" && perl scripts/checkpatch.pl --strict --quiet --terse \
			"${ignore[@]}" -)
}

# objects_of COMMIT: the objects that show that COMMIT's tree compiles:
# each C file it touches and, when it touches a header, fs/kernfs and
# kernel/trace/trace_events.c, a user of kernfs and of tracing.
objects_of() {
	local f header=0

	for f in $(git_q diff-tree --no-commit-id --name-only -r "$1"); do
		case $f in
		*.c) echo "${f%.c}.o" ;;
		*.h) header=1 ;;
		esac
	done
	if [ $header -eq 1 ]; then
		for f in $(cd "$repo" && echo fs/kernfs/*.c); do
			echo "${f%.c}.o"
		done
		echo kernel/trace/trace_events.o
	fi
}

# builds_at: compile $objects at HEAD, unless the same tree has built
# the same objects clean before.
builds_at() {
	local stamp

	stamp=$build/.kfe-built/$(git_q rev-parse 'HEAD^{tree}')
	[ "$(cat "$stamp" 2>/dev/null)" = "$objects" ] && return 0
	mk $objects || return 1
	echo "$objects" >"$stamp"
}

ktap_begin kfe_series

mkdir -p "$KFE_CACHE"
exec 9>"$KFE_CACHE/.series.lock"
flock 9

ktap_case git_tree_of_the_source make_base
base_ok=$?
compile=${KFE_SERIES_BUILD:-1}
build_ok=1
if [ $base_ok -eq 0 ] && [ "$compile" != 0 ]; then
	ktap_case build_directory_prepared make_build_dir
	build_ok=$?
fi
[ $base_ok -eq 0 ] && reset_series

applied=$base_ok
for p in "${series[@]}"; do
	n=${p%%-*}
	n=${n//\//_}
	if [ $applied -ne 0 ]; then
		ktap_result "applies_with_git_am_$n" 1 "not tried: the tree or an earlier patch is missing"
		continue
	fi
	ktap_case "applies_with_git_am_$n" applies_with_git_am "$p"
	applied=$?
	[ $applied -eq 0 ] || continue
	ktap_diag "$(git_q log -1 --format='%h %an, %aD: %s')"
	ktap_case "checkpatch_strict_$n" checkpatch_strict HEAD

	objects=$(objects_of HEAD | sort -u | tr '\n' ' ')
	objects=${objects% }
	[ -n "$objects" ] || continue
	if [ "$compile" = 0 ]; then
		ktap_skip "builds_at_$n" "KFE_SERIES_BUILD=0"
	elif [ $build_ok -ne 0 ]; then
		ktap_result "builds_at_$n" 1 "not tried: no build directory"
	else
		ktap_diag "W=1 -Werror, up to $n applied: $objects"
		ktap_case "builds_at_$n" builds_at
	fi
done

ktap_end
