// SPDX-License-Identifier: GPL-2.0
/*
 * More kernfs: per-open state and a file of many records.
 *
 * "planets" is a seq_file with seq_start/seq_next/seq_stop: kernfs calls
 * seq_show once per record, and a read() that stops in the middle of
 * the set resumes from the position seq_start is given. "ticket" keeps
 * state per open file: ->open hangs it on of->priv, ->release frees it.
 * "open" counts the tickets that are open.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "kfe_tut_fs.h"

static const char * const kfe_tut_planets[] = {
	"Mercury", "Venus", "Earth", "Mars",
	"Jupiter", "Saturn", "Uranus", "Neptune",
};

/* Held from seq_start to seq_stop: one read() sees a consistent set. */
static DEFINE_MUTEX(kfe_tut_planets_mutex);

static void *kfe_tut_planets_start(struct seq_file *sf, loff_t *ppos)
{
	mutex_lock(&kfe_tut_planets_mutex);
	if (*ppos >= ARRAY_SIZE(kfe_tut_planets))
		return NULL;
	return (void *)&kfe_tut_planets[*ppos];
}

static void *kfe_tut_planets_next(struct seq_file *sf, void *v, loff_t *ppos)
{
	++*ppos;
	if (*ppos >= ARRAY_SIZE(kfe_tut_planets))
		return NULL;
	return (void *)&kfe_tut_planets[*ppos];
}

/* Called after every seq_start, even one that returned NULL. */
static void kfe_tut_planets_stop(struct seq_file *sf, void *v)
{
	mutex_unlock(&kfe_tut_planets_mutex);
}

static int kfe_tut_planets_show(struct seq_file *sf, void *v)
{
	const char * const *name = v;

	seq_printf(sf, "%s\n", *name);
	return 0;
}

static const struct kernfs_ops kfe_tut_planets_ops = {
	.seq_start	= kfe_tut_planets_start,
	.seq_next	= kfe_tut_planets_next,
	.seq_stop	= kfe_tut_planets_stop,
	.seq_show	= kfe_tut_planets_show,
};

struct kfe_tut_ticket {
	unsigned long number;
};

static atomic_long_t kfe_tut_last_ticket;
static atomic_t kfe_tut_open_tickets;

static int kfe_tut_ticket_open(struct kernfs_open_file *of)
{
	struct kfe_tut_ticket *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->number = atomic_long_inc_return(&kfe_tut_last_ticket);
	of->priv = t;
	atomic_inc(&kfe_tut_open_tickets);
	return 0;
}

/*
 * Called once per successful open: at close(), or earlier, when the
 * node is removed while the file is open. Not under an active
 * reference, so it must not rely on anything removal frees first.
 */
static void kfe_tut_ticket_release(struct kernfs_open_file *of)
{
	kfree(of->priv);
	atomic_dec(&kfe_tut_open_tickets);
}

static int kfe_tut_ticket_show(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	struct kfe_tut_ticket *t = of->priv;

	seq_printf(sf, "ticket %lu\n", t->number);
	return 0;
}

static const struct kernfs_ops kfe_tut_ticket_ops = {
	.open		= kfe_tut_ticket_open,
	.release	= kfe_tut_ticket_release,
	.seq_show	= kfe_tut_ticket_show,
};

static int kfe_tut_open_show(struct seq_file *sf, void *v)
{
	seq_printf(sf, "%d\n", atomic_read(&kfe_tut_open_tickets));
	return 0;
}

static const struct kernfs_ops kfe_tut_open_ops = {
	.seq_show	= kfe_tut_open_show,
};

static int kfe_tut_records_populate(struct kernfs_node *top)
{
	static const struct {
		const char *name;
		const struct kernfs_ops *ops;
	} files[] = {
		{ "planets", &kfe_tut_planets_ops },
		{ "ticket", &kfe_tut_ticket_ops },
		{ "open", &kfe_tut_open_ops },
	};
	struct kernfs_node *kn;
	int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		kn = __kernfs_create_file(top, files[i].name, 0444,
					  GLOBAL_ROOT_UID, GLOBAL_ROOT_GID, 0,
					  files[i].ops, NULL, NULL, NULL);
		if (IS_ERR(kn))
			return PTR_ERR(kn);
	}
	return 0;
}

static struct kfe_tut_fs kfe_tut_records_fs = {
	.name		= "kfe_tut_records",
	.flags		= KERNFS_ROOT_EXTRA_OPEN_PERM_CHECK,
	.populate	= kfe_tut_records_populate,
};

static int __init kfe_tut_records_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_records_fs);
}

static void __exit kfe_tut_records_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_records_fs);
}

module_init(kfe_tut_records_init);
module_exit(kfe_tut_records_exit);

MODULE_DESCRIPTION("kernfs tutorial: per-open state and many records");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
