// SPDX-License-Identifier: GPL-2.0
/*
 * Step 1 of the kernfs tutorial, used: the smallest kernfs filesystem.
 * It has a root directory and nothing in it.
 */
#include <linux/module.h>

#include "kfe_tut_fs.h"

static struct kfe_tut_fs kfe_tut_empty_fs = {
	.name	= "kfe_tut_empty",
};

static int __init kfe_tut_empty_init(void)
{
	return kfe_tut_fs_register(&kfe_tut_empty_fs);
}

static void __exit kfe_tut_empty_exit(void)
{
	kfe_tut_fs_unregister(&kfe_tut_empty_fs);
}

module_init(kfe_tut_empty_init);
module_exit(kfe_tut_empty_exit);

MODULE_DESCRIPTION("kernfs tutorial, step 1: an empty kernfs filesystem");
MODULE_LICENSE("GPL");
