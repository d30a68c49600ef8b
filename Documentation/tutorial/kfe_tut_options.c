// SPDX-License-Identifier: GPL-2.0
/*
 * More kernfs: mount options, end to end.
 *
 * The fs_context parses the options, kernfs_get_tree() finds or makes
 * the superblock, and the options are applied when it is new, or by a
 * remount; kernfs_syscall_ops->show_options reports them in
 * /proc/mounts. This module does without the tutorial's helper: the
 * helper's fs_context takes no options.
 */
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#define KFE_TUT_OPTIONS_MAGIC	0x6b667475	/* "kftu", as the helper's */
#define KFE_TUT_DEFAULT_MODE	0755		/* kernfs's mode for a root */
#define KFE_TUT_DEFAULT_GREETING "hello"

enum { KFE_TUT_OPT_MODE, KFE_TUT_OPT_GREETING };

static const struct fs_parameter_spec kfe_tut_options_params[] = {
	fsparam_u32oct("mode",		KFE_TUT_OPT_MODE),
	fsparam_string("greeting",	KFE_TUT_OPT_GREETING),
	{}
};

struct kfe_tut_options {
	umode_t mode;
	char greeting[16];
};

/* kernfs_get_tree() takes fc->fs_private as its kernfs_fs_context. */
struct kfe_tut_options_ctx {
	struct kernfs_fs_context kfc;
	struct kfe_tut_options opts;
	unsigned int given;	/* BIT(KFE_TUT_OPT_*) of the options given */
};

static struct kernfs_root *kfe_tut_options_root;

/*
 * The options in effect. Mounts and remounts apply them with the
 * superblock's s_umount held, but show_options and the greeting file
 * run without it: the mutex keeps them whole.
 */
static DEFINE_MUTEX(kfe_tut_options_mutex);
static struct kfe_tut_options kfe_tut_options = {
	.mode		= KFE_TUT_DEFAULT_MODE,
	.greeting	= KFE_TUT_DEFAULT_GREETING,
};

static int kfe_tut_options_parse(struct fs_context *fc,
				 struct fs_parameter *param)
{
	struct kfe_tut_options_ctx *ctx = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	/* -ENOPARAM for an option not in the table: the VFS reports it. */
	opt = fs_parse(fc, kfe_tut_options_params, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case KFE_TUT_OPT_MODE:
		if (result.uint_32 & ~0777)
			return invalfc(fc, "Invalid mode '%s'", param->string);
		ctx->opts.mode = result.uint_32;
		break;
	case KFE_TUT_OPT_GREETING:
		if (strscpy(ctx->opts.greeting, param->string,
			    sizeof(ctx->opts.greeting)) < 0)
			return invalfc(fc, "Greeting too long");
		break;
	}
	ctx->given |= BIT(opt);
	return 0;
}

/* Apply the options given, or with @all every option of @ctx. */
static int kfe_tut_options_apply(struct kfe_tut_options_ctx *ctx, bool all)
{
	struct kernfs_node *top = kernfs_root_to_node(kfe_tut_options_root);
	struct iattr ia = { .ia_valid = ATTR_MODE };
	int ret = 0;

	mutex_lock(&kfe_tut_options_mutex);
	if (all || ctx->given & BIT(KFE_TUT_OPT_MODE)) {
		ia.ia_mode = S_IFDIR | ctx->opts.mode;
		ret = kernfs_setattr(top, &ia);	/* may fail: -ENOMEM */
		if (ret)
			goto out;
		kfe_tut_options.mode = ctx->opts.mode;
	}
	if (all || ctx->given & BIT(KFE_TUT_OPT_GREETING))
		strscpy(kfe_tut_options.greeting, ctx->opts.greeting,
			sizeof(kfe_tut_options.greeting));
out:
	mutex_unlock(&kfe_tut_options_mutex);
	return ret;
}

/*
 * One root, fc->global: every mount shares one superblock. Only the
 * mount that creates it applies its options, with the defaults for the
 * options it does not give; a later mount's options are ignored.
 */
static int kfe_tut_options_get_tree(struct fs_context *fc)
{
	struct kfe_tut_options_ctx *ctx = fc->fs_private;
	struct super_block *sb;
	int ret;

	ret = kernfs_get_tree(fc);
	if (ret || !ctx->kfc.new_sb_created)
		return ret;

	ret = kfe_tut_options_apply(ctx, true);
	if (ret) {
		/* kernfs_get_tree() returns the superblock locked. */
		sb = fc->root->d_sb;
		dput(fc->root);
		fc->root = NULL;
		deactivate_locked_super(sb);
	}
	return ret;
}

