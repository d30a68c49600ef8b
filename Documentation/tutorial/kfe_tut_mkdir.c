// SPDX-License-Identifier: GPL-2.0
/*
 * Step 6 of the kernfs tutorial: mkdir and rmdir from user space.
 *
 * kernfs_syscall_ops turn mkdir(2) and rmdir(2) on the filesystem into
 * calls to the module, which decides what a new directory contains:
 * here, a file "name" that shows the directory's name. Directories can
 * only be made at the top.
 */
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfe_tut_fs.h"

static int kfe_tut_name_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;

	/* There is no ->rename, so the parent and its name never change. */
	seq_printf(sf, "%s\n", of->kn->parent->name);
	return 0;
}

static const struct kernfs_ops kfe_tut_name_ops = {
	.seq_show	= kfe_tut_name_show,
};

static int kfe_tut_mkdir(struct kernfs_node *parent, const char *name,
			 umode_t mode)
{
	struct kernfs_node *dir, *kn;

	if (parent->parent)
		return -EPERM;

	dir = kernfs_create_dir(parent, name, mode, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	kn = __kernfs_create_file(dir, "name", 0444, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_name_ops,
				  NULL, NULL, NULL);
	if (IS_ERR(kn)) {
		kernfs_remove(dir);
		return PTR_ERR(kn);
	}
	return 0;
}

static int kfe_tut_rmdir(struct kernfs_node *kn)
{
	/*
	 * The VFS holds an active reference on @kn for this call, and
	 * kernfs_remove() waits for all of them to go: drop ours first.
	 */
	kernfs_break_active_protection(kn);
	kernfs_remove(kn);
	kernfs_unbreak_active_protection(kn);
	return 0;
}

static struct kernfs_syscall_ops kfe_tut_mkdir_scops = {
	.mkdir		= kfe_tut_mkdir,
	.rmdir		= kfe_tut_rmdir,
};

static struct kfe_tut_fs kfe_tut_mkdir_fs = {
	.name		= "kfe_tut_mkdir",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.scops		= &kfe_tut_mkdir_scops,
};

static int __init kfe_tut_mkdir_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_mkdir_fs);
}

static void __exit kfe_tut_mkdir_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_mkdir_fs);
}

module_init(kfe_tut_mkdir_init);
module_exit(kfe_tut_mkdir_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 6: mkdir and rmdir");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
