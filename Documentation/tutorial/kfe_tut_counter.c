// SPDX-License-Identifier: GPL-2.0
/*
 * Step 3 of the kernfs tutorial: a file that can be written.
 *
 * ->write gets a kernel copy of the user's buffer, NUL-terminated. With
 * ->atomic_write_len set, a write arrives in one call or not at all.
 * kernfs serialises the operations of one open file, not those of two
 * open files, so shared state needs its own protection: here an atomic.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfe_tut_fs.h"

static atomic_long_t kfe_tut_counter;

static int kfe_tut_counter_show(struct seq_file *sf, void *v)
{
	seq_printf(sf, "%ld\n", atomic_long_read(&kfe_tut_counter));
	return 0;
}

static ssize_t kfe_tut_counter_write(struct kernfs_open_file *of, char *buf,
				     size_t bytes, loff_t off)
{
	long val;
	int ret;

	ret = kstrtol(buf, 0, &val);
	if (ret)
		return ret;
	atomic_long_set(&kfe_tut_counter, val);
	return bytes;
}

static const struct kernfs_ops kfe_tut_counter_ops = {
	.seq_show		= kfe_tut_counter_show,
	.write			= kfe_tut_counter_write,
	/* Room for any long in decimal, a sign and a newline. */
	.atomic_write_len	= 32,
};

static int kfe_tut_counter_populate(struct kernfs_node *top)
{
	struct kernfs_node *kn;

	/* The content changes: claim no size rather than a wrong one. */
	kn = __kernfs_create_file(top, "counter", 0644, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_counter_ops,
				  NULL, NULL, NULL);
	return PTR_ERR_OR_ZERO(kn);
}

static struct kfe_tut_fs kfe_tut_counter_fs = {
	.name		= "kfe_tut_counter",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_counter_populate,
};

static int __init kfe_tut_counter_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_counter_fs);
}

static void __exit kfe_tut_counter_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_counter_fs);
}

module_init(kfe_tut_counter_init);
module_exit(kfe_tut_counter_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 3: a writable file");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
