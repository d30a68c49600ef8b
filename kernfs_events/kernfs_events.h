/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernfs_events: the trace-event hierarchy served from kernfs nodes.
 *
 * The interface that other modules (the KUnit suites, event sources)
 * call.
 */
#ifndef KERNFS_EVENTS_H
#define KERNFS_EVENTS_H

#include <linux/kernfs.h>

struct file_system_type;

struct kernfs_node *kfe_root_node(void);
struct file_system_type *kfe_filesystem(void);

#endif /* KERNFS_EVENTS_H */