/* mount -o remount: change only what is given. */
static int kfe_tut_options_reconfigure(struct fs_context *fc)
{
	return kfe_tut_options_apply(fc->fs_private, false);
}

static void kfe_tut_options_free(struct fs_context *fc)
{
	struct kfe_tut_options_ctx *ctx = fc->fs_private;

	kernfs_free_fs_context(fc);
	kfree(ctx);
}

static const struct fs_context_operations kfe_tut_options_context_ops = {
	.parse_param	= kfe_tut_options_parse,
	.get_tree	= kfe_tut_options_get_tree,
	.reconfigure	= kfe_tut_options_reconfigure,
	.free		= kfe_tut_options_free,
};

static int kfe_tut_options_init_fs_context(struct fs_context *fc)
{
	struct kfe_tut_options_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;

	ctx->kfc.root = kfe_tut_options_root;
	ctx->kfc.magic = KFE_TUT_OPTIONS_MAGIC;
	ctx->opts.mode = KFE_TUT_DEFAULT_MODE;
	strscpy(ctx->opts.greeting, KFE_TUT_DEFAULT_GREETING,
		sizeof(ctx->opts.greeting));
	fc->fs_private = ctx;
	fc->ops = &kfe_tut_options_context_ops;
	fc->global = true;
	return 0;
}

static struct file_system_type kfe_tut_options_type = {
	.owner			= THIS_MODULE,
	.name			= "kfe_tut_options",
	.init_fs_context	= kfe_tut_options_init_fs_context,
	.parameters		= kfe_tut_options_params,
	.kill_sb		= kernfs_kill_sb,
};

/*
 * For /proc/mounts, after the VFS's own options: those that differ
 * from the defaults. Called from super_operations, without an active
 * reference of any node.
 */
static int kfe_tut_options_show(struct seq_file *sf, struct kernfs_root *root)
{
	mutex_lock(&kfe_tut_options_mutex);
	if (kfe_tut_options.mode != KFE_TUT_DEFAULT_MODE)
		seq_printf(sf, ",mode=%o", kfe_tut_options.mode);
	if (strcmp(kfe_tut_options.greeting, KFE_TUT_DEFAULT_GREETING))
		seq_show_option(sf, "greeting", kfe_tut_options.greeting);
	mutex_unlock(&kfe_tut_options_mutex);
	return 0;
}

static struct kernfs_syscall_ops kfe_tut_options_scops = {
	.show_options	= kfe_tut_options_show,
};

static int kfe_tut_greeting_show(struct seq_file *sf, void *v)
{
	mutex_lock(&kfe_tut_options_mutex);
	seq_printf(sf, "%s\n", kfe_tut_options.greeting);
	mutex_unlock(&kfe_tut_options_mutex);
	return 0;
}

static const struct kernfs_ops kfe_tut_greeting_ops = {
	.seq_show	= kfe_tut_greeting_show,
};

static int __init kfe_tut_options_init(void)
{
	struct kernfs_root *root;
	struct kernfs_node *kn;
	int ret;

	root = kernfs_create_root(&kfe_tut_options_scops,
				  KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK, NULL);
	if (IS_ERR(root))
		return PTR_ERR(root);
	kfe_tut_options_root = root;

	kn = __kernfs_create_file(kernfs_root_to_node(root), "greeting", 0444,
				  GLOBAL_ROOT_UID, GLOBAL_ROOT_GID, 0,
				  &kfe_tut_greeting_ops, NULL, NULL, NULL);
	ret = PTR_ERR_OR_ZERO(kn);
	if (ret)
		goto err_destroy;
	kernfs_activate(kernfs_root_to_node(root));

	ret = register_filesystem(&kfe_tut_options_type);
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	kernfs_destroy_root(root);
	return ret;
}

static void __exit kfe_tut_options_exit(void)
{
	unregister_filesystem(&kfe_tut_options_type);
	kernfs_destroy_root(kfe_tut_options_root);
}

module_init(kfe_tut_options_init);
module_exit(kfe_tut_options_exit);

MODULE_DESCRIPTION("kernfs tutorial: mount options, end to end");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
