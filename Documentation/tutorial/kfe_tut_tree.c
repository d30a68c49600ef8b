// SPDX-License-Identifier: GPL-2.0
/*
 * Step 4 of the kernfs tutorial: directories, private data and links.
 *
 *   colours/red      "#ff0000"
 *   colours/green    "#00ff00"
 *   favourite     -> colours/green
 *
 * Both files share one kernfs_ops; each node's ->priv says what it shows.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfe_tut_fs.h"

struct kfe_tut_colour {
	const char *name;
	const char *rgb;
};

static const struct kfe_tut_colour kfe_tut_colours[] = {
	{ "red", "#ff0000" },
	{ "green", "#00ff00" },
};

static int kfe_tut_colour_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	const struct kfe_tut_colour *colour = of->kn->priv;

	seq_printf(sf, "%s\n", colour->rgb);
	return 0;
}

static const struct kernfs_ops kfe_tut_colour_ops = {
	.seq_show	= kfe_tut_colour_show,
};

static int kfe_tut_tree_populate(struct kernfs_node *top)
{
	struct kernfs_node *dir, *kn = NULL;
	int i;

	dir = kernfs_create_dir(top, "colours", 0755, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);

	for (i = 0; i < ARRAY_SIZE(kfe_tut_colours); i++) {
		kn = __kernfs_create_file(dir, kfe_tut_colours[i].name, 0444,
					  GLOBAL_ROOT_UID, GLOBAL_ROOT_GID, 0,
					  &kfe_tut_colour_ops,
					  (void *)&kfe_tut_colours[i],
					  NULL, NULL);
		if (IS_ERR(kn))
			return PTR_ERR(kn);
	}

	/* The link points at the last file made, "green". */
	kn = kernfs_create_link(top, "favourite", kn);
	return PTR_ERR_OR_ZERO(kn);
}

static struct kfe_tut_fs kfe_tut_tree_fs = {
	.name		= "kfe_tut_tree",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_tree_populate,
};

static int __init kfe_tut_tree_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_tree_fs);
}

static void __exit kfe_tut_tree_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_tree_fs);
}

module_init(kfe_tut_tree_init);
module_exit(kfe_tut_tree_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 4: directories and links");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
