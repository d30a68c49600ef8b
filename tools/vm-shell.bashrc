# SPDX-License-Identifier: GPL-2.0
# The shell of make vm-shell: a login shell's setup, and a sudo, so that
# the guide's tutorial can be typed as it is printed. The guest has no
# sudo, and its shell already runs as root.
[ -r /etc/profile ] && . /etc/profile
command -v sudo >/dev/null || sudo() { "$@"; }
