// SPDX-License-Identifier: GPL-2.0
/*
 * The kernfs_events filesystem type: one kernfs root, shared by every
 * mount, created deactivated so that a subtree becomes visible only when
 * it is complete.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "internal.h"
#include "kernfs_events.h"

static struct kernfs_root *kfe_root;

/**
 * kfe_root_node - the directory at the top of every kernfs_events mount
 *
 * Return: the root's kernfs node; valid while the module is loaded.
 */
struct kernfs_node *kfe_root_node(void)
{
	return kernfs_root_to_node(kfe_root);
}
EXPORT_SYMBOL_GPL(kfe_root_node);

/**
 * kfe_filesystem - the kernfs_events filesystem type
 *
 * For in-kernel mounts with kern_mount(), as the KUnit suites do.
 *
 * Return: the registered file_system_type.
 */
struct file_system_type *kfe_filesystem(void)
{
	return &kfe_fs_type;
}
EXPORT_SYMBOL_GPL(kfe_filesystem);

static void kfe_fs_context_free(struct fs_context *fc)
{
	struct kernfs_fs_context *kfc = fc->fs_private;

	kernfs_free_fs_context(fc);
	kfree(kfc);
}

static const struct fs_context_operations kfe_fs_context_ops = {
	.get_tree	= kernfs_get_tree,
	.free		= kfe_fs_context_free,
};

static int kfe_init_fs_context(struct fs_context *fc)
{
	struct kernfs_fs_context *kfc;

	kfc = kzalloc(sizeof(*kfc), GFP_KERNEL);
	if (!kfc)
		return -ENOMEM;

	kfc->root = kfe_root;
	kfc->magic = KFE_MAGIC;
	fc->fs_private = kfc;
	fc->ops = &kfe_fs_context_ops;
	fc->global = true;
	return 0;
}

struct file_system_type kfe_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "kernfs_events",
	.init_fs_context	= kfe_init_fs_context,
	.kill_sb		= kernfs_kill_sb,
};

/**
 * kfe_fs_init - create the kernfs root and register the filesystem
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int kfe_fs_init(void)
{
	int ret;

	kfe_root = kernfs_create_root(NULL, KERNFS_ROOT_CREATE_DEACTIVATED |
				      KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK, NULL);
	if (IS_ERR(kfe_root))
		return PTR_ERR(kfe_root);

	/* The root itself is empty and complete: show it at once. */
	kernfs_activate(kernfs_root_to_node(kfe_root));

	ret = register_filesystem(&kfe_fs_type);
	if (ret)
		kernfs_destroy_root(kfe_root);
	return ret;
}

/**
 * kfe_fs_exit - unregister the filesystem and destroy the kernfs root
 *
 * The filesystem type's owner pins the module while any superblock
 * exists, so no mount is left when this runs. Destroying the root
 * removes every node and drains operations still in flight on them.
 */
void kfe_fs_exit(void)
{
	unregister_filesystem(&kfe_fs_type);
	kernfs_destroy_root(kfe_root);
}
