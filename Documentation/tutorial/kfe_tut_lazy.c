// SPDX-License-Identifier: GPL-2.0
/*
 * Step 9 of the kernfs tutorial: directories made on first use
 * (patches/0005).
 *
 *   populations         how many times kernfs called populate()
 *   numbers/            lazy: 0/ ... 99/ are made when first looked into
 *   numbers/N/          lazy: its file is made when first looked into
 *   numbers/N/square    N * N
 *
 * numbers/13/ cannot be populated: every look into it fails with EIO.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "kfe_tut_fs.h"

#define KFE_TUT_NUMBERS	100

static atomic_t kfe_tut_populations = ATOMIC_INIT(0);
static struct kernfs_node *kfe_tut_numbers;

static int kfe_tut_show_number(struct seq_file *sf, void *v)
{
	struct kernfs_open_file *of = sf->private;
	unsigned long n = (unsigned long)of->kn->priv;

	seq_printf(sf, "%lu\n", n * n);
	return 0;
}

static const struct kernfs_ops kfe_tut_square_ops = {
	.seq_show	= kfe_tut_show_number,
};

static int kfe_tut_show_populations(struct seq_file *sf, void *v)
{
	seq_printf(sf, "%d\n", atomic_read(&kfe_tut_populations));
	return 0;
}

static const struct kernfs_ops kfe_tut_populations_ops = {
	.seq_show	= kfe_tut_show_populations,
};

/* numbers/: one lazy directory per number, its priv the number. */
static int kfe_tut_make_numbers(struct kernfs_node *numbers)
{
	struct kernfs_node *kn;
	unsigned long n;
	char name[8];

	for (n = 0; n < KFE_TUT_NUMBERS; n++) {
		snprintf(name, sizeof(name), "%lu", n);
		kn = kernfs_create_lazy_dir_ns(numbers, name, 0555,
					       GLOBAL_ROOT_UID,
					       GLOBAL_ROOT_GID,
					       (void *)n, NULL, 0);
		if (IS_ERR(kn))
			return PTR_ERR(kn);	/* kernfs removes the others */
	}
	return 0;
}

/* numbers/N/: its square. */
static int kfe_tut_make_number(struct kernfs_node *dir)
{
	struct kernfs_node *kn;

	if ((unsigned long)dir->priv == 13)
		return -EIO;		/* fails this look; the next one retries */

	kn = __kernfs_create_file(dir, "square", 0444, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0, &kfe_tut_square_ops,
				  dir->priv, NULL, NULL);
	return PTR_ERR_OR_ZERO(kn);
}

/* Called once per lazy directory, before anyone sees its children. */
static int kfe_tut_lazy_populate(struct kernfs_node *dir)
{
	atomic_inc(&kfe_tut_populations);
	if (dir == kfe_tut_numbers)
		return kfe_tut_make_numbers(dir);
	return kfe_tut_make_number(dir);
}

static struct kernfs_syscall_ops kfe_tut_lazy_scops = {
	.populate	= kfe_tut_lazy_populate,
};

/* The tree at registration: one file and one lazy directory. */
static int kfe_tut_lazy_build(struct kernfs_node *top)
{
	struct kernfs_node *kn;

	kn = __kernfs_create_file(top, "populations", 0444, GLOBAL_ROOT_UID,
				  GLOBAL_ROOT_GID, 0,
				  &kfe_tut_populations_ops, NULL, NULL, NULL);
	if (IS_ERR(kn))
		return PTR_ERR(kn);

	kn = kernfs_create_lazy_dir_ns(top, "numbers", 0555, GLOBAL_ROOT_UID,
				       GLOBAL_ROOT_GID, NULL, NULL, 0);
	if (IS_ERR(kn))
		return PTR_ERR(kn);
	kfe_tut_numbers = kn;
	return 0;
}

static struct kfe_tut_fs kfe_tut_lazy_fs = {
	.name		= "kfe_tut_lazy",
	.scops		= &kfe_tut_lazy_scops,
	.populate	= kfe_tut_lazy_build,
};

static int __init kfe_tut_lazy_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_lazy_fs);
}

static void __exit kfe_tut_lazy_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_lazy_fs);
}

module_init(kfe_tut_lazy_init);
module_exit(kfe_tut_lazy_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 9: lazily populated directories");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(KERNFS);
