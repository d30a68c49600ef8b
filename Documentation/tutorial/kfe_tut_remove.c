// SPDX-License-Identifier: GPL-2.0
/*
 * Step 5 of the kernfs tutorial: removing nodes while they are in use.
 *
 *   victim/data      a file to hold open
 *   remove_victim    writing to it removes victim/
 *   self_destruct    writing to it removes self_destruct itself
 *
 * kernfs_remove() waits for every operation running on the removed nodes
 * and makes later operations on their open files fail with -ENODEV. A
 * node removing itself from its own ->write would wait for itself, so it
 * uses kernfs_remove_self() instead.
 */
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfe_tut_fs.h"

/*
 * One lockdep class per file: lockdep then treats each file's active
 * references as a lock and reports a method that waits for the removal
 * of its own file, instead of letting it hang.
 */
static struct lock_class_key kfe_tut_data_key;
static struct lock_class_key kfe_tut_remove_victim_key;
static struct lock_class_key kfe_tut_self_destruct_key;

static int kfe_tut_data_show(struct seq_file *sf, void *v)
{
	seq_puts(sf, "still here\n");
	return 0;
}

static const struct kernfs_ops kfe_tut_data_ops = {
	.seq_show	= kfe_tut_data_show,
};

static ssize_t kfe_tut_remove_victim_write(struct kernfs_open_file *of,
					   char *buf, size_t bytes, loff_t off)
{
	/* By name: a second write finds nothing, instead of a freed node. */
	int ret = kernfs_remove_by_name(of->kn->parent, "victim");

	return ret ?: bytes;
}

static const struct kernfs_ops kfe_tut_remove_victim_ops = {
	.write		= kfe_tut_remove_victim_write,
};

static ssize_t kfe_tut_self_destruct_write(struct kernfs_open_file *of,
					   char *buf, size_t bytes, loff_t off)
{
	/* Only one of several racing writers wins the removal. */
	if (!kernfs_remove_self(of->kn))
		return -ENODEV;
	return bytes;
}

static const struct kernfs_ops kfe_tut_self_destruct_ops = {
	.write		= kfe_tut_self_destruct_write,
};

static int kfe_tut_remove_populate(struct kernfs_node *top)
{
	struct kernfs_node *dir, *kn;

	dir = kernfs_create_dir(top, "victim", 0755, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	kn = __kernfs_create_file(dir, "data", 0444, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_data_ops,
				  NULL, NULL, &kfe_tut_data_key);
	if (IS_ERR(kn))
		return PTR_ERR(kn);
	kn = __kernfs_create_file(top, "remove_victim", 0200, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0,
				  &kfe_tut_remove_victim_ops, NULL, NULL,
				  &kfe_tut_remove_victim_key);
	if (IS_ERR(kn))
		return PTR_ERR(kn);
	kn = __kernfs_create_file(top, "self_destruct", 0200, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0,
				  &kfe_tut_self_destruct_ops, NULL, NULL,
				  &kfe_tut_self_destruct_key);
	return PTR_ERR_OR_ZERO(kn);
}

static struct kfe_tut_fs kfe_tut_remove_fs = {
	.name		= "kfe_tut_remove",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_remove_populate,
};

static int __init kfe_tut_remove_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_remove_fs);
}

static void __exit kfe_tut_remove_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_remove_fs);
}

module_init(kfe_tut_remove_init);
module_exit(kfe_tut_remove_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 5: removal while in use");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
