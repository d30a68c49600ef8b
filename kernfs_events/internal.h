/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of the kernfs_events module.
 */
#ifndef KERNFS_EVENTS_INTERNAL_H
#define KERNFS_EVENTS_INTERNAL_H

#include <linux/kernfs.h>

#define KFE_MAGIC	0x6b666576	/* "kfev" */

extern struct file_system_type kfe_fs_type;

int kfe_fs_init(void);
void kfe_fs_exit(void);

#endif /* KERNFS_EVENTS_INTERNAL_H */
