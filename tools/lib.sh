# SPDX-License-Identifier: GPL-2.0
# Shared settings for the tools: where the kernel source and builds live.
# Sourced, not run.

KFE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KFE_CACHE=${KFE_CACHE:-$HOME/.cache/kernfs-events}
KFE_TARBALL=/usr/src/linux-source-6.12.tar.xz
KFE_SRC=$KFE_CACHE/linux-source-6.12

# kfe_build_dir FLAVOUR: the O= directory of a test-kernel flavour.
kfe_build_dir() {
	echo "$KFE_CACHE/build-$1"
}

kfe_say() {
	printf '[%s] %s\n' "$(basename "$0")" "$*" >&2
}

kfe_die() {
	kfe_say "error: $*"
	exit 1
}
