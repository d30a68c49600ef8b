// SPDX-License-Identifier: GPL-2.0
/*
 * Step 7 of the kernfs tutorial: publishing a subtree at once.
 *
 * On a KERNFS_ROOT_CREATE_DEACTIVATED root, new nodes stay invisible
 * until kernfs_activate(). Writing NAME to "add" builds NAME/first and
 * NAME/second and shows them together: nobody sees NAME half-built, and
 * if building fails, nobody sees it at all. Writing 0 or 1 to "show"
 * hides or shows the file "secret" with kernfs_show().
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "kfe_tut_fs.h"

static struct kernfs_node *kfe_tut_secret;

static int kfe_tut_leaf_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;

	seq_printf(sf, "%s\n", of->kn->name);
	return 0;
}

static const struct kernfs_ops kfe_tut_leaf_ops = {
	.seq_show	= kfe_tut_leaf_show,
};

static struct kernfs_node *kfe_tut_add_leaf(struct kernfs_node *dir,
					    const char *name)
{
	return __kernfs_create_file(dir, name, 0444, GLOBAL_ROOT_UID,
				    GLOBAL_ROOT_GID, 0, &kfe_tut_leaf_ops,
				    NULL, NULL, NULL);
}

/* kernfs takes any string as a name: refuse what no path can name. */
static bool kfe_tut_name_ok(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") &&
	       !strchr(name, '/');
}

static ssize_t kfe_tut_add_write(struct kernfs_open_file *of, char *buf,
				 size_t bytes, loff_t off)
{
	struct kernfs_node *dir, *kn;
	const char *name = strim(buf);

	if (!kfe_tut_name_ok(name))
		return -EINVAL;

	dir = kernfs_create_dir(of->kn->parent, name, 0755, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);

	kn = kfe_tut_add_leaf(dir, "first");
	if (!IS_ERR(kn))
		kn = kfe_tut_add_leaf(dir, "second");
	if (IS_ERR(kn)) {
		/* Never seen, so removing it cannot race with anyone. */
		kernfs_remove(dir);
		return PTR_ERR(kn);
	}

	kernfs_activate(dir);
	return bytes;
}

static const struct kernfs_ops kfe_tut_add_ops = {
	.write			= kfe_tut_add_write,
	.atomic_write_len	= NAME_MAX,
};

static ssize_t kfe_tut_show_write(struct kernfs_open_file *of, char *buf,
				  size_t bytes, loff_t off)
{
	bool show;
	int ret;

	ret = kstrtobool(buf, &show);
	if (ret)
		return ret;
	kernfs_show(kfe_tut_secret, show);
	return bytes;
}

static const struct kernfs_ops kfe_tut_show_ops = {
	.write		= kfe_tut_show_write,
};

static int kfe_tut_activate_populate(struct kernfs_node *top)
{
	struct kernfs_node *kn;

	kn = __kernfs_create_file(top, "add", 0200, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_add_ops,
				  NULL, NULL, NULL);
	if (IS_ERR(kn))
		return PTR_ERR(kn);
	kn = __kernfs_create_file(top, "show", 0200, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_show_ops,
				  NULL, NULL, NULL);
	if (IS_ERR(kn))
		return PTR_ERR(kn);
	kfe_tut_secret = kfe_tut_add_leaf(top, "secret");
	return PTR_ERR_OR_ZERO(kfe_tut_secret);
}

static struct kfe_tut_fs kfe_tut_activate_fs = {
	.name		= "kfe_tut_activate",
	.flags		= KERNFS_ROOT_CREATE_DEACTIVATED |
			  KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_activate_populate,
};

static int __init kfe_tut_activate_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_activate_fs);
}

static void __exit kfe_tut_activate_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_activate_fs);
}

module_init(kfe_tut_activate_init);
module_exit(kfe_tut_activate_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 7: activation");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
