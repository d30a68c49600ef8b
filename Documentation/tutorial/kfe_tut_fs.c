// SPDX-License-Identifier: GPL-2.0
/*
 * Step 1 of the kernfs tutorial: a kernfs root mounted as a filesystem.
 *
 * kernfs owns the tree of nodes; what is left for the filesystem is a
 * little fs_context glue. init_fs_context() says which root to mount,
 * and kernfs supplies get_tree and kill_sb. Every later step of the
 * tutorial is its own module and its own filesystem type built with
 * these two functions.
 */
#include <linux/fs_context.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "kfe_tut_fs.h"

#define KFE_TUT_MAGIC	0x6b667475	/* "kftu", reported by statfs() */

static void kfe_tut_fs_context_free(struct fs_context *fc)
{
	struct kernfs_fs_context *kfc = fc->fs_private;

	kernfs_free_fs_context(fc);
	kfree(kfc);
}

static const struct fs_context_operations kfe_tut_fs_context_ops = {
	.get_tree	= kernfs_get_tree,
	.free		= kfe_tut_fs_context_free,
};

static int kfe_tut_init_fs_context(struct fs_context *fc)
{
	struct kfe_tut_fs *fs = container_of(fc->fs_type, struct kfe_tut_fs,
					     type);
	struct kernfs_fs_context *kfc;

	kfc = kzalloc(sizeof(*kfc), GFP_KERNEL);
	if (!kfc)
		return -ENOMEM;

	kfc->root = fs->root;
	kfc->magic = KFE_TUT_MAGIC;
	fc->fs_private = kfc;
	fc->ops = &kfe_tut_fs_context_ops;
	/* One tree for everyone: the superblock belongs to init_user_ns. */
	fc->global = true;
	return 0;
}

/**
 * __kfe_tut_fs_register - build a kernfs tree and offer it as a filesystem
 * @fs: name, root flags, syscall methods and populate callback
 * @owner: the module @fs belongs to, pinned while @fs is mounted
 *
 * Creates the root, lets @fs->populate fill it in, makes the whole tree
 * visible and only then registers the filesystem type, so that no mount
 * ever sees a tree that is still being built.
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno with nothing left behind.
 */
int __kfe_tut_fs_register(struct kfe_tut_fs *fs, struct module *owner)
{
	struct kernfs_node *top;
	int ret;

	fs->root = kernfs_create_root(fs->scops, fs->flags, fs);
	if (IS_ERR(fs->root))
		return PTR_ERR(fs->root);
	top = kernfs_root_to_node(fs->root);

	ret = fs->populate ? fs->populate(top) : 0;
	if (ret)
		goto err_destroy;
	/* Needed with KERNFS_ROOT_CREATE_DEACTIVATED, harmless without. */
	kernfs_activate(top);

	fs->type.owner = owner;
	fs->type.name = fs->name;
	fs->type.init_fs_context = kfe_tut_init_fs_context;
	fs->type.kill_sb = kernfs_kill_sb;
	ret = register_filesystem(&fs->type);
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	kernfs_destroy_root(fs->root);
	return ret;
}
EXPORT_SYMBOL_GPL(__kfe_tut_fs_register);

/**
 * kfe_tut_fs_unregister - undo kfe_tut_fs_register()
 * @fs: the filesystem registered with kfe_tut_fs_register()
 *
 * Called from the owner's module exit, when no superblock is left:
 * mounts pin the owner. Destroying the root removes every node and waits
 * for operations still running on them, so none of the owner's code runs
 * once this returns.
 *
 * Context: process context, may sleep.
 */
void kfe_tut_fs_unregister(struct kfe_tut_fs *fs)
{
	unregister_filesystem(&fs->type);
	kernfs_destroy_root(fs->root);
}
EXPORT_SYMBOL_GPL(kfe_tut_fs_unregister);

MODULE_DESCRIPTION("kernfs tutorial, step 1: a kernfs root as a filesystem");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
