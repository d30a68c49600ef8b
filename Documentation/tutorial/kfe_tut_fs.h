/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernfs tutorial's filesystem helper: one kernfs root served as one
 * filesystem type. Each step of the tutorial is a module that fills in a
 * struct kfe_tut_fs and registers it.
 */
#ifndef KFE_TUT_FS_H
#define KFE_TUT_FS_H

#include <linux/fs.h>
#include <linux/kernfs.h>

/**
 * struct kfe_tut_fs - a filesystem type backed by one kernfs root
 * @name: the filesystem type's name, as given to mount -t
 * @flags: KERNFS_ROOT_* flags of the root
 * @scops: optional mkdir/rmdir/rename methods of the root
 * @populate: builds the initial tree under the root's node; may be NULL
 * @root: the kernfs root, set by kfe_tut_fs_register()
 * @type: the filesystem type, set up by kfe_tut_fs_register()
 */
struct kfe_tut_fs {
	const char *name;
	unsigned int flags;
	struct kernfs_syscall_ops *scops;
	int (*populate)(struct kernfs_node *top);

	struct kernfs_root *root;
	struct file_system_type type;
};

int __kfe_tut_fs_register(struct kfe_tut_fs *fs, struct module *owner);
void kfe_tut_fs_unregister(struct kfe_tut_fs *fs);

/* The calling module owns the filesystem type: mounts pin it. */
#define kfe_tut_fs_register(fs) __kfe_tut_fs_register(fs, THIS_MODULE)

#endif /* KFE_TUT_FS_H */
