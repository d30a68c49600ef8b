// SPDX-License-Identifier: GPL-2.0
/*
 * Step 8 of the kernfs tutorial: telling pollers that a file changed.
 *
 *   ticks    the number of ticks so far; poll() it to wait for the next
 *   tick     writing anything adds a tick and notifies "ticks"
 *
 * kernfs_notify() wakes poll() and select() sleepers with POLLPRI |
 * POLLERR, and sends an fsnotify modify event (inotify IN_MODIFY).
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfe_tut_fs.h"

static atomic_t kfe_tut_ticks;
static struct kernfs_node *kfe_tut_ticks_kn;

static int kfe_tut_ticks_show(struct seq_file *sf, void *v)
{
	seq_printf(sf, "%d\n", atomic_read(&kfe_tut_ticks));
	return 0;
}

static const struct kernfs_ops kfe_tut_ticks_ops = {
	.seq_show	= kfe_tut_ticks_show,
};

static ssize_t kfe_tut_tick_write(struct kernfs_open_file *of, char *buf,
				  size_t bytes, loff_t off)
{
	atomic_inc(&kfe_tut_ticks);
	kernfs_notify(kfe_tut_ticks_kn);
	return bytes;
}

static const struct kernfs_ops kfe_tut_tick_ops = {
	.write		= kfe_tut_tick_write,
};

static int kfe_tut_notify_populate(struct kernfs_node *top)
{
	struct kernfs_node *kn;

	kfe_tut_ticks_kn = __kernfs_create_file(top, "ticks", 0444,
						GLOBAL_ROOT_UID,
						GLOBAL_ROOT_GID, 0,
						&kfe_tut_ticks_ops,
						NULL, NULL, NULL);
	if (IS_ERR(kfe_tut_ticks_kn))
		return PTR_ERR(kfe_tut_ticks_kn);
	kn = __kernfs_create_file(top, "tick", 0200, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_tick_ops,
				  NULL, NULL, NULL);
	return PTR_ERR_OR_ZERO(kn);
}

static struct kfe_tut_fs kfe_tut_notify_fs = {
	.name		= "kfe_tut_notify",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_notify_populate,
};

static int __init kfe_tut_notify_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_notify_fs);
}

static void __exit kfe_tut_notify_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_notify_fs);
}

module_init(kfe_tut_notify_init);
module_exit(kfe_tut_notify_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 8: notify and poll");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
