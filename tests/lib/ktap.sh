# SPDX-License-Identifier: GPL-2.0
# KTAP output for shell checks; sourced. Usage:
#   ktap_begin SUITE
#   ktap_case NAME COMMAND...      # passes if COMMAND succeeds; returns its status
#   ktap_result NAME OK [DIAG]     # OK is 0 (passed) or non-zero
#   ktap_skip NAME REASON          # a case not run, and why
#   ktap_diag TEXT                 # diagnostic lines before the next case
#   ktap_end                       # prints the document, returns 1 on failure
_ktap_cases=()
_ktap_suite=
_ktap_failed=0
_ktap_diag=

ktap_begin() {
	_ktap_suite=$1
	_ktap_cases=()
	_ktap_failed=0
	_ktap_diag=
}

ktap_diag() {
	local d
	while IFS= read -r d; do
		_ktap_diag+="    # $d"$'\n'
	done <<<"$1"
}

ktap_result() {
	local name=$1 ok=$2 diag=${3:-}
	local line
	if [ "$ok" -eq 0 ]; then
		_ktap_cases+=("$_ktap_diag    ok $((${#_ktap_cases[@]} + 1)) $name")
	else
		_ktap_failed=1
		line=$_ktap_diag
		while IFS= read -r d; do
			line+="    # $d"$'\n'
		done <<<"$diag"
		_ktap_cases+=("${line}    not ok $((${#_ktap_cases[@]} + 1)) $name")
	fi
	_ktap_diag=
}

ktap_skip() {
	_ktap_cases+=("$_ktap_diag    ok $((${#_ktap_cases[@]} + 1)) $1 # SKIP $2")
	_ktap_diag=
}

ktap_case() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1) && rc=0 || rc=$?
	ktap_result "$name" "$rc" "$out"
	return $rc
}

ktap_end() {
	local c failed=$_ktap_failed
	printf 'KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: %s\n    1..%d\n' \
		"$_ktap_suite" "${#_ktap_cases[@]}"
	for c in "${_ktap_cases[@]}"; do
		printf '%s\n' "$c"
	done
	[ ${#_ktap_cases[@]} -gt 0 ] || failed=1
	if [ $failed -eq 0 ]; then
		echo "ok 1 $_ktap_suite"
	else
		echo "not ok 1 $_ktap_suite"
	fi
	return $failed
}
