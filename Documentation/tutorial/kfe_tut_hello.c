// SPDX-License-Identifier: GPL-2.0
/*
 * Step 2 of the kernfs tutorial: a read-only file.
 *
 * A kernfs file is a node with a struct kernfs_ops. With ->seq_show the
 * read side is a seq_file, as in single_open(): kernfs allocates the
 * buffer, calls ->seq_show once and copies out what it printed.
 */
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfe_tut_fs.h"

static const char kfe_tut_hello_text[] = "Hello from kernfs!\n";

static int kfe_tut_hello_show(struct seq_file *sf, void *v)
{
	seq_puts(sf, kfe_tut_hello_text);
	return 0;
}

static const struct kernfs_ops kfe_tut_hello_ops = {
	.seq_show	= kfe_tut_hello_show,
};

static int kfe_tut_hello_populate(struct kernfs_node *top)
{
	struct kernfs_node *kn;

	/* The content never changes, so the size can be exact. */
	kn = __kernfs_create_file(top, "hello", 0444, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID,
				  sizeof(kfe_tut_hello_text) - 1,
				  &kfe_tut_hello_ops, NULL, NULL, NULL);
	return PTR_ERR_OR_ZERO(kn);
}

static struct kfe_tut_fs kfe_tut_hello_fs = {
	.name		= "kfe_tut_hello",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_hello_populate,
};

static int __init kfe_tut_hello_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_hello_fs);
}

static void __exit kfe_tut_hello_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_hello_fs);
}

module_init(kfe_tut_hello_init);
module_exit(kfe_tut_hello_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 2: a read-only file");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
