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

/* The one kernfs root, from kfe_root_init() to kfe_root_exit(). */
struct kernfs_root *kfe_root;

/*
 * The superblock whose mount applied all the options, while it lives: a
 * mount that gets another one is the first of a new superblock.
 */
static struct super_block *kfe_sb;
static DEFINE_MUTEX(kfe_sb_lock);

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

/*
 * The options are applied once kernfs_get_tree() has the superblock,
 * with its s_umount held as a remount holds it: mounts and remounts of
 * the one superblock apply their options one at a time. If they cannot
 * be applied, the mount is dropped, and nothing was changed.
 */
static int kfe_get_tree(struct fs_context *fc)
{
	struct super_block *sb;
	bool new_sb;
	int ret;

	ret = kernfs_get_tree(fc);
	if (ret)
		return ret;
	sb = fc->root->d_sb;

	mutex_lock(&kfe_sb_lock);
	new_sb = kfe_sb != sb;
	mutex_unlock(&kfe_sb_lock);

	ret = kfe_apply_options(fc->fs_private, sb, new_sb);
	if (ret) {
		dput(fc->root);
		fc->root = NULL;
		deactivate_locked_super(sb);
		return ret;
	}

	mutex_lock(&kfe_sb_lock);
	kfe_sb = sb;
	mutex_unlock(&kfe_sb_lock);
	return 0;
}

static int kfe_reconfigure(struct fs_context *fc)
{
	return kfe_apply_options(fc->fs_private, fc->root->d_sb, false);
}

static void kfe_fs_context_free(struct fs_context *fc)
{
	struct kfe_fs_context *ctx = fc->fs_private;

	kernfs_free_fs_context(fc);
	kfree(ctx);
}

static const struct fs_context_operations kfe_fs_context_ops = {
	.parse_param	= kfe_parse_param,
	.get_tree	= kfe_get_tree,
	.reconfigure	= kfe_reconfigure,
	.free		= kfe_fs_context_free,
};

static int kfe_init_fs_context(struct fs_context *fc)
{
	struct kfe_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;

	ctx->kfc.root = kfe_root;
	ctx->kfc.magic = KFE_MAGIC;
	kfe_options_init(&ctx->opts);
	fc->fs_private = ctx;
	fc->ops = &kfe_fs_context_ops;
	fc->global = true;
	return 0;
}

static void kfe_kill_sb(struct super_block *sb)
{
	mutex_lock(&kfe_sb_lock);
	if (kfe_sb == sb)	/* a new superblock may already be mounted */
		kfe_sb = NULL;
	mutex_unlock(&kfe_sb_lock);
	kernfs_kill_sb(sb);
}

struct file_system_type kfe_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "kernfs_events",
	.init_fs_context	= kfe_init_fs_context,
	.parameters		= kfe_fs_parameters,
	.kill_sb		= kfe_kill_sb,
};

static struct kernfs_syscall_ops kfe_syscall_ops = {
	.show_options	= kfe_show_options,
	.populate	= kfe_dir_populate,
	.nr_subdirs	= kfe_dir_nr_subdirs,
};

/**
 * kfe_root_init - create the kernfs root that every mount shows
 *
 * The root leaves KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK off, so that, as in
 * tracefs, root may open a file past its mode (inject for reading,
 * format for writing) and the read or write fails with tracing's errno.
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int kfe_root_init(void)
{
	kfe_options_init(&kfe_opts);
	kfe_root = kernfs_create_root(&kfe_syscall_ops,
				      KERNFS_ROOT_CREATE_DEACTIVATED |
				      KERNFS_ROOT_NO_XATTR, NULL);
	if (IS_ERR(kfe_root))
		return PTR_ERR(kfe_root);

	/* The root itself is empty and complete: show it at once. */
	kernfs_activate(kernfs_root_to_node(kfe_root));
	return 0;
}

/**
 * kfe_root_exit - destroy the kernfs root
 *
 * Called once the filesystem is unregistered: the filesystem type's
 * owner pins the module while any superblock exists, so no mount is
 * left. Destroying the root removes every node and drains operations
 * still in flight on them.
 */
void kfe_root_exit(void)
{
	kernfs_destroy_root(kfe_root);
}
